#!/usr/bin/env bash
# restore.sh: re-arm the loops that were live when this tmux server's last
# run ended (ralph-watch restore), and tell the person which. ralph.tmux
# runs it as the server starts with @ralph-restore on, or tmux-resurrect
# after its restore.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

# The client-attached hook's slot for a message no client was there to see:
# its own index, so a hook the person set stays.
ATTACH_HOOK='client-attached[4207]'

# tell MESSAGE: show MESSAGE on every attached client, else on the first
# client to attach (the server starts before any client is there).
tell() {
	local text client clients
	text="$(format_escape "[ralph] $1")"
	clients="$(tmux list-clients -F '#{client_name}' 2>/dev/null)"
	if [ -z "$clients" ]; then
		tmux set-hook -g "$ATTACH_HOOK" "display-message $(tmux_quote "$text") ; set-hook -gu $ATTACH_HOOK"
		return
	fi
	while IFS= read -r client; do
		tmux display-message -c "$client" "$(tmux_arg "$text")" 2>/dev/null
	done <<<"$clients"
}

# names LINES: the loops ralph-watch restore re-armed, comma-separated.
names() {
	sed -n 's/^re-armed \([^: ]*\).*/\1/p' <<<"$1" | paste -sd, - | sed 's/,/, /g'
}

main() {
	need_ralph_watch || return
	local out armed count failed
	out="$("$RALPH_WATCH" restore 2>&1 </dev/null)"
	armed="$(names "$out")"
	count="$(grep -c '^re-armed ' <<<"$out")"
	failed="$(grep '^ralph-watch: ' <<<"$out" | tail -n 1)"
	if [ "$count" -gt 0 ]; then
		local loops=loops
		[ "$count" = 1 ] && loops=loop
		tell "re-armed $count $loops: $armed${failed:+ ($failed)}"
	elif [ -n "$failed" ]; then
		tell "restore: $failed"
	fi
}

main
exit 0
