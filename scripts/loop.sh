#!/usr/bin/env bash
# The loop key: loop.sh PANE CLIENT shows what a loop of PANE would run, and
# with which settings, and asks to start it; "start [-- WORD...]" starts it
# (the words: a command line read from the pane, else @ralph-command runs),
# "trust [-- WORD...]" trusts the folder's .ralph/config as it is now and
# starts, "init" writes a starting prompt.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"
# shellcheck source=scripts/foreground.sh
source "$SCRIPTS_DIR/foreground.sh"

pane="$1"
RALPH_CLIENT="$2"
action="${3:-ask}"
ARGV=("${@:4}")
[ "${ARGV[0]}" = -- ] && ARGV=("${ARGV[@]:1}")

# The run flags a person may set as @ralph-FLAG, one to one, with the
# plugin's defaults; the rest come from ralph-watch's own defaults and the
# project's .ralph/config.
FLAGS=(max-iterations done-pattern check-done-continuous prompt-mode agent inactivity-timeout iteration-timeout max-time ready-pattern end-command max-tokens max-cost)
declare -A DEFAULTS=([max-iterations]=20 [done-pattern]=RALPH_DONE [check-done-continuous]=on)

# flag_value FLAG VALUE: VALUE as ralph-watch takes it (tmux's on/off for a
# switch becomes true/false).
flag_value() {
	case "$1=$2" in
	check-done-continuous=on | check-done-continuous=yes | check-done-continuous=1) printf true ;;
	check-done-continuous=off | check-done-continuous=no | check-done-continuous=0) printf false ;;
	*) printf '%s' "$2" ;;
	esac
}

# setting LABEL VALUE: one line of the settings a menu shows.
setting() {
	printf '%-21s %s' "$1" "$2"
}

# settings: the pane's folder, prompt file, @ralph-command, and ralph-watch
# run's arguments but the command (RUN_ARGS) and their description (SHOWN).
settings() {
	local flag value
	read_tmux_options @ralph-prompt-file @ralph-command @ralph-finish-on-done "${FLAGS[@]/#/@ralph-}"
	# A dead pane has no folder: its session's then.
	dir="$(tmux display-message -p -t "$pane" '#{?pane_current_path,#{pane_current_path},#{session_path}}')"
	prompt="$(get_tmux_option @ralph-prompt-file PROMPT.md)"
	case "$prompt" in
	\~/*) prompt="$HOME/${prompt#\~/}" ;;
	/*) ;;
	*) prompt="$dir/$prompt" ;;
	esac
	command="$(get_tmux_option @ralph-command claude)"
	RUN_ARGS=(run --detach --target "$pane" --socket-path "$(tmux display-message -p '#{socket_path}')" --prompt-file "$prompt")
	SHOWN=("$(setting folder "$dir")" "$(setting prompt-file "$prompt")")
	for flag in "${FLAGS[@]}"; do
		value="$(get_tmux_option "@ralph-$flag" "${DEFAULTS[$flag]}")"
		[ -n "$value" ] || continue
		RUN_ARGS+=("--$flag=$(flag_value "$flag" "$value")")
		SHOWN+=("$(setting "$flag" "$value")")
	done
	finish_on_done
	plan_settings
}

# config_values KEY: the values ralph-watch run takes for flag KEY, as it
# reads them when the loop key gives none: its RALPH_ variable, else each
# KEY (or RALPH_KEY) line of the folder's .ralph/config, one a line.
config_values() {
	local env="RALPH_${1^^}" line name value
	env="${env//-/_}"
	if [ -n "${!env+set}" ]; then
		printf '%s\n' "${!env}"
		return
	fi
	[ -f "$dir/.ralph/config" ] || return
	while IFS= read -r line || [ -n "$line" ]; do
		line="${line#"${line%%[![:space:]]*}"}"
		case "$line" in "" | "#"*) continue ;; esac
		name="${line%%[[:space:]]*}"
		[ "$name" = "$1" ] || [ "$name" = "$env" ] || continue
		value="${line:${#name}}"
		value="${value#"${value%%[![:space:]]*}"}"
		value="${value%% #*}"
		printf '%s\n' "${value:-true}"
	done <"$dir/.ralph/config"
}

# plan_settings: what the loop takes from RALPH_* and .ralph/config beyond
# the @ralph- options, shown as it will work: the plan (TASKS), its own
# worktree, the checks; and the plan init --tasks writes, when none is
# given, offered (PLAN_OFFER) rather than passed over.
plan_settings() {
	local check worktree
	TASKS="$(config_values tasks | tail -n 1)"
	PLAN_OFFER=""
	if [ -n "$TASKS" ]; then
		SHOWN+=("$(setting tasks "$TASKS (one task an iteration)")")
	elif [ -f "$dir/IMPLEMENTATION_PLAN.md" ]; then
		PLAN_OFFER=IMPLEMENTATION_PLAN.md
	fi
	worktree="$(config_values worktree | tail -n 1)"
	case "$worktree" in
	true | 1 | yes | on) SHOWN+=("$(setting worktree "its own git worktree, branch ralph/NAME")") ;;
	esac
	while IFS= read -r check; do
		[ -n "$check" ] && SHOWN+=("$(setting check "$(hide_line "$check")")")
	done < <(config_values check)
}

# finish_on_done: with @ralph-finish-on-done merge, rebase or pr, a loop
# that ends done lands its work by itself: its on-done hook runs
# ralph-watch finish (hooks are told the loop's name in RALPH_NAME).
finish_on_done() {
	local mode
	mode="$(get_tmux_option @ralph-finish-on-done "")"
	case "$mode" in
	"") return ;;
	merge | rebase | pr) ;;
	*)
		say "@ralph-finish-on-done '$mode' is not merge, rebase or pr; not set"
		return
		;;
	esac
	RUN_ARGS+=("--on-done=$(sh_words "$RALPH_WATCH" finish) \"\$RALPH_NAME\" --$mode")
	SHOWN+=("$(setting finish-on-done "$mode")")
}

ask() {
	local line untrusted
	read_loop "$pane"
	if [ -n "$loop_live" ]; then
		looping_menu
		return
	fi
	need_ralph_watch || return
	settings
	MENU=(display-menu -c "$RALPH_CLIENT" -t "$pane" -x C -y C -T "#[align=centre] ralph: loop pane $pane " --)
	if [ ! -f "$prompt" ]; then
		item "no prompt file: $prompt"
		MENU+=("") # a separator
		choice "$SCRIPTS_DIR/loop.sh" "Write a starting prompt there" i init
		cancel
		tmux "${MENU[@]}"
		return
	fi
	for line in "${SHOWN[@]}"; do item "$line"; done
	START=start
	untrusted="$(cd "$dir" && "$RALPH_WATCH" trust --check . 2>/dev/null </dev/null)"
	if [ -n "$untrusted" ]; then # the project's .ralph/config names commands not trusted yet
		item "$dir/.ralph/config would run:"
		while IFS= read -r line; do item "  $line"; done <<<"$untrusted"
		START=trust
	fi
	start_lines
	cancel
	tmux "${MENU[@]}"
}

# looping_menu: the loop key on a pane that loops: what its loop is doing
# and its actions, in a menu that stays until a line is chosen or it is
# closed, and holds every key meanwhile (none reaches the agent).
looping_menu() {
	local toggle="Pause the loop (the agent runs on)"
	[ "$loop_state" = paused ] && toggle="Resume the loop"
	MENU=(display-menu -c "$RALPH_CLIENT" -t "$pane" -x C -y C -T "#[align=centre] ralph: $loop_name " --)
	item "$loop_name is looping this pane ($loop_state)"
	item "$(tmux display-message -p -t "$pane" '#{@ralph-status}' 2>/dev/null)"
	[ -n "$loop_reason" ] && item "$loop_reason"
	MENU+=("") # a separator
	choice "$SCRIPTS_DIR/pause.sh" "$toggle" p
	choice "$SCRIPTS_DIR/stop.sh" "Stop it…" s
	choice "$SCRIPTS_DIR/loop.sh" "A note for its next iteration…" n note
	choice "$SCRIPTS_DIR/popup.sh" "Every loop and this one's log" w
	cancel
	tmux "${MENU[@]}"
}

# note: a small popup that asks for a note for the pane's loop (note.sh).
note() {
	require_live_loop "$pane" "no loop in pane $pane" "has ended" || return
	tmux display-popup -c "$RALPH_CLIENT" -t "$pane" -E -w 80% -h 5 -T " ralph: a note for $loop_name " \
		"$(sh_words "$SCRIPTS_DIR/note.sh" "$loop_name" "$RALPH_CLIENT")"
}

# start_lines: the menu's lines that say what the loop will run and start
# it: what runs in the pane when its command line can be read, else
# @ralph-command. More ways to start go here, each a choice line.
start_lines() {
	foreground "$pane"
	case "$FG_KIND" in
	program)
		item "$(setting "running here" "$(sh_words "${FG_ARGV[@]}")")"
		if [ "${#FG_SECRETS[@]}" -gt 0 ]; then
			item "$(setting "secrets" "$(secret_names) (carried in memory, never written)")"
		fi
		item "$(setting @ralph-command "$(hide_line "$command")")"
		item "the pane is respawned: this program and any half-typed input end"
		MENU+=("") # a separator
		start_choice "Loop what runs here" y -- "${FG_ARGV[@]}"
		start_choice "Loop @ralph-command instead" c
		plan_choice "Loop what runs here on the plan $PLAN_OFFER" -- "${FG_ARGV[@]}"
		;;
	lost)
		item "$(setting "running here" "$FG_NAME: its command line cannot be read")"
		item "$(setting "" "(it rewrote its process title)")"
		item "$(setting @ralph-command "$(hide_line "$command")")"
		item "the pane is respawned: $FG_NAME and any half-typed input end"
		MENU+=("") # a separator
		start_choice "Loop @ralph-command instead" y
		plan_choice "Loop @ralph-command on the plan $PLAN_OFFER"
		;;
	*) # a shell at its prompt, or nothing to read
		item "$(setting @ralph-command "$(hide_line "$command")")"
		item "the pane is respawned: what runs in it and any half-typed input end"
		MENU+=("") # a separator
		start_choice "Start the loop" y
		plan_choice "Loop on the plan $PLAN_OFFER"
		;;
	esac
}

# start_choice LABEL KEY [-- WORD...]: a line that starts the loop, or, when
# the folder's .ralph/config is not trusted (START=trust), trusts it first.
start_choice() {
	local label="$1" key="$2"
	shift 2
	if [ "$START" = trust ]; then
		label="Trust and ${label,}"
		[ "$key" = y ] && key=t
	fi
	choice "$SCRIPTS_DIR/loop.sh" "$label" "$key" "$START" "$@"
}

# plan_choice LABEL [-- WORD...]: with a plan offered (PLAN_OFFER), a line
# that starts the loop as the line before it does, working through the plan.
plan_choice() {
	[ -n "$PLAN_OFFER" ] || return 0
	local label="$1"
	shift
	[ "$START" = trust ] && label="Trust and ${label,}"
	choice "$SCRIPTS_DIR/loop.sh" "$label" p "$START-plan" "$@"
}

# secret_names: the names of FG_SECRETS (NAME=value), for the menu.
secret_names() {
	local kv names=()
	for kv in "${FG_SECRETS[@]}"; do names+=("${kv%%=*}"); done
	printf '%s' "${names[*]}"
}

# still_there: the pane the menu was opened on still exists (it may have
# been closed while the menu was open); else say so.
still_there() {
	[ "$(tmux display-message -p -t "$pane" '#{pane_id}' 2>/dev/null)" = "$pane" ] && return
	say "pane $pane was closed: nothing to loop"
	return 1
}

start() {
	local out
	still_there || return
	need_ralph_watch || return
	settings
	FG_SECRETS=()
	if [ "${#ARGV[@]}" -gt 0 ]; then
		RUN_ARGS+=(-- "${ARGV[@]}") # argv words, as read from /proc
		foreground "$pane"         # the values of the secrets ARGV hides (NAME=…), read again: never a word
	else
		RUN_ARGS+=(-- "$command") # a shell command line
	fi
	[ -n "$ON_PLAN" ] && [ -n "$PLAN_OFFER" ] && RUN_ARGS=("${RUN_ARGS[@]:0:2}" --tasks "$dir/$PLAN_OFFER" "${RUN_ARGS[@]:2}")
	# shellcheck disable=SC2163 # each word is NAME=value: exported, never an argument
	if out="$(cd "$dir" && for kv in "${FG_SECRETS[@]}"; do export "$kv"; done && "$RALPH_WATCH" "${RUN_ARGS[@]}" 2>&1 </dev/null)"; then
		out="$(printf '%s\n' "$out" | grep -m1 '^\[ralph\]')"
		say "${out#\[ralph\] }"
	else
		refused "$out"
	fi
}

# refused OUT: tell why ralph-watch run did not start the loop. A refusal
# that the person can lift (an untrusted .ralph/config) gets a menu here,
# built as ask builds one, whose choice starts again with what lifts it.
refused() {
	say "$(last_line "$1")"
}

# trust allows the commands of the folder's .ralph/config, as it is now, then starts.
trust() {
	local out
	still_there || return
	need_ralph_watch || return
	settings
	out="$(cd "$dir" && "$RALPH_WATCH" trust . 2>&1 </dev/null)" || {
		say "$(last_line "$out")"
		return
	}
	start
}

# init writes ralph-watch's prompt template to the prompt file, never over one.
init() {
	local out
	still_there || return
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
trust) trust ;;
start-plan) ON_PLAN=1 start ;;
trust-plan) ON_PLAN=1 trust ;;
init) init ;;
note) note ;;
esac
exit 0
