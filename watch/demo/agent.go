package demo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// rawMode puts In in raw mode when it is a terminal; term_linux.go installs the real one.
var rawMode = func(f *os.File) (restore func(), err error) { return func() {}, nil }

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
	promptMark = "❯ "
	maxShown   = 60 // runes of input shown on the prompt line
)

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

type chunk struct {
	data []byte
	at   time.Time
	err  error
}

type escState int

const (
	escNone escState = iota
	escStart
	escCSI
	escSS3
)

// feed results
const (
	fedMore = iota
	fedSubmit
	fedInterrupt
)

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

func (a *Agent) expand(s string) string {
	return strings.ReplaceAll(s, "{{iteration}}", a.getenv("RALPH_ITERATION"))
}

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
		a.Out.Write(buf)
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

// startReader reads In in the background, stamping each chunk with its arrival time.
func (a *Agent) startReader() {
	a.chunks = make(chan chunk, 1024)
	go func() {
		for {
			buf := make([]byte, 4096)
			n, err := a.In.Read(buf)
			if n > 0 {
				a.chunks <- chunk{data: buf[:n], at: time.Now()}
			}
			if err != nil {
				a.chunks <- chunk{err: err}
				return
			}
		}
	}()
}

// read collects keyboard input until a non-empty submit.
func (a *Agent) read(s *Step) (int, bool) {
	if !a.promptShown {
		a.drawInput()
	}
	for {
		if len(a.pending) == 0 {
			c := <-a.chunks
			if c.err != nil {
				a.chunks <- c
				if c.err == io.EOF {
					c.err = errors.New("input closed")
				}
				return a.fail(s, c.err)
			}
			if c.at.Before(a.dropUntil) {
				continue
			}
			a.pending = c.data
		}
		switch a.feed() {
		case fedSubmit:
			a.last = a.input
			a.input = nil
			a.write("\r\x1b[2K")
			a.promptShown = false
			return 0, false
		case fedInterrupt:
			a.write("\r\x1b[2K")
			return 130, true
		}
		a.drawInput()
	}
}

// feed consumes pending bytes until they run out or the input is submitted or interrupted.
func (a *Agent) feed() int {
	for len(a.pending) > 0 {
		b := a.pending[0]
		a.pending = a.pending[1:]
		if a.inPaste {
			a.input = append(a.input, b)
			if bytes.HasSuffix(a.input[a.pasteAt:], []byte(pasteEnd)) {
				a.input = a.input[:len(a.input)-len(pasteEnd)]
				a.inPaste = false
			}
			continue
		}
		switch a.esc {
		case escStart:
			switch b {
			case '[':
				a.esc, a.csi = escCSI, a.csi[:0]
			case 'O':
				a.esc = escSS3
			case 0x1b:
			default:
				a.esc = escNone
			}
			continue
		case escCSI:
			a.csi = append(a.csi, b)
			if b >= 0x40 && b <= 0x7e {
				a.esc = escNone
				if "\x1b["+string(a.csi) == pasteStart {
					a.inPaste, a.pasteAt = true, len(a.input)
					a.pastes++
				}
			}
			continue
		case escSS3:
			a.esc = escNone
			continue
		}
		switch {
		case b == 0x1b:
			a.esc = escStart
		case b == '\r' || b == '\n':
			if len(a.input) > 0 {
				return fedSubmit
			}
		case b == 0x7f || b == 0x08:
			if len(a.input) > 0 {
				_, size := utf8.DecodeLastRune(a.input)
				a.input = a.input[:len(a.input)-size]
			}
		case b == 0x15:
			a.input = a.input[:0]
		case b == 0x03:
			if len(a.input) == 0 {
				return fedInterrupt
			}
			a.input = a.input[:0]
		case b == '\t' || b >= 0x20 && b != 0x7f:
			a.input = append(a.input, b)
		}
	}
	return fedMore
}

// drawInput redraws the prompt line with the current input.
func (a *Agent) drawInput() {
	if a.noEcho {
		a.promptShown = true
		return
	}
	text := string(a.input)
	if a.collapse && strings.Count(text, "\n") > 0 && !a.inPaste {
		a.write(fmt.Sprintf("\r\x1b[2K%s[Pasted text #%d +%d lines]", promptMark, a.pastes, strings.Count(text, "\n")))
		a.promptShown = true
		return
	}
	first, rest, multi := strings.Cut(text, "\n")
	shown := []rune(sanitize(first))
	if len(shown) > maxShown {
		shown = append(shown[:maxShown-1], '…')
	}
	line := "\r\x1b[2K" + promptMark + string(shown)
	if multi {
		line += fmt.Sprintf(" [+%d lines]", strings.Count(rest, "\n")+1)
	}
	a.write(line)
	a.promptShown = true
}

// sanitize replaces control characters so the prompt line stays one line.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// echo prints the last prompt as a transcript entry.
func (a *Agent) echo() {
	lines := strings.Split(string(a.last), "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	b.WriteString("\n")
	for i, l := range lines {
		if i == 0 {
			b.WriteString("> ")
		} else {
			b.WriteString("  ")
		}
		b.WriteString(l)
		b.WriteString("\n")
	}
	a.write(b.String())
}

var spinnerFrames = []rune("·✢✳✶✻✽")

func (a *Agent) spinner(d time.Duration) {
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		elapsed := time.Since(start)
		if elapsed > d {
			elapsed = d
		}
		a.write(fmt.Sprintf("\r\x1b[2K%c Working… (%.1fs · esc to interrupt)", spinnerFrames[i%len(spinnerFrames)], elapsed.Seconds()))
		if elapsed >= d {
			break
		}
		select {
		case <-tick.C:
		case <-time.After(d - elapsed):
		}
	}
	a.write(fmt.Sprintf("\r\x1b[2K✻ Worked for %.1fs\n", d.Seconds()))
}

// flood prints n bytes of 80-byte filler lines.
func (a *Agent) flood(n int) {
	line := strings.Repeat("x", 79) + "\n"
	block := []byte(strings.Repeat(line, 819))
	for n > 0 {
		k := min(n, len(block))
		chunk := block[:k]
		if k < len(block) && k%len(line) != 0 {
			chunk = append(block[:k-1:k-1], '\n')
		}
		a.Out.Write(chunk)
		n -= k
	}
}

// runHooks runs the hooks for event of the settings file the agent was
// started with (--settings), as Claude Code does: each command by sh, the
// event's JSON on stdin ({"hook_event_name":EVENT} merged with fields).
func (a *Agent) runHooks(event, fields string) error {
	path := a.getenv("FAKEAGENT_SETTINGS")
	if path == "" {
		return errors.New("no --settings file")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		return err
	}
	input := map[string]any{}
	if fields != "" {
		if err := json.Unmarshal([]byte(fields), &input); err != nil {
			return fmt.Errorf("hook %s input: %v", event, err)
		}
	}
	input["hook_event_name"] = event
	stdin, _ := json.Marshal(input)
	for _, m := range settings.Hooks[event] {
		for _, h := range m.Hooks {
			cmd := exec.Command("sh", "-c", h.Command)
			cmd.Stdin = bytes.NewReader(stdin)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s hook: %v: %s", event, err, out)
			}
		}
	}
	return nil
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
