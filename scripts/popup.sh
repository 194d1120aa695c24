#!/usr/bin/env bash
# The popup key: popup.sh PANE CLIENT opens a popup that lists every loop of
# the server and acts on the one chosen; "view" draws it, refreshed every
# 2 seconds until q or Escape.

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

# read_loops: every looped pane of the server, from the options its watcher
# keeps, as arrays indexed alike: ids, places (session:window.pane), names,
# lives, states, statuses, reasons, fans (1: the row is a fan's window, which
# its process keeps, live while the fan runs).
read_loops() {
	local line
	ids=() places=() names=() lives=() states=() statuses=() reasons=() fans=()
	while IFS= read -r line; do
		split_fields "$line"
		[ -n "${FIELDS[2]:-}" ] || continue
		ids+=("${FIELDS[0]}") places+=("${FIELDS[1]}") names+=("${FIELDS[2]}") lives+=("${FIELDS[3]:-}")
		states+=("${FIELDS[4]:-}") statuses+=("${FIELDS[5]:-}") reasons+=("${FIELDS[6]:-}") fans+=("${FIELDS[7]:-}")
		if [ -n "${FIELDS[7]:-}" ]; then
			lives[${#lives[@]} - 1]="$([ "${FIELDS[4]:-}" = running ] && echo 1)"
		fi
	done < <(tmux list-panes -a -F $'#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}\t#{@ralph-name}\t#{@ralph-live}\t#{@ralph-state}\t#{@ralph-status}\t#{@ralph-reason}\t#{@ralph-fan}' 2>/dev/null)
}

# draw: the list with the chosen loop marked, then the chosen loop's state,
# how its last iteration ended and the end of its log, then the keys; all
# of it within the popup's rows and columns (a longer list shows the rows
# around the chosen one), so the title and the chosen loop stay in sight.
draw() {
	local i rows cols log last keys lines=() first=0 last_row list
	rows="$(tput lines 2>/dev/null || echo 24)"
	cols="$(tput cols 2>/dev/null || echo 80)"
	lines+=("ralph: every loop of this server${ids[0]+ (${#ids[@]})}" "")
	if [ "${#ids[@]}" -eq 0 ]; then
		lines+=("  no loops; the loop key starts one in a pane")
	fi
	# The list's rows: all, or a window on the chosen one (9 lines are the
	# title, the chosen loop's state, the message and the keys; 3 the log).
	list=$((rows - 12 > 3 ? rows - 12 : 3))
	last_row=$((${#ids[@]} - 1))
	if [ "${#ids[@]}" -gt "$list" ]; then
		first=$((${chosen:-0} - list / 2))
		[ "$first" -gt $((${#ids[@]} - list)) ] && first=$((${#ids[@]} - list))
		[ "$first" -lt 0 ] && first=0
		last_row=$((first + list - 1))
		[ "$first" -gt 0 ] && first=$((first + 1)) # a line says how many are above
		[ "$last_row" -lt $((${#ids[@]} - 1)) ] && last_row=$((last_row - 1))
	fi
	[ "$first" -gt 0 ] && lines+=("  … $first more above")
	for ((i = first; i <= last_row; i++)); do
		lines+=("$(printf '%s %d  %-12s %-20s %s' "$([ "$i" = "$chosen" ] && echo '>' || echo ' ')" $((i + 1)) \
			"${places[i]}" "${names[i]}" "${statuses[i]}${reasons[i]:+  (${reasons[i]})}")")
	done
	[ "$last_row" -lt $((${#ids[@]} - 1)) ] && lines+=("  … $((${#ids[@]} - 1 - last_row)) more below")
	if [ -n "$chosen" ]; then
		log="$("$RALPH_WATCH" logs --lines 200 "${names[chosen]}" 2>&1)"
		if [ -n "${fans[chosen]}" ]; then
			last="$(printf '%s\n' "$log" | grep -E ': task [^ ]+ (landed|sent back|needs review|skipped)' | tail -n 1)"
			lines+=("" "fan ${names[chosen]} in ${places[chosen]}: ${states[chosen]} (${statuses[chosen]})")
			lines+=("last landing: ${last:-none yet}" "")
		else
			last="$(printf '%s\n' "$log" | grep -E '\[(END|FAIL|TIMEOUT|LIMIT|DONE)\]' | tail -n 1)"
			lines+=("" "${names[chosen]} in ${places[chosen]}: ${states[chosen]}$([ -z "${lives[chosen]}" ] && echo ' (ended)')")
			lines+=("last iteration: ${last:-none ended yet}" "")
		fi
		while IFS= read -r i; do lines+=("$i"); done < <(printf '%s\n' "$log" | tail -n "$((rows - ${#lines[@]} - 3 > 0 ? rows - ${#lines[@]} - 3 : 1))")
	fi
	if [ -n "$chosen" ] && [ -z "${lives[chosen]}" ]; then # ended: only what applies to it
		keys=""
		[ -n "${fans[chosen]}" ] || keys="+ 10 more" # a loop that ended goes on from where it stopped; a fan does not
		lines+=("${message:+[ralph] $message}" "$keys")
		keys="1-9 ↑↓ choose · a attach · f finish · "
	else
		keys="n note · + 10 more"
		[ -n "$chosen" ] && [ -n "${fans[chosen]}" ] || keys+=" · x skip · r retry"
		lines+=("${message:+[ralph] $message}" "$keys")
		keys="1-9 ↑↓ choose · p pause/resume · s stop · a attach · "
	fi
	[ -n "$doctor" ] && keys+="d doctor · "
	lines+=("${keys}q: close")
	# Each line cut to the width (a wrapped line would push the title off),
	# the last without a newline (which would scroll).
	printf '\033[H\033[2J'
	for ((i = 0; i < ${#lines[@]} && i < rows; i++)); do
		[ "$i" -gt 0 ] && printf '\n'
		printf '%s' "${lines[i]:0:cols}"
	done
}

# choose_pane ID: the index of the loop in pane ID, else the first, else none.
choose_pane() {
	local i
	chosen=""
	for i in "${!ids[@]}"; do
		[ "${ids[i]}" = "$1" ] && chosen="$i"
	done
	[ -z "$chosen" ] && [ "${#ids[@]}" -gt 0 ] && chosen=0
}

# act KEY: what a key does to the chosen loop; false when it closes the popup.
act() {
	local name="${names[chosen]}" key state
	case "$1" in
	q | Q | close) return 1 ;;
	[1-9]) [ "$1" -le "${#ids[@]}" ] && chosen=$(($1 - 1)) ;;
	j | down) [ -n "$chosen" ] && [ "$chosen" -lt $((${#ids[@]} - 1)) ] && chosen=$((chosen + 1)) ;;
	k | up) [ -n "$chosen" ] && [ "$chosen" -gt 0 ] && chosen=$((chosen - 1)) ;;
	a)
		[ -n "$chosen" ] || return 0
		tmux switch-client -c "$RALPH_CLIENT" -t "${ids[chosen]}" 2>/dev/null
		return 1
		;;
	p)
		[ -n "$chosen" ] || return 0
		if [ -n "${fans[chosen]}" ] && [ -n "${lives[chosen]}" ]; then # the fan's loops at work, as one
			state=running
			fan_paused "$name" && state=paused
			message="$(pause_or_resume "$name" "$state")"
		elif [ -z "${lives[chosen]}" ]; then
			message="$name has ended (${reasons[chosen]:-${states[chosen]}})"
		else
			# Its state now, not at the last refresh: a pause just asked may have landed since.
			state="$(tmux display-message -p -t "${ids[chosen]}" '#{@ralph-state}' 2>/dev/null)"
			message="$(pause_or_resume "$name" "${state:-${states[chosen]}}")"
		fi
		;;
	s)
		[ -n "$chosen" ] || return 0
		if [ -z "${lives[chosen]}" ]; then
			message="$name has already ended (${reasons[chosen]:-${states[chosen]}})"
			return 0
		fi
		printf '\n\nstop %s? y: the loop only (the agent runs on) · k: the agent too (back to a shell) · other: cancel' "$name"
		IFS= read -rsn1 key
		case "$key" in
		y) message="$(stop_loop "$name")" ;;
		k) message="$(stop_loop "$name" --kill)" ;;
		*) message="not stopped" ;;
		esac
		;;
	n)
		[ -n "$chosen" ] || return 0
		if [ -z "${lives[chosen]}" ]; then
			message="$name has ended (${reasons[chosen]:-${states[chosen]}}): a note would reach no iteration"
			return 0
		fi
		printf '\n\n'
		message="$(read_note "$name")"
		;;
	+)
		[ -n "$chosen" ] || return 0
		if [ -n "${fans[chosen]}" ] && [ -z "${lives[chosen]}" ]; then
			message="fan $name has ended: f finish shows what it did and how to land it"
		elif [ -n "${lives[chosen]}" ]; then
			message="$(last_line "$("$RALPH_WATCH" set --max-iterations +10 "$name" 2>&1 </dev/null)")"
		else # ended at its limit: ten more, from where it stopped
			message="$(last_line "$("$RALPH_WATCH" resume --max-iterations +10 "$name" 2>&1 </dev/null)")"
		fi
		;;
	x | r)
		[ -n "$chosen" ] || return 0
		if [ -n "${fans[chosen]}" ]; then
			message="$1 ends one loop's iteration: choose one of fan $name's loops"
			return 0
		fi
		if [ -z "${lives[chosen]}" ]; then
			message="$name has ended (${reasons[chosen]:-${states[chosen]}})"
			return 0
		fi
		key=skip
		[ "$1" = r ] && key=retry
		message="$(last_line "$("$RALPH_WATCH" "$key" "$name" 2>&1 </dev/null)")"
		;;
	f)
		[ -n "$chosen" ] || return 0
		if [ -n "${lives[chosen]}" ]; then
			message="$name is still looping: stop it first, then finish lands its work"
			return 0
		fi
		printf '\n\nfinish %s? m: merge · r: rebase · p: pull request (gh) · other: cancel' "$name"
		IFS= read -rsn1 key
		case "$key" in
		m) key=--merge ;;
		r) key=--rebase ;;
		p) key=--pr ;;
		*)
			message="not finished"
			return 0
			;;
		esac
		printf '\033[H\033[2Jralph-watch finish %s %s\n\n' "$name" "$key"
		"$RALPH_WATCH" finish "$name" "$key" 2>&1 </dev/null
		printf '\n(any key: back)'
		IFS= read -rsn1 key
		;;
	d)
		[ -n "$doctor" ] || return 0
		printf '\033[H\033[2Jralph-watch doctor: starting each agent on the PATH offline (a minute)…\n\n'
		"$RALPH_WATCH" doctor 2>&1 </dev/null
		printf '\n(any key: back)'
		IFS= read -rsn1 key
		;;
	esac
	return 0
}

# fan_paused NAME: whether a loop of fan NAME at work is paused.
fan_paused() {
	"$RALPH_WATCH" status "$1" 2>/dev/null </dev/null | grep -q '^  [^ ]*: paused,'
}

# read_key [SECONDS]: one key press (arrows named up and down, a lone
# Escape close), or nothing after SECONDS (2).
read_key() {
	local key rest
	IFS= read -rsn1 -t "${1:-2}" key || return 1
	if [ "$key" = $'\e' ]; then
		IFS= read -rsn2 -t 0.05 rest
		case "$rest" in
		"[A") key=up ;;
		"[B") key=down ;;
		"") key=close ;;
		*) key="" ;;
		esac
	fi
	printf '%s' "$key"
}

view() {
	local key id
	need_ralph_watch || return
	doctor=""
	"$RALPH_WATCH" doctor --help >/dev/null 2>&1 && doctor=1 # another version may lack it
	message=""
	read_loops
	choose_pane "$pane"
	while :; do
		draw
		if key="$(read_key)"; then
			act "$key" || return
			# Moves typed while it drew (a held j) are taken before the next draw, so the list keeps up.
			while [[ $key =~ ^(j|k|up|down|[1-9])$ ]] && key="$(read_key 0.01)"; do
				act "$key" || return
			done
		fi
		# The same loop stays chosen as loops come and go.
		id="${ids[chosen]}"
		read_loops
		choose_pane "$id"
	done
}

case "$action" in
open) open ;;
view) view ;;
esac
exit 0
