#!/usr/bin/env bash
# The pause key: pause.sh PANE CLIENT pauses the pane's loop, or resumes it
# when it is paused. A paused loop leaves the agent running.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

pane="$1"
RALPH_CLIENT="$2"

name="$(tmux show-options -pqv -t "$pane" @ralph-name)"
state="$(tmux show-options -pqv -t "$pane" @ralph-state)"
case "$state" in
running | backoff) action=pause ;;
paused) action=resume ;;
"")
	say "no loop in pane $pane; the loop key starts one"
	exit 0
	;;
*)
	say "$name has ended ($state); the loop key starts a new loop"
	exit 0
	;;
esac
need_ralph_watch || exit 0
out="$("$RALPH_WATCH" "$action" "$name" 2>&1 </dev/null)"
say "$(last_line "$out")"
exit 0
