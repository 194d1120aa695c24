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
	cmd := c.command(extraEnv, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			c.t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		c.t.Fatalf("ralph-watch %v still running after 90s; stdout:\n%s\nstderr:\n%s", args, stdout.String(), stderr.String())
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

func TestBadInputIsRefusedWithOneLineAndExit2BeforeAnythingIsSpawned(t *testing.T) {
	c := newCLI(t)
	pane := c.srv.NewPane()
	os.Mkdir(filepath.Join(c.srv.Dir, "adir"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(c.srv.Dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "huge.md"), bytes.Repeat([]byte("x"), 50<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(c.srv.Dir, "binary.md"), []byte("\x7fELF\x02\x01\x01\x00\x00\x00"), 0o644)
	ok := []string{"run", "-S", c.srv.Socket, "-t", pane}
	outside := []string{"run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir)}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing prompt file", append(ok, "--prompt-file", "nope.md", "--", "sh"), "ralph-watch: error: prompt file not found: " + filepath.Join(c.srv.Dir, "nope.md")},
		{"prompt file is a directory", append(ok, "--prompt-file", "adir", "--", "sh"), "ralph-watch: error: cannot read prompt file: " + filepath.Join(c.srv.Dir, "adir") + " (is a directory)"},
		{"bad regex", append(ok, "--done-pattern", "(", "--", "sh"), "ralph-watch: error: invalid --done-pattern: error parsing regexp"},
		{"bad ready regex", append(ok, "--ready-pattern", "[", "--", "sh"), "ralph-watch: error: invalid --ready-pattern"},
		{"name with a slash", append(ok, "--name", "a/b", "--", "sh"), `ralph-watch: error: invalid loop name "a/b"`},
		{"name dot dot", append(ok, "--name", "..", "--", "sh"), `ralph-watch: error: invalid loop name ".."`},
		{"name too long", append(ok, "--name", strings.Repeat("n", 65), "--", "sh"), "ralph-watch: error: invalid loop name"},
		{"name with command substitution", append(ok, "--name", "$(touch x)", "--", "sh"), "ralph-watch: error: invalid loop name"},
		{"name with a space", append(ok, "--name", "a b", "--", "sh"), `ralph-watch: error: invalid loop name "a b"`},
		{"name with quotes", append(ok, "--name", `it's"`, "--", "sh"), "ralph-watch: error: invalid loop name"},
		{"name with a newline", append(ok, "--name", "a\nb", "--", "sh"), `ralph-watch: error: invalid loop name "a\nb"`},
		{"name dot", append(ok, "--name", ".", "--", "sh"), `ralph-watch: error: invalid loop name "."`},
		{"name with a tmux format", append(ok, "--name", "#{pane_id}", "--", "sh"), "ralph-watch: error: invalid loop name"},
		{"prompt file is a FIFO", append(ok, "--prompt-file", "fifo", "--", "sh"), "ralph-watch: error: cannot read prompt file: " + filepath.Join(c.srv.Dir, "fifo") + " (not a regular file)"},
		{"prompt file of 50 MB", append(ok, "--prompt-file", "huge.md", "--", "sh"), "ralph-watch: error: cannot read prompt file: " + filepath.Join(c.srv.Dir, "huge.md") + " (larger than 8 MiB)"},
		{"binary prompt file", append(ok, "--prompt-file", "binary.md", "--", "sh"), "ralph-watch: error: cannot read prompt file: " + filepath.Join(c.srv.Dir, "binary.md") + " (binary: holds NUL bytes)"},
		{"target is a window that does not exist", []string{"run", "-S", c.srv.Socket, "-t", "main:99", "--", "sh"}, "ralph-watch: error: no such pane: main:99"},
		{"target is nonsense", []string{"run", "-S", c.srv.Socket, "-t", "$(touch x)", "--", "sh"}, "ralph-watch: error: no such pane: $(touch x)"},
		{"negative max time", append(ok, "--max-time", "-1h", "--", "sh"), "negative duration"},
		{"nonsense restart delay", append(ok, "--restart-delay", "1x", "--", "sh"), `invalid duration "1x"`},
		{"no such pane", []string{"run", "-S", c.srv.Socket, "-t", "%999", "--", "sh"}, "ralph-watch: error: no such pane: %999"},
		{"no server", []string{"run", "-S", filepath.Join(c.srv.Dir, "none"), "-t", "%0", "--", "sh"}, "ralph-watch: error: no tmux server running"},
		{"both -L and -S", []string{"run", "-L", "x", "-S", c.srv.Socket, "--", "sh"}, "ralph-watch: error: give -L or -S, not both"},
		{"bad prompt mode", append(ok, "--prompt-mode", "shout", "--", "sh"), `ralph-watch: error: invalid --prompt-mode "shout"`},
		{"negative duration", append(ok, "--inactivity-timeout", "-5", "--", "sh"), `ralph-watch: error: invalid value "-5" for flag --inactivity-timeout: negative duration`},
		{"nonsense duration", append(ok, "--poll-interval", "soon", "--", "sh"), `invalid duration "soon"`},
		{"zero poll interval", append(ok, "--poll-interval", "0", "--", "sh"), "--poll-interval must be more than 0"},
		{"negative max iterations", append(ok, "--max-iterations", "-1", "--", "sh"), "--max-iterations must not be negative"},
		{"no command", ok, "ralph-watch: error: no command provided (use -- command...)"},
		{"unknown flag", append(ok, "--bogus", "--", "sh"), "ralph-watch: error: flag provided but not defined: --bogus"},
		{"unknown agent", append(ok, "--agent", "hal", "--", "sh"), `ralph-watch: error: unknown --agent "hal": use aider, amp, claude, codex, gemini, generic, opencode`},
		{"mode the agent lacks", append(ok, "--agent", "aider", "--prompt-mode", "stdin", "--", "aider"), "ralph-watch: error: aider does not take prompts in stdin mode"},
		{"arg mode through a wrapper", append(ok, "--agent", "claude", "--prompt-mode", "arg", "--", "mywrap"), "ralph-watch: error: --prompt-mode arg needs claude … -p, and that cannot be added to 'mywrap' (not claude's own program)"},
		{"stdin mode in a complex shell line", append(ok, "--agent", "codex", "--prompt-mode", "stdin", "--", "cd sub && codex"), "cannot be added to the shell line 'cd sub && codex' (it uses '&')"},
		{"bad busy regex", append(ok, "--busy-pattern", "(", "--", "sh"), "ralph-watch: error: invalid --busy-pattern"},
		{"bad limit regex", append(ok, "--agent", "claude", "--limit-pattern", "*", "--", "claude"), "ralph-watch: error: invalid --limit-pattern"},
		{"zero limit wait", append(ok, "--limit-wait", "0", "--", "sh"), "--limit-wait must be more than 0"},
		{"unknown fail action", append(ok, "--check-fail-action", "ignore", "--", "sh"), `ralph-watch: error: invalid --check-fail-action "ignore": use append, prepend or replace`},
		{"negative output chars", append(ok, "--check-output-chars", "-1", "--", "sh"), "--check-output-chars must not be negative"},
		{"negative stall limit", append(ok, "--stall-limit", "-2", "--", "sh"), "--stall-limit must not be negative"},
		{"zero check timeout", append(ok, "--check-timeout", "0", "--", "sh"), "--check-timeout must be more than 0"},
		{"negative token budget", append(ok, "--max-tokens", "-1", "--", "sh"), "--max-tokens must not be negative"},
		{"negative cost budget", append(ok, "--max-cost", "-0.5", "--", "sh"), "--max-cost must be a number of US dollars, not negative"},
		{"no prices file", append(ok, "--prices", "/nonexistent/prices.json", "--", "sh"), "ralph-watch: error: --prices: open /nonexistent/prices.json"},
		{"negative check timeout", append(ok, "--check-timeout", "-1s", "--", "sh"), "negative duration"},
		{"empty check", append(ok, "--check", " ", "--", "sh"), "empty check command"},
		{"hint without a check", append(ok, "--check-hint", "h", "--", "sh"), "a hint must follow the --check it explains"},
		{"two hints for a check", append(ok, "--check", "true", "--check-hint", "a", "--check-hint", "b", "--", "sh"), "a hint must follow the --check it explains"},
		{"worktree outside git", append(outside, "--worktree", "--", "sh"), "ralph-watch: error: --worktree needs a git repository: " + c.srv.Dir + " is not in one"},
		{"stall limit outside git", append(outside, "--stall-limit", "3", "--", "sh"), "ralph-watch: error: --stall-limit needs a git repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := c.panes()
			code, stdout, stderr := c.run(nil, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr: %s", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
				t.Errorf("stderr has %d lines, want one: %q", n+1, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if after := c.panes(); after != before {
				t.Errorf("panes changed:\nbefore %s\nafter  %s", before, after)
			}
			if _, err := os.Stat(filepath.Join(c.srv.Dir, "state")); err == nil {
				t.Errorf("state was written")
			}
			if _, err := os.Stat(filepath.Join(c.srv.Dir, "x")); err == nil {
				t.Errorf("a name reached a shell")
			}
		})
	}
}

func TestRunOutsideTmuxLoopsANewWindowInSessionRalph(t *testing.T) {
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
	c := newCLI(t)
	code, _, stderr := c.run(nil, "run", "--tmux", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--prompt-mode", "arg", "--max-iterations", "1", "--", "true")
	if code != 0 || !strings.Contains(stderr, "Note: --tmux does nothing: ralph loops always run in tmux") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestLimitReachedWithoutTheDoneSignalExits3(t *testing.T) {
	c := newCLI(t)
	code, stdout, stderr := c.run(nil, "run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--prompt-mode", "arg",
		"--max-iterations", "2", "--restart-delay", "0", "--done-pattern", "NEVER_[0-9]", "--", "true")
	if code != 3 {
		t.Errorf("exit %d, want 3\n%s%s", code, stdout, stderr)
	}
}

func TestFlagsBeatEnvironmentWhichBeatsTheConfigFile(t *testing.T) {
	c := newCLI(t)
	os.MkdirAll(filepath.Join(c.srv.Dir, ".ralph"), 0o755)
	os.WriteFile(filepath.Join(c.srv.Dir, ".ralph", "config"), []byte("max-iterations 2\ninactivity-timeout 90\nprompt-mode arg\nrestart-delay 0\n"), 0o644)
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
	c := newCLI(t)
	start := time.Now()
	code, stdout, stderr := c.run(nil, "run", "--detach", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "bg",
		"--prompt-mode", "arg", "--max-iterations", "2", "--restart-delay", "0", "--", "sh", "-c", "sleep 1")
	if code != 0 || !strings.Contains(stdout, "[ralph] bg: looping pane %") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("--detach took %s", time.Since(start))
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
}

func TestVersionHelpAndUnknownCommands(t *testing.T) {
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

func TestDemoOnATerminalAttachesAndEndsByItself(t *testing.T) {
	c := newCLI(t)
	cmd := c.command([]string{"TERM=xterm-256color"}, "demo")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var screen bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&screen, f); close(copied) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("demo: %v\n%s", err, screen.String())
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Signal(syscall.SIGKILL)
		t.Fatalf("demo still running after 90s")
	}
	f.Close()
	<-copied
	out := screen.String()
	for _, want := range []string{"ralph demo agent", "Status: done (done_pattern) after 3 iterations"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q", want)
		}
	}
}

func TestHookTurnEndRecordsTheIterationAndNeverFailsTheAgent(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(c.srv.Dir, "state", "looped")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"worker_name":"looped","watcher_pid":0}`), 0o600)
	// Codex passes its event as a last argument; it is ignored.
	code, _, stderr := c.run([]string{"RALPH_ITERATION=4"}, "hook", "turn-end", "--state", dir, `{"type":"agent-turn-complete"}`)
	if code != 0 || stderr != "" {
		t.Fatalf("hook turn-end: exit %d, stderr %q", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "turn-end")); err != nil || !strings.HasPrefix(string(b), "4\n") {
		t.Errorf("turn-end file = %q, %v; want the iteration", b, err)
	}
	// Codex notifies for its title side thread too, before the turn ends.
	os.Remove(filepath.Join(dir, "turn-end"))
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
