#!/usr/bin/env bash
# The pause key: pause.sh PANE CLIENT pauses the pane's loop, or resumes it
# when it is paused. A paused loop leaves the agent running.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

pane="$1"
RALPH_CLIENT="$2"

read_loop "$pane"
if [ -z "$loop_name" ]; then
	say "no loop in pane $pane; the loop key starts one"
	exit 0
fi
if [ -z "$loop_live" ]; then
	say "$loop_name has ended ($(loop_ending)); the loop key starts a new loop"
	exit 0
fi
need_ralph_watch || exit 0
say "$(pause_or_resume "$loop_name" "$loop_state")"
exit 0
