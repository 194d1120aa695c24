#!/usr/bin/env bash
# The stop key: stop.sh PANE CLIENT asks whether to end the pane's loop (and
# its agent); "stop" or "kill" does it.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

pane="$1"
RALPH_CLIENT="$2"
action="${3:-ask}"

name="$(tmux show-options -pqv -t "$pane" @ralph-name)"
state="$(tmux show-options -pqv -t "$pane" @ralph-state)"
case "$state" in
running | backoff | paused) ;;
"")
	say "no loop in pane $pane"
	exit 0
	;;
*)
	say "$name has already ended ($state)"
	exit 0
	;;
esac


case "$action" in
ask)
	MENU=(display-menu -c "$RALPH_CLIENT" -t "$pane" -x C -y C -T "#[align=centre] ralph: stop $(format_escape "$name") " --)
	choice "$SCRIPTS_DIR/stop.sh" "Stop the loop (the agent runs on)" y stop
	choice "$SCRIPTS_DIR/stop.sh" "Stop the loop and end the agent" k kill
	tmux "${MENU[@]}"
	;;
stop | kill)
	need_ralph_watch || exit 0
	args=(stop)
	[ "$action" = kill ] && args+=(--kill)
	out="$("$RALPH_WATCH" "${args[@]}" "$name" 2>&1 </dev/null)"
	say "$(last_line "$out")"
	;;
esac
exit 0
