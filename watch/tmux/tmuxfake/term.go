package tmuxfake

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Term is a fake pane as its program sees it: a screen to write on, the
// pane's pipe, and its exit. Its methods are for a Program's hooks (or
// Client.Act), which run with the client locked.
type Term struct {
	Argv  []string // the program's arguments (with the prompt last in arg mode)
	Dir   string
	Env   []string // NAME=value, from the respawn
	Stdin string   // the prompt file's text in stdin and arg modes

	height  int
	history []string
	screen  []string // the visible lines; the cursor ends the last one
	program *Program
	nonce   string // the loop's wrapper: an exit writes its marker
	dead    bool
	code    int
	signal  int
	pipe    *os.File
	starts  int // programs started in it
}

// Write shows text on the screen ("\n" starts a line, "\r" is ignored)
// and sends it down the pipe.
func (t *Term) Write(text string) {
	if t.dead {
		return
	}
	if len(t.screen) == 0 {
		t.screen = []string{""}
	}
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		if i > 0 {
			t.screen = append(t.screen, "")
		}
		t.screen[len(t.screen)-1] += line
	}
	for len(t.screen) > t.height { // scrolled off: into the history
		t.history, t.screen = append(t.history, t.screen[0]), t.screen[1:]
	}
	t.send(text)
}

// Raw sends bytes down the pipe that draw nothing, e.g. "\033[?2004h"
// (bracketed paste on).
func (t *Term) Raw(seq string) {
	if !t.dead {
		t.send(seq)
	}
}

// Clear erases the visible screen, as a full-screen program does to draw
// it afresh; the history stays.
func (t *Term) Clear() { t.screen = nil }

// Exit ends the program with code; the loop's wrapper writes its exit marker.
func (t *Term) Exit(code int) { t.end(code, 0) }

// Kill ends the program by signal sig.
func (t *Term) Kill(sig int) { t.end(128+sig, sig) }

func (t *Term) end(code, sig int) {
	if t.dead {
		return
	}
	if t.nonce != "" {
		t.send(fmt.Sprintf("\033]7777;ralph-exit;%s;%d\007", t.nonce, code))
	}
	t.dead, t.code, t.signal = true, code, sig
}

// Dead reports whether the program has ended.
func (t *Term) Dead() bool { return t.dead }

// Starts counts the programs started in the pane: a scenario's later act
// tells its own program from one that replaced it (the Term is the pane's).
func (t *Term) Starts() int { return t.starts }

// respawn clears the screen and starts afresh (the program is set after).
func (t *Term) respawn(req tmux.RespawnRequest) {
	if req.ClearHistory {
		t.history = nil
	}
	t.screen = nil
	t.dead, t.code, t.signal = false, 0, 0
	t.starts++
	if req.Dir != "" {
		t.Dir = req.Dir
	}
	t.Env = req.Env
}

// capture is the screen from start (negative: that many history lines
// too; positive: from that row of the screen).
func (t *Term) capture(start int) string {
	var lines []string
	if start < 0 {
		lines = t.history[max(0, len(t.history)+start):]
	}
	lines = append(append([]string(nil), lines...), t.screen[min(max(start, 0), len(t.screen)):]...)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func (t *Term) cursor() tmux.Cursor {
	if len(t.screen) == 0 {
		return tmux.Cursor{Visible: true}
	}
	last := t.screen[len(t.screen)-1]
	return tmux.Cursor{X: len([]rune(last)), Y: len(t.screen) - 1, Visible: true}
}

// openPipe opens the FIFO (or file) the pane's output goes to.
func (t *Term) openPipe(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("tmuxfake: pipe-pane: %w", err)
	}
	t.pipe = f
	return nil
}

func (t *Term) closePipe() {
	if t.pipe != nil {
		t.pipe.Close()
		t.pipe = nil
	}
}

// pipeDrainWait bounds the wait for a reader to take what was written.
const pipeDrainWait = 2 * time.Second

// send writes to the pipe, then waits until its reader has taken it all,
// so what a call made the program write has been read when the call
// returns, as nearly as a pipe lets one know.
func (t *Term) send(text string) {
	if t.pipe == nil || text == "" {
		return
	}
	if _, err := t.pipe.WriteString(text); err != nil {
		t.closePipe()
		return
	}
	for deadline := time.Now().Add(pipeDrainWait); unread(t.pipe) > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Microsecond)
	}
}

// unread is how many bytes wait in the pipe; 0 when it cannot tell (a file).
func unread(f *os.File) int {
	var n int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
		return 0
	}
	return int(n)
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}
