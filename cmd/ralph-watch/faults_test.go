package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// Faults from outside the loop: signals, a watcher killed at a bad moment, a
// damaged state file, a full disk. What the person sees is asserted.

func TestSIGTERMLeavesTheLoopPausedTheAgentRunningAndResumeGoesOn(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.srv.NewPane()
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working {{iteration}}\nsleep 3s\nexit 0\n")
	cmd := c.command(nil, append([]string{"run", "-S", c.srv.Socket, "-t", pane, "--name", "term", "--max-iterations", "2", "--restart-delay", "0", "--"}, agent...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	tmuxtest.Eventually(t, 30*time.Second, "the agent to work", func() bool { return strings.Contains(c.srv.Capture(pane), "working 1") })
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("watcher after SIGTERM: %v, want exit 130\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "[ralph] term: interrupted, pausing loop (the agent runs on)") {
		t.Errorf("output:\n%s", out.String())
	}
	if st := c.state("term"); st.Status != state.Paused || st.CurrentIteration != 1 {
		t.Errorf("state %s at %d, want paused at 1", st.Status, st.CurrentIteration)
	}
	if dead := strings.TrimSpace(c.srv.Must("display", "-p", "-t", pane, "#{pane_dead}")); dead != "0" {
		t.Errorf("the agent did not run on")
	}
	c.resumeToEnd("term", 2, "[START] iteration 1/2\n", "[PAUSE] loop paused reason=interrupt\n",
		"[END] iteration 1 exit=0", "[START] iteration 2/2\n", "[END] iteration 2 exit=0")
}

func TestAWatcherKilledInBackoffShowsDisconnectedAndResumeLosesNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	// Iterations 1 and 2 fail, so the watcher waits 2s before iteration 3.
	pane := c.detach("backoff", "--prompt-mode", "arg", "--max-iterations", "4", "--",
		"sh", "-c", `[ "$RALPH_ITERATION" -le 2 ] && exit 3; exit 0`)
	tmuxtest.Eventually(t, 30*time.Second, "the backoff after iteration 2", func() bool {
		return strings.Contains(c.log("backoff"), "[FAIL] iteration 2 exit=3") && c.srv.Option(pane, "@ralph-state") == "backoff"
	})
	st := c.state("backoff")
	syscall.Kill(st.WatcherPID, syscall.SIGKILL)
	tmuxtest.Eventually(t, 10*time.Second, "the watcher to die", func() bool { return !alive(st.WatcherPID) })
	c.want([]string{"status", "backoff"}, 0, "Exit reason: monitor_disconnected (agent exited)\n", "")
	c.want([]string{"list"}, 0, "monitor_disconnected", "")
	if st := c.state("backoff"); st.CurrentIteration != 2 || st.ConsecutiveFailures != 2 || st.TotalFailures != 2 {
		t.Errorf("state after the kill: iteration %d, failures %d/%d", st.CurrentIteration, st.ConsecutiveFailures, st.TotalFailures)
	}
	// Each iteration started exactly once, across the kill.
	st = c.resumeToEnd("backoff", 4, "[START] iteration 1/4\n", "[START] iteration 2/4\n", "[START] iteration 3/4\n", "[START] iteration 4/4\n")
	if st.TotalFailures != 2 || st.ConsecutiveFailures != 0 {
		t.Errorf("failures %d/%d, want 0 consecutive of 2", st.ConsecutiveFailures, st.TotalFailures)
	}
}

func TestACorruptOrForeignStateFileGivesAClearWayOut(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct{ name, data string }{
		{"half", `{"worker_name": "half", "status": "runn`},
		{"binary", "\x00\xff\xfe garbage"},
		{"foreign", `[{"some": "other program's file"}]`},
		{"typed", `{"current_iteration": "four", "status": 7}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(c.srv.Dir, "state", tc.name)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "state.json")
			if err := os.WriteFile(file, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			way := "corrupt state file " + file
			for _, args := range [][]string{{"status", tc.name}, {"resume", tc.name}, {"pause", tc.name}, {"stop", tc.name}, {"logs", tc.name}} {
				code, stdout, stderr := c.run(nil, args...)
				if code != 1 || !strings.HasPrefix(stderr, "ralph-watch: error: "+way) || !strings.Contains(stderr, "'ralph-watch clean "+tc.name+"'") ||
					!strings.Contains(stderr, "--replace") || strings.Count(stderr, "\n") != 1 || stdout != "" {
					t.Errorf("%v: exit %d\nstdout %q\nstderr %q", args, code, stdout, stderr)
				}
			}
			if code, stdout, stderr := c.run(nil, "list"); code != 0 || !strings.Contains(stderr, "ralph-watch: warning: "+way) || strings.Contains(stdout+stderr, "panic") {
				t.Errorf("list: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
			}
			c.want([]string{"clean", tc.name}, 0, "cleaned ralph state for "+tc.name, "")
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("clean left %s", dir)
			}
		})
	}
	// run --replace starts afresh over a corrupt state.
	if err := os.MkdirAll(filepath.Join(c.srv.Dir, "state", "again"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "state", "again", "state.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.want([]string{"run", "--replace", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "again", "--prompt-mode", "arg",
		"--max-iterations", "1", "--", "true"}, 0, "loop complete after 1 iterations", "")
	if st := c.state("again"); st.CurrentIteration != 1 || st.ExitReason == nil || *st.ExitReason != "max_iterations" {
		t.Errorf("replaced loop: %+v", st)
	}
}

func TestAFullDiskAtAStateWriteStopsTheLoopAndKeepsThePreviousState(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.srv.NewPane()
	args := []string{"run", "-S", c.srv.Socket, "-t", pane, "--name", "full", "--prompt-mode", "arg", "--restart-delay", "0", "--max-iterations", "1", "--", "true"}
	c.want(args, 0, "loop complete after 1 iterations", "")
	file := filepath.Join(c.srv.Dir, "state", "full", "state.json")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	panePID := c.srv.Must("display", "-p", "-t", pane, "#{pane_pid}")
	// A file size limit of 512 bytes makes every state write fail as a full
	// disk would (EFBIG instead of ENOSPC), in the watcher only.
	args[len(args)-3] = "3"
	cmd := exec.Command("/bin/sh", append([]string{"-c", `ulimit -f 1; exec "$0" "$@"`, c.bin}, args...)...)
	cmd.Dir, cmd.Env = c.srv.Dir, c.srv.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "ralph-watch: error: cannot record iteration 1, stopping loop: write state: ") ||
		!strings.Contains(stderr.String(), "file too large") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	// The ended run was kept apart before the new one began (see Store.Archive).
	kept, _ := filepath.Glob(filepath.Join(c.srv.Dir, "state", "full", "runs", "*", "state.json"))
	if len(kept) != 1 {
		t.Fatalf("the ended run was not kept: %v", kept)
	}
	if after, _ := os.ReadFile(kept[0]); !bytes.Equal(after, before) {
		t.Errorf("the ended run's state.json changed:\n%s\nwas:\n%s", after, before)
	}
	if strings.Contains(c.log("full"), "[START]") {
		t.Errorf("an unrecorded iteration started:\n%s", c.log("full"))
	}
	if now := c.srv.Must("display", "-p", "-t", pane, "#{pane_pid}"); now != panePID {
		t.Errorf("the pane was respawned though nothing could be recorded")
	}
	if tmp, _ := filepath.Glob(filepath.Join(c.srv.Dir, "state", "full", ".state-*")); len(tmp) > 0 {
		t.Errorf("temp files left: %v", tmp)
	}
}

// A watcher killed (kill -9) while iteration 2 starts, its agent slow to
// take input, then resumed: iteration 2's agent gets its prompt once, its
// turn is told by its hooks as ever, and no turn is counted that had no prompt.
func TestAWatcherKilledWhileAnIterationStartsIsResumedWithThePromptTypedOnceAndTheHooksKept(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	got := filepath.Join(c.srv.Dir, "prompts")
	agent := c.srv.FakeAgentAs("claude", "slow", `hook SessionStart {"source":"startup"}
iter 2 sleep 3s
print   ⏻ a footer no profile has seen
ready
read
append `+got+` iteration {{iteration}}
hook UserPromptSubmit {"prompt":"x"}
echo
spinner 300ms
print ● Done with iteration {{iteration}}.
hook Stop
quiet
`)
	c.detach("kept", append([]string{"--agent", "claude", "--max-iterations", "3", "--inactivity-timeout", "20s", "--"}, agent...)...)
	st := c.until("kept", "iteration 2 to start", func(st *state.State) bool { return st.CurrentIteration == 2 })
	syscall.Kill(st.WatcherPID, syscall.SIGKILL)
	tmuxtest.Eventually(t, 10*time.Second, "the watcher to die", func() bool { return !alive(st.WatcherPID) })
	if st := c.state("kept"); !st.PromptUntyped {
		t.Errorf("killed while iteration 2 started, the record does not say its prompt is untyped: %+v", st)
	}
	c.resumeToEnd("kept", 3, "[END] iteration 1 turn_end", "[END] iteration 2 turn_end", "[END] iteration 3 turn_end")
	prompts, _ := os.ReadFile(got)
	if string(prompts) != "iteration 1\niteration 2\niteration 3\n" {
		t.Errorf("the agents took prompts:\n%s\nwant each iteration's once", prompts)
	}
	if log := c.log("kept"); strings.Contains(log, "did not report") || strings.Contains(log, "without its hooks") {
		t.Errorf("the hooks were dropped:\n%s", log)
	}
}
