#!/usr/bin/env bash
# The pause key: pause.sh PANE CLIENT pauses the pane's loop, or resumes it
# when it is paused. A paused loop leaves the agent running.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

pane="$1"
RALPH_CLIENT="$2"

require_live_loop "$pane" "no loop in pane $pane; the loop key starts one" \
	"has ended" "the loop key starts a new loop" || exit 0
need_ralph_watch || exit 0
say "$(pause_or_resume "$loop_name" "$loop_state")"
exit 0
