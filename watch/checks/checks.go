package checks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Check is a guardrail command run after every iteration, with an optional
// hint that goes into the next prompt when it fails.
type Check struct {
	Command string
	Hint    string
}

// Exit codes given to checks that did not exit on their own.
const (
	checkTimedOut = 124 // as timeout(1) reports it
	checkNotRun   = 127 // sh could not be started
)

// Truncated marks check output whose beginning was cut.
const Truncated = "... [truncated]"

// killWait bounds how long a timed-out command's output pipes are waited for.
const killWait = 2 * time.Second

// CheckRun is one check's result in one iteration.
type CheckRun struct {
	Check
	Code     int
	TimedOut bool
	Duration time.Duration
	Log      string // the full output, in the loop's state folder
	Tail     string // the end of the output, at most the output limit, for the prompt
}

// Passed reports whether the check exited 0 in time.
func (r CheckRun) Passed() bool { return r.Code == 0 && !r.TimedOut }

// CheckEnv is the environment checks and on-* commands run with.
type CheckEnv struct {
	Dir     string   // where they run: the loop's working directory
	Env     []string // added to the watcher's own environment
	Timeout time.Duration
	Clock   clock.Clock // measures how long each check took; nil: the wall clock
}

// Run runs command with sh -c in env.Dir, its combined output going to out,
// bounded by env.Timeout; the whole process group is killed when it runs over.
func (env CheckEnv) Run(ctx context.Context, command string, out io.Writer) (code int, timedOut bool) {
	if env.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, env.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = env.Dir
	cmd.Env = append(os.Environ(), env.Env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = killWait
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return checkTimedOut, true
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, false
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode(), false
	case errors.As(err, &exit):
		return 128 + int(exit.Sys().(syscall.WaitStatus).Signal()), false
	}
	fmt.Fprintf(out, "ralph-watch: cannot run check: %v\n", err)
	return checkNotRun, false
}

// RunChecks runs the checks one after another, each one's output saved as
// dir/<iteration>-<slug>.log, and keeps the last maxChars characters of each.
func RunChecks(ctx context.Context, env CheckEnv, checks []Check, iteration int, dir string, maxChars int) []CheckRun {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		dir = os.TempDir()
	}
	runs := make([]CheckRun, 0, len(checks))
	slugs := map[string]int{}
	for _, c := range checks {
		slug := Slug(c.Command)
		if slugs[slug]++; slugs[slug] > 1 {
			slug += "-" + strconv.Itoa(slugs[slug])
		}
		r := CheckRun{Check: c, Log: filepath.Join(dir, fmt.Sprintf("%d-%s.log", iteration, slug))}
		tail := &tailWriter{max: 4*maxChars + 4}
		var out io.Writer = tail
		f, err := os.OpenFile(r.Log, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err == nil {
			out = io.MultiWriter(f, tail)
		}
		clk := env.Clock
		if clk == nil {
			clk = clock.Real{}
		}
		start := clk.Now()
		r.Code, r.TimedOut = env.Run(ctx, c.Command, out)
		r.Duration = clock.Since(clk, start)
		if r.TimedOut {
			fmt.Fprintf(out, "\n[ralph] check timed out after %s\n", env.Timeout)
		}
		if f != nil {
			f.Close()
		}
		r.Tail = TailText(tail.buf, tail.cut, maxChars)
		runs = append(runs, r)
		if ctx.Err() != nil {
			break
		}
	}
	return runs
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	max int
	buf []byte
	cut bool
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
		w.cut = true
	}
	return len(p), nil
}

// TailText makes check output fit for a prompt: escape sequences and control
// characters removed, then only the last maxChars characters kept (the end
// is where test runners summarise), marked as truncated only when cut. cut
// says the output had already lost its beginning.
func TailText(out []byte, cut bool, maxChars int) string {
	if cut {
		for len(out) > 0 && !utf8.RuneStart(out[0]) {
			out = out[1:] // a rune split by the cut
		}
	}
	var n agent.Normalizer
	text, _ := n.Write(out)
	text = bytes.Map(func(r rune) rune {
		if r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
			return -1
		}
		return r
	}, text)
	s := strings.TrimRight(string(text), "\n")
	if maxChars >= 0 && utf8.RuneCountInString(s) > maxChars {
		cut = true
		runes := []rune(s)
		s = string(runes[len(runes)-maxChars:])
	}
	if cut {
		return Truncated + "\n" + s
	}
	return s
}

var slugUnsafe = regexp.MustCompile(`[^a-z0-9]+`)

// Slug names a check's log file after its command.
func Slug(command string) string {
	s := strings.Trim(slugUnsafe.ReplaceAllString(strings.ToLower(command), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		s = "check"
	}
	return s
}

// Feedback is what the next prompt is told about the failed checks, one
// block each, separated by a blank line; "" when all passed.
func Feedback(runs []CheckRun) string {
	var blocks []string
	for _, r := range runs {
		if r.Passed() {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Check \"%s\" failed with exit code %d.", r.Command, r.Code)
		if r.TimedOut {
			b.WriteString(" (It timed out.)")
		}
		b.WriteString("\n")
		if r.Hint != "" {
			fmt.Fprintf(&b, "Hint: %s\n", r.Hint)
		}
		fmt.Fprintf(&b, "Output file: %s\n", r.Log)
		b.WriteString(r.Tail)
		blocks = append(blocks, strings.TrimRight(b.String(), "\n"))
	}
	return strings.Join(blocks, "\n\n")
}

// CheckSummary says how many checks passed: "2 of 3 checks passed".
func CheckSummary(runs []CheckRun) string {
	passed := 0
	for _, r := range runs {
		if r.Passed() {
			passed++
		}
	}
	return fmt.Sprintf("%d of %d checks passed", passed, len(runs))
}

// AllPassed reports whether every check passed (true for none).
func AllPassed(runs []CheckRun) bool {
	for _, r := range runs {
		if !r.Passed() {
			return false
		}
	}
	return true
}

// CheckRecords turns an iteration's check runs into their record in state.json.
func CheckRecords(iteration int, runs []CheckRun) state.Checks {
	rec := state.Checks{Iteration: iteration, Results: []state.CheckResult{}}
	for _, r := range runs {
		rec.Results = append(rec.Results, state.CheckResult{
			Command: r.Command, Hint: r.Hint, ExitCode: r.Code, Passed: r.Passed(),
			TimedOut: r.TimedOut, Duration: int(r.Duration / time.Second), Log: r.Log,
		})
	}
	return rec
}
