#!/usr/bin/env bash
# The popup key: popup.sh PANE CLIENT opens a popup that shows every loop and
# the log of PANE's loop, refreshed until q or Escape; "view" draws it.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

pane="$1"
RALPH_CLIENT="$2"
action="${3:-open}"

open() {
	need_ralph_watch || return
	tmux display-popup -c "$RALPH_CLIENT" -t "$pane" -E -w 90% -h 80% -T " ralph " \
		"$(sh_words "$SCRIPTS_DIR/popup.sh" "$pane" "$RALPH_CLIENT" view)"
}

view() {
	local name screen key
	need_ralph_watch || return
	while :; do
		name="$(tmux show-options -pqv -t "$pane" @ralph-name)"
		screen="$("$RALPH_WATCH" list 2>&1)"
		if [ -n "$name" ]; then
			screen+=$'\n\n'"$("$RALPH_WATCH" logs --lines "$(($(tput lines 2>/dev/null || echo 24) - 12))" "$name" 2>&1)"
		else
			screen+=$'\n\n'"no loop in pane $pane"
		fi
		printf '\033[H\033[2J%s\n\n(q: close)' "$screen"
		# Redraw every 2 seconds until a key that closes.
		if IFS= read -rsn1 -t 2 key; then
			case "$key" in q | Q | $'\e') return ;; esac
		fi
	done
}

case "$action" in
open) open ;;
view) view ;;
esac
exit 0
