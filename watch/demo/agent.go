package demo

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// rawMode puts In in raw mode when it is a terminal; term_linux.go installs the real one.
var rawMode = func(f *os.File) (restore func(), err error) { return func() {}, nil }

// Agent runs a script against terminal-like input and output.
type Agent struct {
	In     io.Reader
	Out    io.Writer
	Getenv func(string) string // nil means os.Getenv

	restore     func()
	chunks      chan chunk
	pending     []byte
	dropUntil   time.Time
	input       []byte
	esc         escState
	csi         []byte
	inPaste     bool
	pasteAt     int // index in input where the current paste began
	promptShown bool
	noEcho      bool // input is read and never drawn
	collapse    bool // a multi-line paste is drawn as [Pasted text #N +M lines]
	pastes      int
	last        []byte // the last submitted prompt
	rng         *rand.Rand
}

// Run executes steps and returns the exit code; the terminal is restored before it returns.
func (a *Agent) Run(steps []Step) (exitCode int) {
	for i := range steps {
		if code, stop := a.step(&steps[i]); stop {
			return a.exit(code)
		}
	}
	return a.exit(0)
}

func (a *Agent) exit(code int) int {
	if a.restore != nil {
		a.restore()
		a.restore = nil
	}
	a.write("\x1b[?2004l")
	return code
}

func (a *Agent) getenv(key string) string {
	if a.Getenv == nil {
		return os.Getenv(key)
	}
	return a.Getenv(key)
}

func (a *Agent) iteration() int {
	n, err := strconv.Atoi(strings.TrimSpace(a.getenv("RALPH_ITERATION")))
	if err != nil {
		return -1
	}
	return n
}

// expand fills in {{iteration}}, and {{set:NAME}} with whether the
// environment sets NAME ("set" or "unset"; never its value: it may be a secret).
func (a *Agent) expand(s string) string {
	s = setRE.ReplaceAllStringFunc(s, func(m string) string {
		if a.getenv(setRE.FindStringSubmatch(m)[1]) != "" {
			return "set"
		}
		return "unset"
	})
	return strings.ReplaceAll(s, "{{iteration}}", a.getenv("RALPH_ITERATION"))
}

var setRE = regexp.MustCompile(`\{\{set:([A-Za-z_][A-Za-z0-9_]*)\}\}`)

func (a *Agent) write(s string) { io.WriteString(a.Out, s) }

func (a *Agent) fail(s *Step, err error) (int, bool) {
	a.write(fmt.Sprintf("\r\ndemo: line %d: %s: %v\r\n", s.Line, s.Name, err))
	return 1, true
}

// step runs one step; stop reports that the script ends with code.
func (a *Agent) step(s *Step) (code int, stop bool) {
	switch s.Name {
	case "print":
		a.write(a.expand(s.text) + "\n")
	case "write":
		a.write(a.expand(s.text))
	case "sleep":
		time.Sleep(s.dur)
	case "ready":
		a.write("\x1b[?2004h")
		if a.restore == nil {
			restore, err := a.makeRaw()
			if err != nil {
				return a.fail(s, err)
			}
			a.restore = restore
			a.startReader()
		}
		a.drawInput()
	case "read":
		if a.chunks == nil {
			return a.fail(s, errors.New("read before ready"))
		}
		return a.read(s)
	case "key": // a dialog's answer: one key, Enter or Esc or any
		if a.chunks == nil {
			return a.fail(s, errors.New("key before ready"))
		}
		return a.key(s)
	case "drop-input":
		a.dropUntil = time.Now().Add(s.dur)
	case "echo":
		a.echo()
	case "noecho":
		a.noEcho = true
	case "collapse":
		a.collapse = true
	case "nopaste":
		a.write("\x1b[?2004l")
	case "redraw":
		a.write("\x1b[2J\x1b[H")
		a.echo()
	case "save":
		if err := os.WriteFile(a.expand(s.Arg), a.last, 0o644); err != nil {
			return a.fail(s, err)
		}
	case "append":
		path, line, _ := strings.Cut(s.Arg, " ")
		line = strings.ReplaceAll(a.expand(line), "{{now}}", time.Now().UTC().Format(time.RFC3339Nano))
		if err := appendLine(a.expand(path), line); err != nil {
			return a.fail(s, err)
		}
	case "spinner":
		a.spinner(s.dur)
	case "flood":
		a.flood(s.n)
	case "garbage":
		if a.rng == nil {
			a.rng = rand.New(rand.NewSource(1))
		}
		buf := make([]byte, s.n)
		a.rng.Read(buf)
		_, _ = a.Out.Write(buf)
	case "ignore":
		signal.Ignore(s.sigs...)
	case "child":
		cmd := exec.Command("sh", "-c", `trap "" HUP TERM; sleep 1000`)
		if err := cmd.Start(); err != nil {
			return a.fail(s, err)
		}
		a.write(fmt.Sprintf("child pid %d\n", cmd.Process.Pid))
	case "stop-hook":
		if err := a.runHooks("Stop", ""); err != nil {
			return a.fail(s, err)
		}
	case "hook":
		event, _, _ := strings.Cut(s.Arg, " ")
		if err := a.runHooks(event, a.expand(s.text)); err != nil {
			return a.fail(s, err)
		}
	case "exit":
		return s.n, true
	case "quiet":
		for {
			time.Sleep(time.Hour)
		}
	case "alt":
		a.write("\x1b[?1049h")
	case "noalt":
		a.write("\x1b[?1049l")
	case "iter":
		if a.iteration() == s.n {
			return a.step(s.sub)
		}
	case "from":
		if a.iteration() >= s.n {
			return a.step(s.sub)
		}
	}
	return 0, false
}

func (a *Agent) makeRaw() (func(), error) {
	if f, ok := a.In.(*os.File); ok {
		return rawMode(f)
	}
	return func() {}, nil
}

// appendLine adds line and a newline to the file at path, made if missing.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
