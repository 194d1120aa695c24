package iteration

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// How Type decides whether a paste arrived: it pastes again only on
// positive evidence that the first was dropped, never because an agent
// that does not echo its input showed nothing.

// pasteQueueWait bounds the wait for an agent to read a paste from its
// terminal's input queue.
const pasteQueueWait = 10 * time.Second

// pasteSeen is what the loop knows after a paste.
type pasteSeen struct {
	Shown      bool // output or a screen change followed the paste
	Queued     int  // bytes still unread in the pane's terminal; -1 unknown
	Probed     bool // Enter was pressed to see what the agent makes of its input
	ProbeShown bool // the screen changed after that Enter
	ProbeSent  bool // and it shows the input went (the profile's empty input box, busy, asking)
	Pastes     int  // pastes so far
}

// pasteNext is what to do after a paste.
type pasteNext int

const (
	pasteLanded    pasteNext = iota // it arrived: press Enter
	pasteSubmitted                  // the probing Enter sent it: nothing more to do
	pasteWait                       // the agent has not read it yet: wait
	pasteProbe                      // read but not shown: press Enter, the agent's answer tells
	pasteAgain                      // dropped: paste again
)

func (n pasteNext) String() string {
	return [...]string{"landed", "submitted", "wait", "probe", "again"}[n]
}

// nextAfterPaste decides from what was seen. Shown: it landed. Still in the
// terminal's input queue: the agent will read it, wait. Read and not shown:
// an agent that does not echo, or one that dropped it; Enter tells them
// apart: a reading agent starts to work (the screen changes), a dropping
// one shows nothing. Only a ready agent that showed nothing of the paste
// and nothing of the Enter has dropped it, and even then pasteTries bound it.
func nextAfterPaste(s pasteSeen) pasteNext {
	switch {
	case s.Shown:
		return pasteLanded
	case s.Queued > 0:
		return pasteWait
	case !s.Probed:
		return pasteProbe
	case s.ProbeShown && s.ProbeSent:
		return pasteSubmitted
	case s.ProbeShown:
		return pasteLanded // the agent has the text; the Enter took as a new line: Enter again
	case s.Pastes >= pasteTries:
		return pasteLanded // no evidence left: press Enter as if it had landed
	}
	return pasteAgain
}

// pasteStartWait bounds the wait for an agent still starting (its terminal
// in line mode, bracketed paste off) before a multi-line text is pasted.
const pasteStartWait = 5 * time.Second

// tooEarly reports whether a paste of text now would reach a program that
// has not started to read keys: the terminal is still in the kernel's line
// mode, which splits text at each newline (even inside bracketed-paste
// marks: an agent may turn those on just before its raw mode). Only a
// multi-line text is hurt; canonical is -1 when it cannot be told.
func tooEarly(text string, canonical int) bool {
	return strings.Contains(text, "\n") && canonical == 1
}

// ttyCanonical tells whether the terminal of pid's standard input is in
// line (canonical) mode: 1 yes, 0 no (raw, as TUIs set it), -1 unknown.
func ttyCanonical(pid int) int {
	var t syscall.Termios
	if !stdinIoctl(pid, syscall.TCGETS, unsafe.Pointer(&t)) {
		return -1
	}
	if t.Lflag&syscall.ICANON != 0 {
		return 1
	}
	return 0
}

// ttyQueued is how many bytes wait unread in the input queue of pid's
// terminal (its standard input); -1 when it cannot be told. In canonical
// mode only whole lines count.
func ttyQueued(pid int) int {
	var n int32
	if !stdinIoctl(pid, syscall.TIOCINQ, unsafe.Pointer(&n)) {
		return -1
	}
	return int(n)
}

// stdinIoctl asks the terminal of pid's standard input for req into arg,
// reporting whether it answered; it never makes that terminal ours.
func stdinIoctl(pid int, req uintptr, arg unsafe.Pointer) bool {
	if pid <= 0 {
		return false
	}
	f, err := os.OpenFile("/proc/"+strconv.Itoa(pid)+"/fd/0", os.O_RDONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg))
	return errno == 0
}
