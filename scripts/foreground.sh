# shellcheck shell=bash
# What runs in a pane's foreground, read from /proc: a shell at its prompt,
# a program with its exact command line, or a program whose command line
# cannot be recovered (it rewrote its process title, as node programs may).

# shellcheck disable=SC2034 # the FG_ variables are the answer, read by loop.sh
# foreground PANE: set FG_KIND to shell, program (FG_ARGV is its exact
# command line), lost (FG_NAME runs; how it was started is unknown) or none
# (nothing to read: a dead pane, no /proc).
foreground() {
	local pane_pid pid
	FG_KIND=none FG_ARGV=() FG_NAME="" FG_SECRETS=()
	pane_pid="$(tmux display-message -p -t "$1" '#{?pane_dead,,#{pane_pid}}')"
	[ -n "$pane_pid" ] && [ -r "/proc/$pane_pid/stat" ] || return 0
	pid="$(foreground_pid "$pane_pid")"
	[ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 0
	mapfile -d '' -t FG_ARGV <"/proc/$pid/cmdline" 2>/dev/null
	[ "${#FG_ARGV[@]}" -gt 0 ] || return 0
	unwrap_shell "$pid"
	pid="$UNWRAPPED"
	FROM_LOOP=""
	unwrap_loop "$pid"
	FG_NAME="${FG_ARGV[0]##*/}"
	[ -n "$FG_NAME" ] || FG_NAME="$(<"/proc/$pid/comm")"
	if [ -n "$FROM_LOOP" ]; then
		FG_KIND=program # the loop's own words for it, exactly as it ran them
	elif is_interactive_shell && ! runs_script "$pid"; then
		FG_KIND=shell
	elif [ -n "$(resolve_program "$pid" "${FG_ARGV[0]}")" ] &&
		[ "$(resolve_program "$pid" "${FG_ARGV[0]}")" = "$(readlink -f "/proc/$pid/exe")" ]; then
		FG_KIND=program
		name_script "$pid"
		carry_env "$pid" "$pane_pid"
	else
		FG_KIND=lost
	fi
}

# carry_env PID PANE_PID: what differs in the program's environment from
# the pane's shell's (a wrapper that set HOME, a base URL or a key, then
# exec'd the agent) goes into FG_ARGV as `env NAME=value …`, so the loop
# starts it as it was started. A secret goes in as NAME=… (ralph-watch
# hides it so everywhere) and NAME=value into FG_SECRETS, for the start to
# hand ralph-watch in its environment: never a word, never on disk. The
# shell's own variables (PS1, PROMPT_COMMAND, SHLVL, …) are never carried.
carry_env() {
	local -A shell=()
	local kv name carried=()
	[ "$1" != "$2" ] && [ -r "/proc/$1/environ" ] && [ -r "/proc/$2/environ" ] || return 0
	while IFS= read -r -d '' kv; do shell["${kv%%=*}"]="$kv"; done <"/proc/$2/environ"
	while IFS= read -r -d '' kv; do
		name="${kv%%=*}"
		[ "${shell[$name]:-}" = "$kv" ] && continue
		shell_only "$name" && continue
		if secret_name "$name"; then
			FG_SECRETS+=("$kv")
			carried+=("$name=…")
		else
			carried+=("$kv")
		fi
	done <"/proc/$1/environ"
	[ "${#carried[@]}" -gt 0 ] && FG_ARGV=(env "${carried[@]}" "${FG_ARGV[@]}")
	return 0
}

# shell_only NAME: a variable of the shell the program was started from,
# or of the pane, not of the program: never carried. PATH too: a shell sets
# its own at start; the loop keeps the one it started with.
shell_only() {
	case "$1" in
	_ | SHLVL | PWD | OLDPWD | LINES | COLUMNS | PATH | TMUX_PANE | RALPH_* | \
		PS[0-9] | PROMPT | PROMPT_COMMAND | PROMPT_DIRTRIM | RPROMPT | RPS[0-9] | \
		HIST* | SAVEHIST | BASH_ENV | BASH_FUNC_* | ENV | SHELLOPTS | BASHOPTS | IFS | ZDOTDIR | STARSHIP_* | \
		__* | VTE_VERSION | PIPESTATUS) return 0 ;;
	esac
	return 1
}

# hide_line LINE: a shell line as shown, each secret its leading NAME=value
# words set (after an optional env) written NAME=… (ralph-watch hides it so).
hide_line() {
	local rest="$1" out="" re="^([[:space:]]*)([A-Za-z_][A-Za-z0-9_]*)=('[^']*'|\"[^\"]*\"|[^[:space:]]*)(.*)$"
	[[ "$rest" =~ ^([[:space:]]*env[[:space:]]+)(.*)$ ]] && out="${BASH_REMATCH[1]}" rest="${BASH_REMATCH[2]}"
	while [[ "$rest" =~ $re ]]; do
		if secret_name "${BASH_REMATCH[2]}"; then
			out+="${BASH_REMATCH[1]}${BASH_REMATCH[2]}=…"
		else
			out+="${BASH_REMATCH[1]}${BASH_REMATCH[2]}=${BASH_REMATCH[3]}"
		fi
		rest="${BASH_REMATCH[4]}"
	done
	printf '%s%s' "$out" "$rest"
}

# secret_name NAME: NAME says it holds a secret, by ralph-watch's rule
# (agent.SecretName): KEY, TOKEN, SECRET, PASSW or CREDENTIAL in it, or
# AUTH, AUTHORIZATION or COOKIE as one of its words.
secret_name() {
	local upper="${1^^}" part
	case "$upper" in *KEY* | *TOKEN* | *SECRET* | *PASSW* | *CREDENTIAL*) return 0 ;; esac
	for part in ${upper//_/ }; do
		case "$part" in AUTH | AUTHORIZATION | COOKIE) return 0 ;; esac
	done
	return 1
}

# foreground_pid PANE_PID: the leader of the terminal's foreground process
# group (field 8 of stat, tpgid), or any process of that group once the
# leader has exited, or PANE_PID itself.
foreground_pid() {
	local stat fields tpgid p
	stat="$(<"/proc/$1/stat")"
	read -ra fields <<<"${stat##*) }" # the name in (…) may hold spaces
	tpgid="${fields[5]}"
	if [ -z "$tpgid" ] || [ "$tpgid" -le 0 ]; then
		printf '%s' "$1"
		return
	fi
	[ -r "/proc/$tpgid/cmdline" ] && { printf '%s' "$tpgid"; return; }
	for p in /proc/[0-9]*/stat; do
		stat="$(<"$p")" 2>/dev/null || continue
		read -ra fields <<<"${stat##*) }"
		[ "${fields[2]}" = "$tpgid" ] && { p="${p#/proc/}"; printf '%s' "${p%/stat}"; return; }
	done
	printf '%s' "$1"
}

# unwrap_shell PID: when PID is `sh -c SCRIPT NAME WORD…` whose one child
# in its process group runs the shell's own words ("$@": a loop's wrapper
# around its agent, left running when the loop stopped), that child is what
# runs: FG_ARGV becomes those words, without what SCRIPT added (a prompt).
# UNWRAPPED is the process read last.
unwrap_shell() {
	local pid="$1" pgrp child kids children=() argv=() k n i same stat fields
	UNWRAPPED="$pid"
	[ "${#FG_ARGV[@]}" -ge 5 ] && [ "${FG_ARGV[1]}" = -c ] || return 0
	grep -qxF -- "${FG_ARGV[0]##*/}" < <(sed 's|.*/||' /etc/shells 2>/dev/null; printf 'sh\nbash\ndash\n') || return 0
	stat="$(<"/proc/$pid/stat")"
	read -ra fields <<<"${stat##*) }"
	pgrp="${fields[2]}"
	kids="$(cat "/proc/$pid/task"/*/children 2>/dev/null)"
	for child in $kids; do
		stat="$(<"/proc/$child/stat")" 2>/dev/null || continue
		read -ra fields <<<"${stat##*) }"
		[ "${fields[2]}" = "$pgrp" ] && children+=("$child")
	done
	[ "${#children[@]}" -eq 1 ] || return 0
	mapfile -d '' -t argv <"/proc/${children[0]}/cmdline" 2>/dev/null
	[ "${#argv[@]}" -gt 0 ] || return 0
	# The shell's own words after NAME that the child's command line starts with.
	for ((k = 4; k < ${#FG_ARGV[@]}; k++)); do
		n=$((${#FG_ARGV[@]} - k))
		[ "$n" -le "${#argv[@]}" ] || continue
		same=1
		for ((i = 0; i < n; i++)); do
			[ "${FG_ARGV[k + i]}" = "${argv[i]}" ] || { same=""; break; }
		done
		if [ -n "$same" ]; then
			FG_ARGV=("${argv[@]:0:n}")
			UNWRAPPED="${children[0]}"
			return
		fi
	done
}

# unwrap_loop PID: when PID was started by a loop's wrapper (`sh -c SCRIPT
# ralph NONCE [PROMPT-FILE] WORD…`, whose job control made PID the
# foreground itself), FG_ARGV becomes the WORDs: what the loop ran, without
# what SCRIPT added (the prompt, in arg mode). SCRIPT takes the prompt file
# as a second word to shift in arg and stdin modes.
unwrap_loop() {
	local stat fields wrapper=() k=5 added at count
	stat="$(<"/proc/$1/stat")" 2>/dev/null || return 0
	read -ra fields <<<"${stat##*) }"
	mapfile -d '' -t wrapper <"/proc/${fields[1]}/cmdline" 2>/dev/null
	[ "${#wrapper[@]}" -ge 6 ] && [ "${wrapper[1]}" = -c ] && [ "${wrapper[3]}" = ralph ] || return 0
	case "${wrapper[2]}" in *"shift 2"*) k=6 ;; esac
	[ "${#wrapper[@]}" -gt "$k" ] || return 0
	FG_ARGV=("${wrapper[@]:k}")
	FROM_LOOP=1
	# Leave out the words the loop added for its hooks (RALPH_ADDED_ARGS=AT:COUNT).
	added="$(tr '\0' '\n' <"/proc/${fields[1]}/environ" 2>/dev/null | sed -n 's/^RALPH_ADDED_ARGS=//p')"
	if [[ "$added" =~ ^([0-9]+):([0-9]+)$ ]]; then
		at="${BASH_REMATCH[1]}" count="${BASH_REMATCH[2]}"
		FG_ARGV=("${FG_ARGV[@]:0:at}" "${FG_ARGV[@]:at+count}")
	fi
	unhide "$1" "$(tr '\0' '\n' <"/proc/${fields[1]}/environ" 2>/dev/null | sed -n 's/^RALPH_HIDDEN_ARGS=//p')"
}

# unhide PID HIDDEN: puts back into FG_ARGV the NAME=… words the loop ran
# without (HIDDEN: "AT:NAME …", RALPH_HIDDEN_ARGS), their values, read from
# the agent's environment, into FG_SECRETS.
unhide() {
	local item at name kv
	for item in $2; do
		at="${item%%:*}" name="${item#*:}"
		[[ "$at" =~ ^[0-9]+$ ]] && [ "$at" -le "${#FG_ARGV[@]}" ] || return 0
		FG_ARGV=("${FG_ARGV[@]:0:at}" "$name=…" "${FG_ARGV[@]:at}")
		while IFS= read -r -d '' kv; do
			[ "${kv%%=*}" = "$name" ] && FG_SECRETS+=("$kv")
		done <"/proc/$1/environ"
	done
}

# is_interactive_shell: FG_ARGV is a shell (one /etc/shells or the
# default-shell names) without a command to run (-c).
is_interactive_shell() {
	local base="${FG_ARGV[0]##*/}" word
	base="${base#-}" # a login shell's argv[0] is -bash
	for word in "${FG_ARGV[@]:1}"; do
		[ "$word" = -c ] && return 1
	done
	{ cat /etc/shells 2>/dev/null; tmux show-options -gv default-shell; printf '%s\n' "$SHELL"; } |
		sed 's|.*/||' | grep -qxF -- "$base"
}

# runs_script PID: the shell in FG_ARGV was started on a script file (its
# first word that is no option names a file, from the process's folder):
# `bash FILE ARGS`, as the kernel starts a #!/bin/bash wrapper.
runs_script() {
	local word
	for word in "${FG_ARGV[@]:1}"; do
		case "$word" in
		-*) continue ;;
		/*) [ -f "$word" ] ;;
		*) [ -f "/proc/$1/cwd/$word" ] ;;
		esac
		return
	done
	return 1
}

# resolve_program PID WORD: the file WORD named when process PID started
# (a path from its folder, else a name on its PATH), symlinks resolved.
resolve_program() {
	local dir path
	case "$2" in
	"") return ;;
	*/*) (cd "/proc/$1/cwd" 2>/dev/null && readlink -f -- "$2") ;;
	*)
		path="$(tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | sed -n 's/^PATH=//p')"
		local IFS=:
		for dir in ${path:-/usr/local/bin:/usr/bin:/bin}; do
			[ -n "$dir" ] && [ -f "$dir/$2" ] && [ -x "$dir/$2" ] && { readlink -f -- "$dir/$2"; return; }
		done
		;;
	esac
}

# name_script PID: an interpreter running a script that starts itself with
# that interpreter (node …/codex.js, its #! naming node) is written as the
# script, by its name on the PATH when it has one (…/.bin/codex): the same
# file run the same way, and the agent's name shows.
name_script() {
	local script dir name path shebang
	[ "${#FG_ARGV[@]}" -ge 2 ] && [[ "${FG_ARGV[1]}" != -* ]] || return 0
	script="$(cd "/proc/$1/cwd" 2>/dev/null && readlink -f -- "${FG_ARGV[1]}")" || return 0
	[ -f "$script" ] && [ -x "$script" ] || return 0
	read -r shebang <"$script"
	[[ "$shebang" == "#!"* ]] || return 0
	read -ra shebang <<<"${shebang#\#!}"
	[ "${shebang[0]##*/}" = env ] && shebang=("${shebang[@]:1}")
	[ "${shebang[0]##*/}" = "${FG_ARGV[0]##*/}" ] || return 0
	path="$(tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | sed -n 's/^PATH=//p')"
	local IFS=:
	for dir in $path; do
		# The PATH name may lack the script's extension (codex for codex.js).
		for name in "${FG_ARGV[1]##*/}" "${script##*/}" "$(basename "${script%.*}")"; do
			if [ -n "$dir" ] && [ -x "$dir/$name" ] && [ "$(readlink -f -- "$dir/$name")" = "$script" ]; then
				FG_ARGV=("$dir/$name" "${FG_ARGV[@]:2}")
				return
			fi
		done
	done
	FG_ARGV=("$script" "${FG_ARGV[@]:2}")
}
