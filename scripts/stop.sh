#!/usr/bin/env bash
# The stop key: stop.sh PANE CLIENT asks whether to end the pane's loop (and
# its agent); "stop" or "kill" does it.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

pane="$1"
RALPH_CLIENT="$2"
action="${3:-ask}"

require_live_loop "$pane" "no loop in pane $pane" "has already ended" || exit 0

case "$action" in
ask)
	MENU=(display-menu -c "$RALPH_CLIENT" -t "$pane" -x C -y C -T "#[align=centre] ralph: stop $(format_escape "$loop_name") " --)
	item "$loop_name is $loop_state${loop_reason:+ ($loop_reason)}"
	MENU+=("") # a separator
	choice "$SCRIPTS_DIR/stop.sh" "Stop the loop (the agent runs on)" y stop
	# The watcher respawns the pane with its --end-command (a shell) once the agent ends.
	choice "$SCRIPTS_DIR/stop.sh" "Stop the loop and end the agent (back to a shell)" k kill
	cancel
	tmux "${MENU[@]}"
	;;
stop)
	need_ralph_watch || exit 0
	say "$(stop_loop "$loop_name")"
	;;
kill)
	need_ralph_watch || exit 0
	say "$(stop_loop "$loop_name" --kill)"
	;;
esac
exit 0
