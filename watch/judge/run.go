package judge

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// Prompt modes of the judge: how its input reaches it.
const (
	ModeStdin = "stdin" // written to its standard input
	ModeArg   = "arg"   // given as its last argument
)

// DefaultTimeout is how long a judge may run (--judge-timeout).
const DefaultTimeout = 5 * time.Minute

// maxOut is how much of a judge's output is kept: its end, where the
// verdict stands.
const maxOut = 1 << 20

// maxArg bounds an input given as an argument: Linux takes no single
// argument over 128 KiB.
const maxArg = 120_000

// killWait bounds how long a killed judge's output pipes are waited for.
const killWait = 2 * time.Second

// Judge is how the judge runs: Command with sh -c in Dir, Env added to the
// watcher's environment (Unset's names taken out of it), its input by
// Mode, stopped after Timeout.
type Judge struct {
	Command string
	Mode    string // ModeStdin ("": the same) or ModeArg
	Dir     string
	Env     []string
	Unset   []string      // names removed from the watcher's environment (doctor: whatever could send an agent elsewhere)
	Timeout time.Duration // 0: DefaultTimeout
}

// Answer is what one run of the judge gave.
type Answer struct {
	Out      string // its standard output (the last maxOut bytes)
	Err      string // the end of its standard error, for the person
	Code     int    // its exit status; 128+N when killed by signal N
	TimedOut bool
	Canceled bool // the loop's context ended first
}

// Ask runs the judge on input and waits for its answer, killing its whole
// process group when it runs over the timeout or ctx ends.
func (j Judge) Ask(ctx context.Context, input string) Answer {
	timeout := j.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := []string{"-c", j.Command}
	if j.Mode == ModeArg {
		if len(input) > maxArg {
			return Answer{Code: 126, Err: "the judge's input is too long for an argument: use --judge-prompt-mode stdin"}
		}
		args = []string{"-c", j.Command + ` "$@"`, "ralph-judge", input}
	}
	cmd := exec.CommandContext(runCtx, "/bin/sh", args...)
	cmd.Dir = j.Dir
	cmd.Env = append(environ(j.Unset), j.Env...)
	if j.Mode != ModeArg {
		cmd.Stdin = strings.NewReader(input)
	}
	out, errOut := &tail{max: maxOut}, &tail{max: 4096}
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = killWait
	err := cmd.Run()
	a := Answer{Out: string(out.buf), Err: strings.TrimSpace(string(errOut.buf))}
	switch {
	case ctx.Err() != nil:
		a.Canceled, a.Code = true, -1
	case runCtx.Err() == context.DeadlineExceeded:
		a.TimedOut, a.Code = true, 124
	}
	var exit *exec.ExitError
	switch {
	case a.Canceled || a.TimedOut:
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		a.Code = exit.ExitCode()
	case errors.As(err, &exit):
		a.Code = 128 + int(exit.Sys().(syscall.WaitStatus).Signal())
	default:
		a.Code, a.Err = 127, "cannot run the judge: "+err.Error()
	}
	return a
}

// Spent is what the run spent where its output tells it (a one-shot
// agent's JSON form the loop knows: Claude Code's --output-format json),
// priced; any other output's use is unreported.
func (a Answer) Spent(prices receipt.Prices) receipt.JudgeSpend {
	_, spent := receipt.JudgeCall(a.Out, prices)
	return spent
}

// environ is the watcher's environment without the names unset.
func environ(unset []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(unset, name) {
			out = append(out, kv)
		}
	}
	return out
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
}

func (w *tail) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}
