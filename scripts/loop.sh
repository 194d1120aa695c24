#!/usr/bin/env bash
# The loop key: loop.sh PANE CLIENT shows the settings a loop of PANE would
# get and asks to start it; "start" starts it, "init" writes a starting prompt,
# "trust" trusts the folder's .ralph/config (which names commands) and starts.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

pane="$1"
RALPH_CLIENT="$2"
action="${3:-ask}"

# The run flags a person may set as @ralph-FLAG, one to one, with the
# plugin's defaults; the rest come from ralph-watch's own defaults and the
# project's .ralph/config.
FLAGS=(max-iterations done-pattern prompt-mode agent inactivity-timeout iteration-timeout max-time ready-pattern)
declare -A DEFAULTS=([max-iterations]=20)

# settings: the pane's folder, prompt file, command, and ralph-watch run's
# arguments (RUN_ARGS) and their description (SHOWN).
settings() {
	local flag value
	dir="$(tmux display-message -p -t "$pane" '#{pane_current_path}')"
	prompt="$(get_tmux_option @ralph-prompt-file PROMPT.md)"
	case "$prompt" in
	\~/*) prompt="$HOME/${prompt#\~/}" ;;
	/*) ;;
	*) prompt="$dir/$prompt" ;;
	esac
	command="$(get_tmux_option @ralph-command claude)"
	RUN_ARGS=(run --detach --target "$pane" --socket-path "$(tmux display-message -p '#{socket_path}')" --prompt-file "$prompt")
	SHOWN=("folder          $dir" "command         $command" "prompt-file     $prompt")
	for flag in "${FLAGS[@]}"; do
		value="$(get_tmux_option "@ralph-$flag" "${DEFAULTS[$flag]}")"
		[ -n "$value" ] || continue
		RUN_ARGS+=("--$flag=$value")
		SHOWN+=("$(printf '%-15s %s' "$flag" "$value")")
	done
	RUN_ARGS+=(-- "$command")
}

# item TEXT: a line of a menu that only informs (shortened to fit).
item() {
	local text="$1"
	[ "${#text}" -gt 72 ] && text="${text:0:35}…${text: -36}"
	MENU+=("$(tmux_arg "-$(format_escape "$text")")" "" "")
}


ask() {
	local state name line untrusted
	state="$(tmux show-options -pqv -t "$pane" @ralph-state)"
	name="$(tmux show-options -pqv -t "$pane" @ralph-name)"
	case "$state" in
	running | backoff | paused)
		say "$name is looping this pane ($state): pause or resume with the pause key, end it with the stop key"
		return
		;;
	esac
	need_ralph_watch || return
	settings
	MENU=(display-menu -c "$RALPH_CLIENT" -t "$pane" -x C -y C -T "#[align=centre] ralph: loop pane $pane " --)
	if [ ! -f "$prompt" ]; then
		item "no prompt file: $prompt"
		MENU+=("") # a separator
		choice "$SCRIPTS_DIR/loop.sh" "Write a starting prompt there" i init
		tmux "${MENU[@]}"
		return
	fi
	for line in "${SHOWN[@]}"; do item "$line"; done
	MENU+=("") # a separator
	untrusted="$(cd "$dir" && "$RALPH_WATCH" trust --check . 2>/dev/null </dev/null)"
	if [ -n "$untrusted" ]; then # the project's .ralph/config names commands not trusted yet
		item "$dir/.ralph/config would run:"
		while IFS= read -r line; do item "  $line"; done <<<"$untrusted"
		MENU+=("")
		choice "$SCRIPTS_DIR/loop.sh" "Trust and start" t trust
	else
		choice "$SCRIPTS_DIR/loop.sh" "Start the loop" y start
	fi
	tmux "${MENU[@]}"
}

# trust allows the commands of the folder's .ralph/config, as it is now, then starts.
trust() {
	local out
	need_ralph_watch || return
	settings
	out="$(cd "$dir" && "$RALPH_WATCH" trust . 2>&1 </dev/null)" || {
		say "$(last_line "$out")"
		return
	}
	start
}

start() {
	local out
	need_ralph_watch || return
	settings
	if out="$(cd "$dir" && "$RALPH_WATCH" "${RUN_ARGS[@]}" 2>&1 </dev/null)"; then
		out="$(printf '%s\n' "$out" | grep -m1 '^\[ralph\]')"
		say "${out#\[ralph\] }"
	else
		say "$(last_line "$out")"
	fi
}

# init writes ralph-watch's prompt template to the prompt file, never over one.
init() {
	local out
	need_ralph_watch || return
	settings
	if out="$(mkdir -p "$(dirname "$prompt")" && set -C && "$RALPH_WATCH" template 2>&1 >"$prompt")"; then
		say "wrote $prompt: edit it, then press the loop key again"
	else
		say "cannot write $prompt: $(last_line "$out")"
	fi
}

case "$action" in
ask) ask ;;
start) start ;;
init) init ;;
trust) trust ;;
esac
exit 0
