package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// cli runs the built ralph-watch against a private server.
type cli struct {
	t   *testing.T
	srv *tmuxtest.Server
	bin string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	srv := tmuxtest.Start(t)
	if err := os.WriteFile(filepath.Join(srv.Dir, "PROMPT.md"), []byte("do the next task\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &cli{t: t, srv: srv, bin: tmuxtest.Build(t, "cmd/ralph-watch")}
}

func (c *cli) command(extraEnv []string, args ...string) *exec.Cmd {
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.srv.Dir
	cmd.Env = append(append([]string(nil), c.srv.Env...), extraEnv...)
	return cmd
}

// run runs ralph-watch to its end and returns exit code, stdout and stderr.
func (c *cli) run(extraEnv []string, args ...string) (int, string, string) {
	c.t.Helper()
	return c.runWithin(90*time.Second, extraEnv, args...)
}

// runWithin is run, failing the test if ralph-watch is still running after
// timeout. Then it is stopped as a person would (SIGTERM: doctor ends its
// private server and agents), killed only if that is not enough.
func (c *cli) runWithin(timeout time.Duration, extraEnv []string, args ...string) (int, string, string) {
	c.t.Helper()
	cmd := c.command(extraEnv, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	var waited error
	done := make(chan struct{})
	go func() { waited = cmd.Wait(); close(done) }()
	select {
	case <-done:
		var ee *exec.ExitError
		if waited != nil && !errors.As(waited, &ee) {
			c.t.Fatal(waited)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	case <-time.After(timeout):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		c.t.Fatalf("ralph-watch %v still running after %s; stdout:\n%s\nstderr:\n%s", args, timeout, stdout.String(), stderr.String())
	}
	return 0, "", ""
}

func (c *cli) state(name string) *state.State {
	c.t.Helper()
	data, err := os.ReadFile(filepath.Join(c.srv.Dir, "state", name, "state.json"))
	if err != nil {
		c.t.Fatal(err)
	}
	var st state.State
	if err := json.Unmarshal(data, &st); err != nil {
		c.t.Fatal(err)
	}
	return &st
}

// pane opens a window whose shell starts in dir and returns its pane id once
// tmux reports that folder (it reports none until the shell has started).
func (c *cli) pane(dir string) string {
	c.t.Helper()
	id := strings.TrimSpace(c.srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-c", dir, "-t", "main:"))
	tmuxtest.Eventually(c.t, 10*time.Second, "pane "+id+" to start in "+dir, func() bool {
		out, _ := c.srv.Tmux("display", "-p", "-t", id, "#{pane_current_path}")
		return strings.TrimSpace(out) == dir
	})
	return id
}

func (c *cli) panes() string {
	return c.srv.Must("list-panes", "-a", "-F", "#{pane_id} #{pane_pid} #{pane_dead}")
}

func TestRunOutsideTmuxLoopsANewWindowInSessionRalph(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, stdout, stderr := c.run(nil, "run", "-S", c.srv.Socket, "--name", "outside", "--prompt-mode", "arg",
		"--max-iterations", "1", "--", "sh", "-c", "echo hello from $RALPH_NAME")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if got := c.srv.Must("list-windows", "-t", "ralph", "-F", "#{window_name}"); !strings.Contains(got, "outside") {
		t.Errorf("session ralph has windows %q, want one named outside", got)
	}
	if !strings.Contains(stdout, "[ralph] outside: looping window ralph:outside (watch it with: tmux -S "+c.srv.Socket+" attach -t ralph)") ||
		!strings.Contains(stdout, "[ralph] outside: starting iteration 1/1") || !strings.Contains(stdout, "[ralph] outside: loop complete after 1 iterations") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestTmuxFlagIsANoOpWithANote(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, stderr := c.run(nil, "run", "--tmux", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--prompt-mode", "arg", "--max-iterations", "1", "--", "true")
	if code != 0 || !strings.Contains(stderr, "Note: --tmux does nothing: ralph loops always run in tmux") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestLimitReachedWithoutTheDoneSignalExits3(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, stdout, stderr := c.run(nil, "run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--prompt-mode", "arg",
		"--max-iterations", "2", "--restart-delay", "0", "--done-pattern", "NEVER_[0-9]", "--", "true")
	if code != 3 {
		t.Errorf("exit %d, want 3\n%s%s", code, stdout, stderr)
	}
}

func TestFlagsBeatEnvironmentWhichBeatsTheConfigFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if err := os.MkdirAll(filepath.Join(c.srv.Dir, ".ralph"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.srv.Dir, ".ralph", "config"), []byte("max-iterations 2\ninactivity-timeout 90\nprompt-mode arg\nrestart-delay 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "prec"}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want int
	}{
		{"config file", nil, nil, 2},
		{"environment", []string{"RALPH_MAX_ITERATIONS=3"}, nil, 3},
		{"flag", []string{"RALPH_MAX_ITERATIONS=3"}, []string{"--max-iterations", "1"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append(append([]string(nil), base...), tc.args...), "--", "true")
			if code, stdout, stderr := c.run(tc.env, args...); code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			st := c.state("prec")
			if st.MaxIterations != tc.want || st.CurrentIteration != tc.want {
				t.Errorf("max_iterations %d, ran %d, want %d", st.MaxIterations, st.CurrentIteration, tc.want)
			}
			if st.InactivityTimeout != 90 {
				t.Errorf("inactivity_timeout %d, want 90 from the config file's bare seconds", st.InactivityTimeout)
			}
		})
	}
}

func TestASecondWatcherIsRefusedAndInterruptLeavesThePausedLoop(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.srv.NewPane()
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working\nquiet\n")
	first := c.command(nil, append([]string{"run", "-S", c.srv.Socket, "-t", pane, "--name", "one", "--"}, agent...)...)
	var out bytes.Buffer
	first.Stdout, first.Stderr = &out, &out
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	tmuxtest.Eventually(t, 30*time.Second, "the first watcher's agent to work", func() bool {
		return strings.Contains(c.srv.Capture(pane), "working")
	})
	code, _, stderr := c.run(nil, append([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "one", "--"}, agent...)...)
	if code != 2 || !strings.Contains(stderr, "loop 'one' is already running") {
		t.Errorf("second watcher: exit %d, stderr %q", code, stderr)
	}
	first.Process.Signal(os.Interrupt)
	err := first.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("interrupted watcher: %v, want exit 130\n%s", err, out.String())
	}
	if st := c.state("one"); st.Status != state.Paused {
		t.Errorf("status %s, want paused", st.Status)
	}
	if !strings.Contains(c.srv.Capture(pane), "working") || strings.TrimSpace(c.srv.Must("display", "-p", "-t", pane, "#{pane_dead}")) != "0" {
		t.Errorf("the agent did not run on")
	}
}

func TestDetachReturnsAtOnceAndTheLoopRunsInTheBackground(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	start := time.Now()
	code, stdout, stderr := c.run(nil, "run", "--detach", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "bg",
		"--prompt-mode", "arg", "--max-iterations", "2", "--restart-delay", "0", "--", "sh", "-c", "sleep 1")
	if code != 0 || !strings.Contains(stdout, "[ralph] bg: looping pane %") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	// Run in the foreground, the loop would have ended before run returned.
	if data, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "bg", "state.json")); bytes.Contains(data, []byte(`"exit_reason": "max_iterations"`)) {
		t.Errorf("--detach returned after %s, when the loop had ended", time.Since(start))
	}
	tmuxtest.Eventually(t, 30*time.Second, "the background loop to finish", func() bool {
		data, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "bg", "state.json"))
		return bytes.Contains(data, []byte(`"exit_reason": "max_iterations"`))
	})
	log, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "bg", "watcher.log"))
	if !strings.Contains(string(log), "[ralph] bg: loop complete after 2 iterations") {
		t.Errorf("watcher.log:\n%s", log)
	}
}

func TestRunTypedInTheLoopedPaneMovesItselfToTheBackground(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.srv.NewPane()
	cmdline := c.bin + " run --name self --prompt-mode arg --max-iterations 2 --restart-delay 0 -- sh -c 'echo looped $RALPH_ITERATION; sleep 1'"
	c.srv.Must("send-keys", "-t", pane, "-l", "cd "+c.srv.Dir+" && "+cmdline)
	c.srv.Must("send-keys", "-t", pane, "Enter")
	tmuxtest.Eventually(t, 30*time.Second, "the loop in its own pane to finish", func() bool {
		data, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "self", "state.json"))
		return bytes.Contains(data, []byte(`"exit_reason": "max_iterations"`))
	})
	if st := c.state("self"); st.PaneID != pane || st.CurrentIteration != 2 {
		t.Errorf("looped pane %s for %d iterations, want %s for 2", st.PaneID, st.CurrentIteration, pane)
	}
	if !strings.Contains(c.srv.Capture(pane), "looped 2") {
		t.Errorf("pane shows:\n%s", c.srv.Capture(pane))
	}
	// The watcher it started, still a descendant of the pane, runs the loop
	// itself: it does not start a watcher of its own, and that one another.
	if log, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "self", "watcher.log")); bytes.Contains(log, []byte("in the background")) {
		t.Errorf("the background watcher moved itself to the background again:\n%s", log)
	}
}

func TestVersionHelpAndUnknownCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct {
		args       []string
		code       int
		out, inErr string
	}{
		{[]string{"version"}, 0, "ralph-watch ", ""},
		{[]string{"-h"}, 0, "Examples:", ""},
		{[]string{"run", "-h"}, 0, "--done-pattern", ""},
		{[]string{"demo", "-h"}, 0, "ralph-watch demo", ""},
		{[]string{}, 0, "SUBCOMMANDS", ""},
		{[]string{"frobnicate"}, 2, "", `ralph-watch: error: unknown subcommand "frobnicate"`},
	} {
		code, stdout, stderr := c.run(nil, tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.out) || !strings.Contains(stderr, tc.inErr) {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", tc.args, code, stdout, stderr)
		}
	}
}

func TestDemoWithoutATerminalPrintsTheLogAndFinalStatus(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, stdout, stderr := c.run(nil, "demo", "--attach", "no")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"[ralph] demo: starting iteration 3/5", "[ralph] demo: done pattern matched, stopping loop",
		"iterations.log:", "[DONE] loop complete after 3 iterations reason=done_pattern", "Status: done (done_pattern) after 3 iterations"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
}

// On a terminal the demo's last screen, the agent's done token on it, stays
// until a key is pressed; then the demo says what to do next.
func TestDemoOnATerminalHoldsTheDoneScreenUntilAKeyThenSaysWhatNext(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	cmd := c.command([]string{"TERM=xterm-256color"}, "demo")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var screen tmuxtest.Buffer
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(&screen, f); close(copied) }() // until the terminal closes
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tmuxtest.Eventually(t, 60*time.Second, "the done screen to be held", func() bool { return strings.Contains(screen.String(), "press any key") })
	time.Sleep(2 * time.Second)
	select {
	case err := <-done:
		t.Fatalf("the demo left its done screen without a key: %v\n%s", err, screen.String())
	default:
	}
	if _, err := f.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("demo: %v\n%s", err, screen.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Signal(syscall.SIGKILL)
		t.Fatalf("demo still running 30s after the key")
	}
	f.Close()
	<-copied
	out := screen.String()
	held := out[:strings.Index(out, "press any key")]
	if strings.Count(held, "RALPH_DONE") <= strings.Count(held, "print RALPH_DONE on") {
		t.Errorf("the agent's own RALPH_DONE was never drawn before the hold:\n%s", held)
	}
	if after := out[strings.Index(out, "press any key"):]; !strings.Contains(after, "[ralph] demo: done pattern matched") {
		t.Errorf("the loop's messages are not shown once the client left:\n%s", after)
	}
	for _, want := range []string{"ralph demo agent", "Status: done (done_pattern) after 3 iterations",
		"ralph-watch run --prompt-file PROMPT.md --max-iterations 20", "set -g @plugin 'ralph-tmux/ralph.tmux'"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q", want)
		}
	}
}

func TestHookTurnEndRecordsTheIterationAndNeverFailsTheAgent(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := filepath.Join(c.srv.Dir, "state", "looped")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"worker_name":"looped","watcher_pid":0}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// Codex passes its event as a last argument; it is ignored.
	code, _, stderr := c.run([]string{"RALPH_ITERATION=4"}, "hook", "turn-end", "--state", dir, `{"type":"agent-turn-complete"}`)
	if code != 0 || stderr != "" {
		t.Fatalf("hook turn-end: exit %d, stderr %q", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "turn-end")); err != nil || !strings.HasPrefix(string(b), "4\n") {
		t.Errorf("turn-end file = %q, %v; want the iteration", b, err)
	}
	// Codex notifies for its title side thread too, before the turn ends.
	_ = os.Remove(filepath.Join(dir, "turn-end"))
	title := `{"type":"agent-turn-complete","input-messages":["Generate a concise, single-line task title for: fix"]}`
	if code, _, _ := c.run([]string{"RALPH_ITERATION=5"}, "hook", "turn-end", "--state", dir, title); code != 0 {
		t.Errorf("hook for a side thread: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "turn-end")); err == nil {
		t.Errorf("a side thread's notify ended the turn")
	}
	code, _, stderr = c.run([]string{"RALPH_ITERATION=4"}, "hook", "turn-end", "--state", filepath.Join(c.srv.Dir, "none"))
	if code != 0 || !strings.Contains(stderr, "no loop state in") {
		t.Errorf("hook without a loop: exit %d, stderr %q; want 0 and a warning", code, stderr)
	}
	if code, _, _ := c.run(nil, "hook", "bogus"); code != 2 {
		t.Errorf("hook bogus: exit %d, want 2", code)
	}
}

// resumeToEnd resumes loop name, waits for it to reach its iteration limit
// at iteration n, and checks that each of lines is in its log exactly once:
// nothing lost, nothing done twice.
func (c *cli) resumeToEnd(name string, n int, lines ...string) *state.State {
	c.t.Helper()
	c.want([]string{"resume", name}, 0, "resumed ralph loop for "+name, "")
	st := c.until(name, "the loop to end", func(st *state.State) bool { return st.ExitReason != nil })
	if *st.ExitReason != "max_iterations" || st.CurrentIteration != n {
		c.t.Errorf("%s ended with %s at iteration %d, want max_iterations at %d", name, *st.ExitReason, st.CurrentIteration, n)
	}
	log := c.log(name)
	for _, want := range lines {
		if strings.Count(log, want) != 1 {
			c.t.Errorf("log should have %q once:\n%s", want, log)
		}
	}
	return st
}
