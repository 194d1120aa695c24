#!/usr/bin/env bash
# The popup's note key: note.sh NAME CLIENT BUFFER gives the loop NAME the
# note its tmux prompt left in paste buffer BUFFER, for its next iteration.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

RALPH_CLIENT="$2"
need_ralph_watch || exit 0
text="$(tmux show-buffer -b "$3" 2>/dev/null)"
tmux delete-buffer -b "$3" 2>/dev/null
if [ -z "${text//[[:space:]]/}" ]; then
	say "no note for $1"
	exit 0
fi
say "$(last_line "$(printf '%s\n' "$text" | "$RALPH_WATCH" note "$1" - 2>&1)")"
