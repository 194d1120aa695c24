package iteration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Tunables of typing that are not flags (yet).
const (
	pasteLandWait = 2 * time.Second
	pasteTries    = 3
	settleDelay   = 250 * time.Millisecond
	submitWait    = 1500 * time.Millisecond
	enterTries    = 3
	// ReadyPoll is how often a wait for the agent looks at its pane.
	ReadyPoll = 100 * time.Millisecond
	lookPoll  = 50 * time.Millisecond // how often a wait for a change looks
	// serverGoneWait is how long a killed server may take to stop answering.
	serverGoneWait = 200 * time.Millisecond
)

// ErrInterrupted: the context ended while typing.
var ErrInterrupted = errors.New("interrupted")

// AgentView is what the typist learns from the watch of the agent.
type AgentView interface {
	Take()                      // reads the agent's new output
	Exited() bool               // the agent exited
	Output() (n int64, ok bool) // bytes of output so far; ok is false without an output stream
	Hooked(name string) bool    // the agent's hook reported name (agent.HookPromptSubmit, …)
}

// Step is something the typist saw, reported as it goes.
type Step int

// The steps a Type reports.
const (
	PasteChecked      Step = iota // a paste did not show; the detail says what comes next
	Pasted                        // the paste showed in the pane
	PasteSent                     // tmux took a paste: the agent has the text, shown or not
	ProbeSubmitted                // an Enter pressed to see whether the agent had the text sent it
	SubmittedByHook               // the Enter took: the agent's hook said so
	SubmittedByScreen             // the Enter took: the screen said so
)

// Typist types text into one pane the way a person would: a bracketed
// paste, checked to have landed, then Enter until the submit takes.
type Typist struct {
	Tmux   tmux.Client
	Pane   string
	Name   string // the loop's name, for the paste buffer's
	Clock  clock.Clock
	Agent  *agent.Profile // what its screen shows once the text went; nil: nothing known
	Lines  int            // how many of the screen's last lines are looked at
	View   AgentView      // nil: no output is watched
	Warnf  func(format string, args ...any)
	Report func(s Step, detail string) // nil: nobody listens
}

// Send types a message into a pane mid-iteration, the way the prompt is
// delivered: a bracketed paste, then Enter until the submit takes.
func Send(ctx context.Context, client tmux.Client, pane, name, message string, warnings io.Writer) error {
	if _, err := client.Pane(pane); err != nil {
		return err
	}
	t := &Typist{Tmux: client, Pane: pane, Name: name, Clock: clock.Real{},
		Warnf: func(format string, args ...any) {
			fmt.Fprintf(warnings, "ralph-watch: warning: %s\n", fmt.Sprintf(format, args...))
		}}
	err := t.Type(ctx, message)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrInterrupted):
		return ctx.Err()
	case tmux.NoServer(err):
		return errors.New("tmux server is gone")
	case errors.Is(err, tmux.ErrPaneDead):
		return fmt.Errorf("the agent in pane %s has exited; nothing more was sent", pane)
	case errors.Is(err, tmux.ErrNoPane):
		<-t.Clock.After(serverGoneWait) // a server shutting down drops its panes first: ask again
	}
	if _, perr := client.Pane(pane); perr != nil && tmux.NoServer(perr) {
		return errors.New("tmux server is gone")
	}
	return fmt.Errorf("pane %s is gone", pane)
}

// Type pastes text as a bracketed paste, byte for byte, checks it landed
// (pasting again only on evidence it was dropped, see nextAfterPaste),
// waits a moment, and presses Enter until the submit takes. It returns
// ErrInterrupted when ctx ends, or tmux's error.
func (t *Typist) Type(ctx context.Context, text string) error {
	if text != "" {
		sent, err := t.paste(ctx, text)
		if err != nil || sent {
			return err
		}
		if !clock.Sleep(ctx, t.Clock, settleDelay) {
			return ErrInterrupted
		}
	}
	for try := 1; try <= enterTries && !t.exited(); try++ {
		moved, err := t.after(ctx, submitWait, true, func() error {
			return t.Tmux.SendKeys(t.Pane, "Enter")
		})
		if err != nil {
			return err
		}
		if moved && t.submitted(ctx) {
			t.report(map[bool]Step{true: SubmittedByHook, false: SubmittedByScreen}[t.hooked(agent.HookPromptSubmit)], "")
			break
		}
	}
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	return nil
}

// paste delivers text once; sent reports that an Enter pressed to see
// whether the agent had it also submitted it.
func (t *Typist) paste(ctx context.Context, text string) (sent bool, err error) {
	if !t.startedReading(ctx, text) {
		return false, ErrInterrupted
	}
	buffer := fmt.Sprintf("ralph-%s-%s", t.Name, bufferNonce())
	seen := pasteSeen{}
	waitUntil := t.Clock.Now().Add(pasteQueueWait)
	pasteText := func() error {
		err := t.Tmux.Paste(t.Pane, buffer, []byte(text))
		if err == nil {
			t.report(PasteSent, "")
		}
		return err
	}
	act := pasteText
	for {
		if act != nil {
			seen.Pastes++
			moved, err := t.after(ctx, pasteLandWait, true, act)
			if err != nil {
				return false, err
			}
			seen.Shown, act = moved, nil
		}
		if t.exited() || ctx.Err() != nil {
			return false, nil
		}
		seen.Queued = -1
		if pane, err := t.Tmux.Pane(t.Pane); err == nil {
			seen.Queued = ttyQueued(pane.PID)
		}
		next := nextAfterPaste(seen)
		if !seen.Shown {
			t.report(PasteChecked, next.String())
		}
		switch next {
		case pasteLanded:
			if seen.Shown || seen.ProbeShown {
				t.report(Pasted, "")
			} else {
				t.Warnf("the text did not show in the pane after %d pastes; pressing Enter anyway", seen.Pastes)
			}
			return false, nil
		case pasteSubmitted:
			t.report(ProbeSubmitted, "")
			return true, nil
		case pasteWait:
			if !t.Clock.Now().Before(waitUntil) {
				return false, nil // it is there to be read: Enter follows it
			}
			moved, err := t.after(ctx, 200*time.Millisecond, true, func() error { return nil })
			if err != nil {
				return false, err
			}
			seen.Shown = moved
		case pasteProbe:
			if !clock.Sleep(ctx, t.Clock, settleDelay) {
				return false, ErrInterrupted
			}
			// The screen alone: an agent redrawing an empty input line writes bytes and shows nothing new.
			moved, err := t.after(ctx, submitWait, false, func() error { return t.Tmux.SendKeys(t.Pane, "Enter") })
			if err != nil {
				return false, err
			}
			seen.Probed, seen.ProbeShown = true, moved
			seen.ProbeSent = moved && t.submitted(ctx)
		case pasteAgain:
			t.Warnf("the agent showed nothing of the text nor of an Enter; pasting it again")
			seen.Probed, seen.ProbeShown, seen.ProbeSent = false, false, false
			act = pasteText
		}
	}
}

// startedReading waits, a bounded while, for an agent that has not yet
// started to read keys before a multi-line text goes in (see tooEarly);
// false if interrupted.
func (t *Typist) startedReading(ctx context.Context, text string) bool {
	deadline := t.Clock.Now().Add(pasteStartWait)
	for {
		t.take()
		pane, err := t.Tmux.Pane(t.Pane)
		if err != nil || pane.Dead || !tooEarly(text, ttyCanonical(pane.PID)) || !t.Clock.Now().Before(deadline) {
			return true
		}
		if !clock.Sleep(ctx, t.Clock, ReadyPoll) {
			return false
		}
	}
}

// submitted reports whether the Enter that moved the screen sent the text:
// the agent's prompt-submit hook says so at once. Gemini CLI takes an Enter
// that comes soon after a paste as a new line in its input box: with a
// profile that knows the agent's empty input box, only a screen showing it
// (or the agent busy, or asking) says the text went.
func (t *Typist) submitted(ctx context.Context) bool {
	if t.hooked(agent.HookPromptSubmit) {
		return true
	}
	p := t.Agent
	if p == nil || !p.Knows() || p.Ready == nil {
		return true
	}
	deadline := t.Clock.Now().Add(submitWait)
	for {
		if t.hooked(agent.HookPromptSubmit) {
			return true
		}
		screen, err := t.capture()
		if err != nil {
			return true // the caller finds out what happened
		}
		lines := agent.ScreenLines(screen, t.Lines)
		if st, _ := p.Classify(lines); st != agent.StateUnknown || p.Ready.MatchString(strings.Join(lines, "\n")) {
			return true
		}
		if !t.Clock.Now().Before(deadline) || !clock.Sleep(ctx, t.Clock, 100*time.Millisecond) {
			return false
		}
	}
}

// after runs act and reports whether the pane showed any change within
// wait: any output (when output counts) or a different screen.
func (t *Typist) after(ctx context.Context, wait time.Duration, output bool, act func() error) (bool, error) {
	before, streamed := t.output()
	screen, err := t.capture()
	if err != nil {
		return false, err
	}
	hash := agent.ScreenHash(screen, 0)
	if err := act(); err != nil {
		return false, err
	}
	deadline := t.Clock.Now().Add(wait)
	for t.Clock.Now().Before(deadline) {
		if !clock.Sleep(ctx, t.Clock, lookPoll) {
			return false, nil
		}
		t.take()
		if now, _ := t.output(); output && streamed && now > before {
			return true, nil
		}
		if screen, err := t.capture(); err == nil && agent.ScreenHash(screen, 0) != hash {
			return true, nil
		}
	}
	return false, nil
}

// capture asks for the last lines with wrapped lines joined, so a client
// attaching at another width does not look like activity.
func (t *Typist) capture() (string, error) {
	return t.Tmux.Capture(tmux.CaptureRequest{Pane: t.Pane, Start: -t.Lines, Join: true})
}

func (t *Typist) take() {
	if t.View != nil {
		t.View.Take()
	}
}

func (t *Typist) exited() bool { return t.View != nil && t.View.Exited() }

func (t *Typist) output() (int64, bool) {
	if t.View == nil {
		return 0, false
	}
	return t.View.Output()
}

func (t *Typist) hooked(name string) bool { return t.View != nil && t.View.Hooked(name) }

func (t *Typist) report(s Step, detail string) {
	if t.Report != nil {
		t.Report(s, detail)
	}
}

// bufferNonce keeps two pastes' tmux buffers apart.
func bufferNonce() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

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
