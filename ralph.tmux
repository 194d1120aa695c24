#!/usr/bin/env bash
# ralph.tmux: the tpm entry point. Binds the keys, puts the loop counters in
# the status line, and finds (or builds) ralph-watch. It runs only tmux
# commands and is safe to run again: every step replaces what it set before.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/helpers.sh"

# Every looped pane of the server, drawn by tmux from the pane options the
# watcher keeps: nothing runs on a status redraw.
STATUS_SEGMENT='#{S:#{W:#{P:#{?@ralph-status,#{E:@ralph-status-format},}}}}'
# A mark for a window with a pane that is looping now.
WINDOW_SEGMENT='#{?#{P:#{?#{||:#{==:#{@ralph-state},running},#{||:#{==:#{@ralph-state},backoff},#{||:#{==:#{@ralph-state},needs-input},#{==:#{@ralph-state},waiting}}}},1,}},#{E:@ralph-window-format},}'

# The status line reads these when it draws, so they must exist as options.
set_status_defaults() {
	set_default @ralph-style-running 'fg=green'
	set_default @ralph-style-paused 'fg=yellow'
	set_default @ralph-style-failed 'fg=red'
	set_default @ralph-style-done 'fg=blue'
	set_default @ralph-status-format '#{?#{||:#{==:#{@ralph-state},paused},#{||:#{==:#{@ralph-state},waiting},#{==:#{@ralph-state},needs-input}}},#[#{@ralph-style-paused}],#{?#{==:#{@ralph-state},failed},#[#{@ralph-style-failed}],#{?#{||:#{==:#{@ralph-state},running},#{==:#{@ralph-state},backoff}},#[#{@ralph-style-running}],#[#{@ralph-style-done}]}}}#{@ralph-status}#[default] '
	set_default @ralph-window-format '⟳ '
}

# interpolate: replace #{ralph_status} and #{ralph_window} in the status
# options (and those named in @ralph-interpolate) with their formats.
interpolate() {
	local option value new
	for option in status-left status-right window-status-format window-status-current-format $(get_tmux_option @ralph-interpolate ""); do
		value="$(tmux show-options -gqv "$option")" || continue
		new="${value//"#{ralph_status}"/"$STATUS_SEGMENT"}"
		new="${new//"#{ralph_window}"/"$WINDOW_SEGMENT"}"
		if [ "$new" != "$value" ]; then
			tmux set-option -gq "$option" "$(tmux_arg "$new")" || say "cannot set $option"
		fi
	done
}

# bind OPTION DEFAULT SCRIPT: bind the key named by OPTION (or DEFAULT; "none"
# binds nothing) to run SCRIPT in the background for the pane and client.
bind() {
	local key
	key="$(get_tmux_option "$1" "$2")"
	[ "$key" = none ] && return
	tmux bind-key "$key" run-shell -b "$(run_shell_command "$SCRIPTS_DIR/$3") #{q:pane_id} #{q:client_name}" ||
		say "cannot bind $1 '$key'"
}

bind_keys() {
	bind @ralph-loop-key A loop.sh
	bind @ralph-pause-key Z pause.sh
	bind @ralph-stop-key Q stop.sh
	bind @ralph-popup-key W popup.sh
}

# release VERSION: the release a git describe names, without commits since
# and a dirty mark (v1.2.0-3-gabc1234-dirty is v1.2.0).
release() {
	local v="${1%-dirty}"
	[[ "$v" =~ ^(.*)-[0-9]+-g[0-9a-f]+$ ]] && v="${BASH_REMATCH[1]}"
	printf '%s' "$v"
}

# check_binary: find ralph-watch, build it when it is nowhere, and rebuild or
# report one whose release differs from the plugin's (only when both are
# known: a tagged checkout and a binary built with a version).
check_binary() {
	local bin plugin binary
	bin="$(ralph_watch_bin)"
	if [ -z "$bin" ]; then
		tmux run-shell -b "$(run_shell_command "$SCRIPTS_DIR/build.sh")"
		return
	fi
	[ -e "$PLUGIN_DIR/.git" ] || return 0
	plugin="$(git -C "$PLUGIN_DIR" describe --tags --dirty 2>/dev/null)" || return 0
	binary="$("$bin" version 2>/dev/null)" || return 0
	binary="${binary#ralph-watch }"
	case "$binary" in "" | devel) return 0 ;; esac
	[ "$(release "$binary")" = "$(release "$plugin")" ] && return 0
	if [ "$bin" = "$PLUGIN_DIR/bin/ralph-watch" ] && command -v go >/dev/null 2>&1; then
		say "bin/ralph-watch is $binary, the plugin is $plugin: rebuilding"
		tmux run-shell -b "$(run_shell_command "$SCRIPTS_DIR/build.sh")"
	else
		say "ralph-watch $binary ($bin) does not match the plugin ($plugin): update one of them"
	fi
}

main() {
	# Popups and pane options came with tmux 3.2; probe rather than parse -V.
	if ! tmux list-commands display-popup >/dev/null 2>&1; then
		say "ralph.tmux needs tmux 3.2 or newer ($(tmux -V))"
		return
	fi
	set_status_defaults
	bind_keys
	interpolate
	check_binary
}

main
exit 0
