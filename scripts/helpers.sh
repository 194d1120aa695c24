# shellcheck shell=bash
# Shared by ralph.tmux and the scripts its keys run. Only tmux commands reach
# the person: tpm and run-shell -b discard output, so messages go through
# display-message.

PLUGIN_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck disable=SC2034 # used by ralph.tmux
SCRIPTS_DIR="$PLUGIN_DIR/scripts"
RALPH_CLIENT="" # the client that pressed the key, when known
pane=""         # the pane it was pressed in

# Global options read ahead by read_tmux_options, by name: every tmux command
# starts a tmux client, and a key or the plugin's load reads twenty options.
declare -gA TMUX_OPTION=()
OPTION_END='@ralph-option-end@' # printed after each value (none when unset)

# read_tmux_options NAME...: read the global options NAME... in one tmux
# call, for get_tmux_option and set_default; a failed read leaves them to
# read one by one.
read_tmux_options() {
	local names=("$@") args=() name out line value="" i=0
	for name in "$@"; do
		args+=(show-options -gqv "$name" \; display-message -p "$OPTION_END" \;)
	done
	out="$(tmux "${args[@]:0:${#args[@]}-1}" 2>/dev/null)" || return 0
	while IFS= read -r line && [ "$i" -lt "${#names[@]}" ]; do
		if [ "$line" = "$OPTION_END" ]; then
			TMUX_OPTION[${names[i]}]="${value%$'\n'}"
			value="" i=$((i + 1))
		else
			value+="$line"$'\n'
		fi
	done <<<"$out"
}

# tmux_option NAME: a global option's value, as read ahead when it was.
tmux_option() {
	if [ -n "${TMUX_OPTION[$1]+set}" ]; then
		printf '%s' "${TMUX_OPTION[$1]}"
	else
		tmux show-options -gqv "$1"
	fi
}

# get_tmux_option NAME DEFAULT: a global option, or DEFAULT when unset or empty.
get_tmux_option() {
	local value
	value="$(tmux_option "$1")"
	printf '%s' "${value:-$2}"
}

# Options queued by queue_set, set in one tmux call by set_queued.
TMUX_QUEUE=()

# queue_set NAME VALUE: a global option for set_queued to set.
queue_set() {
	TMUX_QUEUE+=(set-option -gq "$1" "$(tmux_arg "$2")" \;)
}

# set_queued: set the queued options in one tmux call.
set_queued() {
	local queue=("${TMUX_QUEUE[@]}")
	TMUX_QUEUE=()
	[ "${#queue[@]}" -gt 0 ] || return 0
	tmux "${queue[@]:0:${#queue[@]}-1}" || say "cannot set the plugin's default options"
}

# set_default NAME VALUE: set a global option only when it is not set yet
# (queued: set_queued sets it).
set_default() {
	[ -n "$(tmux_option "$1")" ] || queue_set "$1" "$2"
}

# format_escape TEXT: literal text for a place tmux expands formats.
format_escape() {
	printf '%s' "${1//\#/##}"
}

# sh_quote WORD: WORD as one sh word, in quotes only when it needs them.
sh_quote() {
	if [[ "$1" =~ ^[A-Za-z0-9_@%+:,./-]+$ ]]; then
		printf '%s' "$1"
	else
		printf "'%s'" "${1//\'/\'\\\'\'}"
	fi
}

# sh_words WORD...: the words as one sh command line.
sh_words() {
	local word out=""
	for word in "$@"; do
		out+="${out:+ }$(sh_quote "$word")"
	done
	printf '%s' "$out"
}

# run_shell_command WORD...: the words as one command for run-shell, which
# expands formats before handing it to sh.
run_shell_command() {
	format_escape "$(sh_words "$@")"
}

# tmux_quote WORD: WORD as one argument in tmux's command language (for menu
# items and confirm-before, which parse their command when chosen).
tmux_quote() {
	local s="$1"
	s="${s//\\/\\\\}"
	s="${s//\"/\\\"}"
	s="${s//\$/\\\$}"
	printf '"%s"' "$s"
}

# tmux_arg WORD: WORD for tmux's argv, where a trailing ; separates commands.
tmux_arg() {
	case "$1" in
	*\;) printf '%s\\;' "${1%;}" ;;
	*) printf '%s' "$1" ;;
	esac
}

# choice SCRIPT TEXT KEY ACTION [ARG...]: add a line to the menu being built
# (MENU) that runs SCRIPT PANE CLIENT ACTION ARG... display-menu expands
# formats in a line's text and command; run-shell does again, then sh splits
# the words.
choice() {
	local run
	run="run-shell -b $(tmux_quote "$(run_shell_command "$1" "$pane" "$RALPH_CLIENT" "${@:4}")")"
	MENU+=("$(format_escape "$2")" "$3" "$(format_escape "$run")")
}

# shorten TEXT: TEXT cut in the middle to fit a menu line.
shorten() {
	local text="$1"
	[ "${#text}" -gt 72 ] && text="${text:0:35}…${text: -36}"
	printf '%s' "$text"
}

# item TEXT: a line of the menu being built that only informs.
item() {
	MENU+=("$(tmux_arg "-$(format_escape "$(shorten "$1")")")" "" "")
}

# cancel: the menu's last lines, a separator and Cancel (q; Escape works too).
cancel() {
	MENU+=("" "Cancel" q "")
}

# require_live_loop PANE NONE ENDED [NEXT]: reads PANE's loop (read_loop);
# without one says NONE, for one that has ended says "NAME ENDED (how)"
# (then "; NEXT"), and fails either way.
require_live_loop() {
	read_loop "$1"
	if [ -z "$loop_name" ]; then
		say "$2"
		return 1
	fi
	if [ -z "$loop_live" ]; then
		say "$loop_name $3 ($(loop_ending))${4:+; $4}"
		return 1
	fi
}

# read_loop PANE: the pane's loop as its watcher describes it in pane
# options: loop_name, loop_state (the word), loop_reason (how it ended or
# what it waits for) and loop_live ("1" while the loop lives: which states
# are live is the watcher's to say, never a list here).
# shellcheck disable=SC2034 # the loop_ variables are the answer
read_loop() {
	split_fields "$(tmux display-message -p -t "$1" $'#{@ralph-name}\t#{@ralph-live}\t#{@ralph-state}\t#{@ralph-reason}' 2>/dev/null)"
	loop_name="${FIELDS[0]}" loop_live="${FIELDS[1]:-}" loop_state="${FIELDS[2]:-}" loop_reason="${FIELDS[3]:-}"
}

# split_fields LINE: FIELDS, the fields of a format that tmux printed with a
# tab between them, empty ones kept (read merges runs of tabs). A tab: tmux
# 3.4 and later print every other control character as \NNN.
split_fields() {
	local rest="$1"
	FIELDS=()
	while [[ "$rest" == *$'\t'* ]]; do
		FIELDS+=("${rest%%$'\t'*}")
		rest="${rest#*$'\t'}"
	done
	FIELDS+=("$rest")
}

# loop_ending: how the pane's ended loop ended (its reason, else its state).
loop_ending() {
	printf '%s' "${loop_reason:-$loop_state}"
}

# pause_or_resume NAME STATE: pause the live loop NAME, or resume it when
# STATE is paused; print what ralph-watch said.
pause_or_resume() {
	local action=pause
	[ "$2" = paused ] && action=resume
	last_line "$("$RALPH_WATCH" "$action" "$1" 2>&1 </dev/null)"
}

# stop_loop NAME [--kill]: stop the loop NAME (and its agent with --kill);
# print what ralph-watch said.
stop_loop() {
	last_line "$("$RALPH_WATCH" stop "${@:2}" "$1" 2>&1 </dev/null)"
}

# say MESSAGE: show a message on the client that asked, else any client,
# for as long as it takes to read (1 s and 60 ms a character, at most 15 s,
# never less than display-time).
say() {
	local text ms shortest
	text="$(tmux_arg "$(format_escape "[ralph] $1")")"
	ms=$((1000 + 60 * ${#1}))
	[ "$ms" -gt 15000 ] && ms=15000
	shortest="$(tmux_option display-time)"
	[[ "$shortest" =~ ^[0-9]+$ ]] && [ "$shortest" -gt "$ms" ] && ms="$shortest"
	if [ -n "$RALPH_CLIENT" ]; then
		tmux display-message -c "$RALPH_CLIENT" -d "$ms" "$text" 2>/dev/null && return
	fi
	tmux display-message -d "$ms" "$text" 2>/dev/null || tmux display-message "$text" 2>/dev/null || true
}

# ralph_watch_bin: the ralph-watch to run, the plugin's own first.
ralph_watch_bin() {
	if [ -x "$PLUGIN_DIR/bin/ralph-watch" ]; then
		printf '%s' "$PLUGIN_DIR/bin/ralph-watch"
	else
		command -v ralph-watch
	fi
}

# need_ralph_watch: set RALPH_WATCH, or say why it cannot be and fail.
need_ralph_watch() {
	RALPH_WATCH="$(ralph_watch_bin)" && [ -n "$RALPH_WATCH" ] && return 0
	if [ -e "$PLUGIN_DIR/bin/.building" ]; then
		say "ralph-watch is still being built; try again in a moment"
	else
		say "ralph-watch not found: put it on PATH or build it with 'make -C $PLUGIN_DIR build'"
	fi
	return 1
}

# last_line TEXT: the last non-empty line, for a one-line message.
last_line() {
	printf '%s\n' "$1" | sed '/^[[:space:]]*$/d' | tail -n 1
}

# read_note NAME: read a note for the loop NAME's next iteration from the
# terminal (a popup's) and give it to the loop byte for byte: no tmux
# prompt, format or shell sees it. Prints what ralph-watch said.
read_note() {
	local text
	IFS= read -r -e -p "note for $1: " text || text=""
	if [ -z "${text//[[:space:]]/}" ]; then
		printf 'no note for %s' "$1"
		return
	fi
	last_line "$(printf '%s\n' "$text" | "$RALPH_WATCH" note "$1" - 2>&1)"
}
