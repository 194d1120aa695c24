#!/usr/bin/env bash
# The note key of the loop key's menu: note.sh NAME CLIENT, run in a small
# popup, reads a note for the loop NAME's next iteration there and gives it
# to the loop as typed (read_note).

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

RALPH_CLIENT="$2"
need_ralph_watch || exit 0
say "$(read_note "$1")"
