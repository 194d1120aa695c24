package tmux

import (
	"errors"
	"strings"
)

// ErrPaneDead: tmux refused a write because the pane's program had exited.
var ErrPaneDead = errors.New("the pane's program has exited")

// deadMark is what a refused write prints, so the caller can tell it from a write that went.
const deadMark = "ralph-watch: pane dead, write refused"

// IfAlive is the only form in which a write into a pane (paste-buffer,
// send-keys) is sent: tmux 3.2-3.3a segfault when one reaches a dead pane
// (remain-on-exit on), so the server checks #{pane_dead} and writes in the
// same command, with no moment between for the program to die in. When the
// pane is dead, orElse runs instead and the mark is printed.
func IfAlive(pane string, write []string, orElse ...[]string) []string {
	refused := append(append([][]string(nil), orElse...), []string{"display-message", "-p", deadMark})
	return []string{"if-shell", "-F", "-t", pane, "#{pane_dead}", commandList(refused...), commandList(write)}
}

// Guarded reports how IfAlive wrapped a write for pane: ok when argv is
// IfAlive's form for that pane, and the write it guards.
func Guarded(argv []string, pane string) (write string, ok bool) {
	if len(argv) == 7 && argv[0] == "if-shell" && argv[1] == "-F" && argv[2] == "-t" && argv[3] == pane && argv[4] == "#{pane_dead}" {
		return argv[6], true
	}
	return "", false
}

// PasteCommand pastes buffer into pane as a bracketed paste (-p) keeping LF
// (-r), deleting the buffer (-d) whether the paste went or was refused.
func PasteCommand(pane, buffer string) []string {
	return IfAlive(pane, []string{"paste-buffer", "-p", "-r", "-d", "-b", buffer, "-t", pane},
		[]string{"delete-buffer", "-b", buffer})
}

// SendKeysCommand sends key names to pane.
func SendKeysCommand(pane string, keys ...string) []string {
	return IfAlive(pane, append([]string{"send-keys", "-t", pane}, keys...))
}

// refused reports whether a guarded write's output says it was refused.
func refused(out string) bool { return strings.Contains(out, deadMark) }

// commandList joins commands into one tmux command string, each word in
// single quotes so tmux's parser takes it literally (no ~, $, # or ;).
func commandList(commands ...[]string) string {
	var b strings.Builder
	for i, words := range commands {
		if i > 0 {
			b.WriteString(" ; ")
		}
		for j, w := range words {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(quote(w))
		}
	}
	return b.String()
}

// quote puts w in single quotes for tmux's parser; a single quote inside
// is closed, double-quoted and reopened.
func quote(w string) string {
	return "'" + strings.ReplaceAll(w, "'", `'"'"'`) + "'"
}
