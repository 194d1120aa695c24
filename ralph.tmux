#!/usr/bin/env bash
# ralph.tmux: the tpm entry point. Binds the keys, puts the loop counters in
# the status line, and finds (or builds) ralph-watch. It runs only tmux
# commands and is safe to run again: every step replaces what it set before.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/helpers.sh"

# Every looped pane of the server, drawn by tmux from the pane options the
# watcher keeps: nothing runs on a status redraw. An ended loop leaves the
# line when its watcher removes them (after @ralph-ended-linger, or on clean).
# The loops that need the person come first, the ended ones last
# (@ralph-rank); each entry ends with ENTRY_END, which closes its style
# whatever @ralph-status-format ends with and marks where a whole entry ends.
ENTRY_END='#[norange default]'
ENTRY_END_RE='#\[norange default\]'
loops_ranked() {
	printf '#{S:#{W:#{P:#{?#{&&:#{@ralph-status},#{==:#{E:@ralph-rank},%s}},#{E:@ralph-status-format}%s,}}}}' "$1" "$ENTRY_END"
}
LOOPS="$(loops_ranked 0)$(loops_ranked 1)$(loops_ranked 2)"
# How many loops show: one x each.
LOOP_COUNT='#{n:#{S:#{W:#{P:#{?@ralph-status,x,}}}}}'
# A mark for a window with a pane whose loop lives.
WINDOW_SEGMENT='#{?#{P:#{?@ralph-live,1,}},#{E:@ralph-window-format},}'
# Cells all loops together may take in the status line (@ralph-status-width).
STATUS_WIDTH=60
# The global options a load reads, read ahead in one tmux call.
OPTIONS_READ=(@ralph-style-{running,starting,backoff,needs-input,waiting,paused,done,limit,stopped,failed,stale}
	@ralph-beat-timeout @ralph-stale-format @ralph-status-format @ralph-window-format @ralph-status-width
	@ralph-{loop,pause,stop,popup}-key @ralph-interpolate @ralph-restore @ralph-restore-ran @resurrect-restore-script-path
	status-left status-right status-left-length status-right-length window-status-format window-status-current-format)

# The status line reads these when it draws, so they must exist as options.
# A loop's style is @ralph-style-STATE, looked up by its state word: a new
# state needs no change here, only a style if it wants one.
set_status_defaults() {
	local style
	# Each reads on any bar: a running loop in the bar's own colours (bold),
	# the others in a colour pair of their own (tmux's default bar is green,
	# where fg=green vanishes).
	for style in running=bold starting=bold backoff=bold \
		needs-input=fg=black,bg=yellow,bold waiting=fg=black,bg=yellow paused=fg=black,bg=yellow \
		done=fg=white,bg=blue limit=fg=white,bg=blue stopped=fg=white,bg=blue failed=fg=white,bg=red,bold; do
		set_default "@ralph-style-${style%%=*}" "${style#*=}"
	done
	# Expands to #{@ralph-style-running} for a running loop; a second
	# expansion reads that option (tmux does not look up a name it built).
	# A live loop whose watcher died (kill -9) shows as stale: the watcher's
	# lifeline sets @ralph-beat (unix seconds) when it is gone (a watcher
	# whose server cannot hold one renews it every 2 s); T: expands %s, the time.
	set_default @ralph-style-stale fg=white,bg=red,bold
	set_default @ralph-beat-timeout 10
	queue_set @ralph-stale '#{?@ralph-beat,#{e|>:#{e|-|:%s,#{@ralph-beat}},#{@ralph-beat-timeout}},0}'
	set_default @ralph-stale-format '⚠ #{@ralph-iteration}#{?@ralph-max,/#{@ralph-max},}#{?@ralph-tasks, · #{@ralph-tasks},} no watcher'
	# Where a loop stands in the line: 0 it needs the person (a question, a
	# failure, its watcher gone: @ralph-attention is the watcher's word), 2
	# it has ended (a fan's window: once the fan no longer runs), 1 the rest.
	queue_set @ralph-rank '#{?#{||:#{T:@ralph-stale},#{@ralph-attention}},0,#{?#{||:#{@ralph-ended},#{&&:#{@ralph-fan},#{!=:#{@ralph-state},running}}},2,1}}'
	queue_set @ralph-style-of '##{@ralph-style-#{?#{T:@ralph-stale},stale,#{@ralph-state}}}'
	# Where a loop is: its window, and its session when it is not the
	# client's (its window 0 is not the one in sight) or when loops of more
	# than one session show (two windows 0 would read alike).
	queue_set @ralph-where '#{?#{||:#{&&:#{!=:#{client_session},},#{!=:#{session_name},#{client_session}}},#{e|>:#{n:#{S:#{?#{W:#{P:#{?@ralph-status,1,}}},1,}}},1}},#{session_name}:,}#{window_index}:'
	set_default @ralph-status-format '#[#{E:#{E:@ralph-style-of}}]#{E:@ralph-where}#{?#{T:@ralph-stale},#{E:@ralph-stale-format},#{=/24/…:@ralph-status}}#[default] '
	set_default @ralph-window-format '⟳ '
	set_default @ralph-status-width "$STATUS_WIDTH"
	set_queued
}

# status_width: @ralph-status-width, or the default when it is no number.
status_width() {
	local width
	width="$(get_tmux_option @ralph-status-width "$STATUS_WIDTH")"
	case "$width" in
	"" | *[!0-9]*)
		say "@ralph-status-width '$width' is not a number of cells; using $STATUS_WIDTH"
		width="$STATUS_WIDTH"
		;;
	esac
	printf '%s' "$width"
}

# status_segment: every loop, or as many whole ones as fit in
# @ralph-status-width cells with "+N" (how many more) after them: tmux cuts
# the list by cells, then the entry the cut fell in is dropped.
status_segment() {
	local width kept
	width="$(status_width)"
	[ "$width" -ge 5 ] || width=5
	kept="#{s/^(.*$ENTRY_END_RE).*\$/\\1/:#{=$((width - 4)):$LOOPS}}"
	printf '#{?#{e|<=:#{w:%s},%s},%s,%s#[default]+#{e|-:%s,%s} }' "$LOOPS" "$width" "$LOOPS" "$kept" "$LOOP_COUNT" "$(entries_in "$kept")"
}

# entries_in FORMAT: how many whole entries FORMAT holds (its ENTRY_ENDs).
entries_in() {
	printf '#{e|/:#{e|-:#{n:%s},#{n:#{s/%s//:%s}}},%s}' "$1" "$ENTRY_END_RE" "$1" "${#ENTRY_END}"
}

# fit_status OPTION VALUE: raise OPTION's -length (status-left or -right)
# when it is below what VALUE needs: the rest of the line as drawn now, plus
# the loops' @ralph-status-width. Never lowers it.
fit_status() {
	local rest have need
	case "$1" in status-left | status-right) ;; *) return ;; esac
	rest="$(tmux display-message -p -- "$(tmux_arg "${2//"#{ralph_status}"/}")" 2>/dev/null | sed 's/#\[[^]]*\]//g')"
	need=$((${#rest} + $(status_width)))
	have="$(tmux_option "$1-length")"
	if [ "${have:-0}" -lt "$need" ]; then
		tmux set-option -gq "$1-length" "$need" || say "cannot set $1-length"
	fi
}

# interpolate: replace #{ralph_status} and #{ralph_window} in the status
# options (and those named in @ralph-interpolate) with their formats.
interpolate() {
	local option value new
	for option in status-left status-right window-status-format window-status-current-format $(get_tmux_option @ralph-interpolate ""); do
		value="$(tmux_option "$option")" || continue
		new="${value//"#{ralph_status}"/"$(status_segment)"}"
		new="${new//"#{ralph_window}"/"$WINDOW_SEGMENT"}"
		if [ "$new" != "$value" ]; then
			[[ "$value" == *"#{ralph_status}"* ]] && fit_status "$option" "$value"
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

# resurrect_installed: tmux-resurrect loaded already, or sits beside this
# plugin where tpm puts plugins (it may load after this one).
resurrect_installed() {
	[ -n "$(tmux_option @resurrect-restore-script-path)" ] ||
		[ -e "$PLUGIN_DIR/../tmux-resurrect/resurrect.tmux" ]
}

# chain_hook OPTION COMMAND: add the shell line COMMAND to the one OPTION
# holds (tmux-resurrect evals it), after what is there, once.
chain_hook() {
	local have
	have="$(tmux show-options -gqv "$1")"
	case "$have" in
	*"$2"*) return ;;
	"") tmux set-option -gq "$1" "$(tmux_arg "$2")" ;;
	*) tmux set-option -gq "$1" "$(tmux_arg "$have; $2")" ;;
	esac
}

# restore_loops: with @ralph-restore on, re-arm the loops that were live
# when this server's last run ended: after tmux-resurrect's restore when it
# is installed, else at once, once per server (sourcing again re-arms nothing).
restore_loops() {
	[ "$(get_tmux_option @ralph-restore off)" = on ] || return 0
	local run
	run="$(run_shell_command "$SCRIPTS_DIR/restore.sh")"
	if resurrect_installed; then
		chain_hook @resurrect-hook-post-restore-all "tmux run-shell -b $(sh_quote "$run")"
		return
	fi
	[ -z "$(tmux_option @ralph-restore-ran)" ] || return 0
	tmux set-option -gq @ralph-restore-ran 1
	tmux run-shell -b "$run"
}

main() {
	# Popups and pane options came with tmux 3.2; probe rather than parse -V.
	if ! tmux list-commands display-popup >/dev/null 2>&1; then
		say "ralph.tmux needs tmux 3.2 or newer ($(tmux -V))"
		return
	fi
	read_tmux_options "${OPTIONS_READ[@]}"
	set_status_defaults
	bind_keys
	interpolate
	check_binary
	restore_loops
}

main
exit 0
