package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/prompt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// runLoop runs a loop to its end in the foreground and fails on a non-zero exit.
func (c *cli) runLoop(name string, args ...string) {
	c.t.Helper()
	all := append([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", name, "--restart-delay", "0"}, args...)
	if code, stdout, stderr := c.run(nil, all...); code != 0 {
		c.t.Fatalf("run %s: exit %d\n%s%s", name, code, stdout, stderr)
	}
}

// detach starts a loop in the background on a new pane and returns the pane.
func (c *cli) detach(name string, args ...string) string {
	c.t.Helper()
	pane := c.srv.NewPane()
	all := append([]string{"run", "--detach", "-S", c.srv.Socket, "-t", pane, "--name", name, "--restart-delay", "0"}, args...)
	if code, stdout, stderr := c.run(nil, all...); code != 0 {
		c.t.Fatalf("run --detach %s: exit %d\n%s%s", name, code, stdout, stderr)
	}
	return pane
}

// until waits for the loop's state to satisfy cond.
func (c *cli) until(name, what string, cond func(*state.State) bool) *state.State {
	c.t.Helper()
	var st *state.State
	tmuxtest.Eventually(c.t, 60*time.Second, name+": "+what, func() bool {
		if _, err := os.Stat(filepath.Join(c.srv.Dir, "state", name, "state.json")); err != nil {
			return false
		}
		st = c.state(name)
		return cond(st)
	})
	return st
}

// endShell is the program a loop's pane goes back to: the test's $SHELL.
func endShell() string {
	if sh := os.Getenv("SHELL"); sh != "" {
		return filepath.Base(sh)
	}
	return "sh"
}

func (c *cli) log(name string) string {
	data, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", name, "iterations.log"))
	return string(data)
}

func (c *cli) want(args []string, code int, inStdout, inStderr string) string {
	c.t.Helper()
	got, stdout, stderr := c.run(nil, args...)
	if got != code || !strings.Contains(stdout, inStdout) || !strings.Contains(stderr, inStderr) {
		c.t.Errorf("ralph-watch %v: exit %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", args, got, code, stdout, inStdout, stderr, inStderr)
	}
	return stdout
}

func TestStatusListAndLogsDescribeAFinishedLoop(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.want([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "finished", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "2", "--done-pattern", "NEVER", "--", "sh", "-c", "sleep 1"}, 3, "", "")
	status := c.want([]string{"status", "finished"}, 0, "Ralph Loop: finished\n", "")
	for _, line := range []string{
		"Status: limit\n", "Iteration: 2/2 (avg ", "Started: ", "Current iteration started: ",
		"Last iteration ended: ", "Consecutive failures: 0\n", "Total failures: 0\n",
		"Inactivity timeout: 180s\n", "Done pattern: NEVER\n", "Exit reason: max_iterations\n", "Total duration: ",
	} {
		if !strings.Contains(status, line) {
			t.Errorf("status lacks %q:\n%s", line, status)
		}
	}
	if strings.Contains(status, "Tasks:") {
		t.Errorf("status of a loop without a plan shows tasks:\n%s", status)
	}
	c.want([]string{"status", "--json", "finished"}, 0, `"watcher_alive": false`, "")
	list := c.want([]string{"list"}, 0, "NAME", "")
	if !regexp.MustCompile(`(?m)^NAME +RALPH_STATUS +AGENT +ITERATION +TASKS +FAILURES +COST +LANDED +REPORT\nfinished +limit +exited +2/2 +- +0/0 +- +- +-\n$`).MatchString(list) {
		t.Errorf("list:\n%s", list)
	}
	if ls := c.want([]string{"ls"}, 0, "", ""); ls != list {
		t.Errorf("ls differs from list:\n%s", ls)
	}
	c.want([]string{"list", "--names"}, 0, "finished\n", "")
	logs := c.want([]string{"logs", "finished"}, 0, "[START] iteration 1/2", "")
	if n := strings.Count(logs, "\n"); n != 7 { // START, END and COST twice, DONE
		t.Errorf("log has %d lines, want 7:\n%s", n, logs)
	}
	if last := c.want([]string{"logs", "--lines", "1", "finished"}, 0, "", ""); !strings.HasSuffix(last, "[DONE] loop complete after 2 iterations reason=max_iterations\n") || strings.Count(last, "\n") != 1 {
		t.Errorf("logs --lines 1: %q", last)
	}
	c.want([]string{"status", "nosuch"}, 1, "", "ralph-watch: error: no ralph state found for loop 'nosuch'")
	c.want([]string{"logs", "nosuch"}, 1, "", "no ralph state found for loop 'nosuch'")
	c.want([]string{"status", "../x"}, 2, "", "invalid loop name")
}

func TestStatusWithoutANameInsideALoopedPane(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.detach("here", "--prompt-mode", "arg", "--max-iterations", "1", "--", "sh", "-c", "sleep 30")
	c.until("here", "the loop to start", func(st *state.State) bool { return st.CurrentIteration == 1 })
	// The pane's options follow the state by a moment.
	tmuxtest.Eventually(t, 30*time.Second, "the pane to name its loop", func() bool { return c.srv.Option(pane, "@ralph-name") == "here" })
	tmuxEnv := []string{"TMUX=" + c.srv.Socket + ",1,0", "TMUX_PANE=" + pane}
	code, stdout, stderr := c.run(tmuxEnv, "status")
	if code != 0 || !strings.Contains(stdout, "Ralph Loop: here\nStatus: running\n") || !strings.Contains(stdout, "Exit reason: (none - still running)") {
		t.Errorf("status in the pane: exit %d\n%s%s", code, stdout, stderr)
	}
	c.want([]string{"stop", "--kill", "here"}, 0, "stopped ralph loop for here", "")
}

func TestPauseAndResumeGoOnCountingWithNothingLost(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working {{iteration}}\nsleep 1500ms\nexit 0\n")
	c.detach("pr", append([]string{"--max-iterations", "4", "--"}, agent...)...)
	c.until("pr", "iteration 2", func(st *state.State) bool { return st.CurrentIteration == 2 })
	c.want([]string{"pause", "pr"}, 0, "paused ralph loop for pr", "")
	c.want([]string{"status", "pr"}, 0, "Status: paused\n", "")
	c.want([]string{"pause", "pr"}, 0, "", "ralph-watch: warning: loop 'pr' is already paused")
	time.Sleep(3 * time.Second) // the agent finishes; no new iteration may start
	if st := c.state("pr"); st.CurrentIteration != 2 || st.Status != state.Paused {
		t.Fatalf("while paused: iteration %d status %s", st.CurrentIteration, st.Status)
	}
	c.want([]string{"resume", "pr"}, 0, "resumed ralph loop for pr", "")
	st := c.until("pr", "the loop to end", func(st *state.State) bool { return st.ExitReason != nil })
	if *st.ExitReason != "max_iterations" || st.CurrentIteration != 4 {
		t.Errorf("ended with %s at iteration %d", *st.ExitReason, st.CurrentIteration)
	}
	log := c.log("pr")
	for i := 1; i <= 4; i++ {
		if n := strings.Count(log, "[START] iteration "+strconv.Itoa(i)+"/4\n"); n != 1 {
			t.Errorf("iteration %d started %d times:\n%s", i, n, log)
		}
		if n := strings.Count(log, "[END] iteration "+strconv.Itoa(i)+" exit=0"); n != 1 {
			t.Errorf("iteration %d ended %d times:\n%s", i, n, log)
		}
	}
	c.want([]string{"resume", "pr"}, 1, "", "ralph loop for 'pr' has status 'done'")
}

func TestAKilledWatcherShowsDisconnectedAndResumeAdoptsItsIteration(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint busy {{iteration}}\nsleep 4s\nexit 0\n")
	pane := c.detach("orphan", append([]string{"--max-iterations", "2", "--"}, agent...)...)
	st := c.until("orphan", "iteration 1", func(st *state.State) bool { return st.CurrentIteration == 1 })
	tmuxtest.Eventually(t, 30*time.Second, "the agent to work", func() bool { return strings.Contains(c.srv.Capture(pane), "busy 1") })
	syscall.Kill(st.WatcherPID, syscall.SIGKILL)
	tmuxtest.Eventually(t, 10*time.Second, "the watcher to die", func() bool { return !alive(st.WatcherPID) })
	// The server marks the watcher gone once its lifeline ends, a moment after the death.
	tmuxtest.Eventually(t, 10*time.Second, "status to say the watcher is gone", func() bool {
		_, stdout, _ := c.run(nil, "status", "orphan")
		return strings.Contains(stdout, "monitor_disconnected")
	})
	c.want([]string{"status", "orphan"}, 0, "Exit reason: monitor_disconnected (agent still running)\n", "")
	c.want([]string{"list"}, 0, "monitor_disconnected", "")
	c.resumeToEnd("orphan", 2, "[START] iteration 1/2\n", "[RESUME] loop resumed at iteration 1\n",
		"[END] iteration 1 exit=0", "[START] iteration 2/2\n", "[END] iteration 2 exit=0")
}

func TestStopEndsTheLoopAndWithKillTheAgent(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working\nquiet\n")
	for _, tc := range []struct {
		name string
		kill bool
	}{{"gentle", false}, {"hard", true}} {
		pane := c.detach(tc.name, append([]string{"--max-iterations", "3", "--"}, agent...)...)
		tmuxtest.Eventually(t, 30*time.Second, "the agent to work", func() bool { return strings.Contains(c.srv.Capture(pane), "working") })
		args := []string{"stop", tc.name}
		if tc.kill {
			args = []string{"stop", "--kill", tc.name}
		}
		c.want(args, 0, "stopped ralph loop for "+tc.name, "")
		st := c.state(tc.name)
		if want := map[bool]string{false: "stopped", true: "killed"}[tc.kill]; st.Status != state.Stopped || st.ExitReason == nil || *st.ExitReason != want {
			t.Errorf("%s: state %s %v", tc.name, st.Status, st.ExitReason)
		}
		shown := func() string {
			return strings.TrimSpace(c.srv.Must("display", "-p", "-t", pane, "#{pane_dead} #{pane_current_command}"))
		}
		if tc.kill { // the agent ended, the pane is back at a shell, never left dead
			tmuxtest.Eventually(t, 10*time.Second, "stop --kill to end the agent", func() bool { return shown() == "0 "+endShell() })
		} else if time.Sleep(500 * time.Millisecond); shown() != "0 "+filepath.Base(agent[0]) {
			t.Errorf("%s: stop without --kill: pane shows %q, want the agent running", tc.name, shown())
		}
	}
	// A loop whose watcher and pane are both gone can still be stopped.
	pane := c.detach("closed", append([]string{"--max-iterations", "3", "--"}, agent...)...)
	st := c.until("closed", "iteration 1", func(st *state.State) bool { return st.CurrentIteration == 1 })
	syscall.Kill(st.WatcherPID, syscall.SIGKILL)
	tmuxtest.Eventually(t, 10*time.Second, "the watcher to die", func() bool { return !alive(st.WatcherPID) })
	c.srv.Must("kill-pane", "-t", pane)
	c.want([]string{"stop", "closed"}, 0, "stopped ralph loop for closed", "")
	if st := c.state("closed"); st.Status != state.Stopped {
		t.Errorf("closed: status %s", st.Status)
	}
}

func TestSendTypesAMessageIntoTheLoopsPaneByteForByte(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	got := filepath.Join(c.srv.Dir, "second")
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint first prompt taken\nread\nsave "+got+"\nquiet\n")
	c.detach("talk", append([]string{"--max-iterations", "1", "--"}, agent...)...)
	c.until("talk", "iteration 1", func(st *state.State) bool { return st.CurrentIteration == 1 })
	tmuxtest.Eventually(t, 30*time.Second, "the first prompt to land", func() bool {
		return strings.Contains(c.srv.Capture(c.state("talk").PaneID), "first prompt taken")
	})
	message := "also: fix the tests;\n\tthen $HOME #{pane_id} Enter"
	c.want([]string{"send", "talk", message}, 0, "sent message to talk", "")
	tmuxtest.Eventually(t, 10*time.Second, "the message to be saved", func() bool {
		data, _ := os.ReadFile(got)
		return string(data) == message
	})
	c.want([]string{"send", "talk"}, 2, "", "send takes a loop name and a message")
	c.want([]string{"stop", "--kill", "talk"}, 0, "", "")
}

func TestCleanRemovesStateOnly(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.want([]string{"clean", "--all"}, 0, "", "")
	c.want([]string{"clean"}, 2, "", "must specify a loop name or use --all")
	c.runLoop("old", "--prompt-mode", "arg", "--max-iterations", "1", "--", "true")
	c.want([]string{"clean", "old"}, 0, "cleaned ralph state for old", "")
	if _, err := os.Stat(filepath.Join(c.srv.Dir, "state", "old")); err == nil {
		t.Errorf("state of old is still there")
	}
	c.want([]string{"clean", "old"}, 1, "", "no ralph state found for loop 'old'")

	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working\nquiet\n")
	pane := c.detach("busy", append([]string{"--max-iterations", "1", "--"}, agent...)...)
	tmuxtest.Eventually(t, 30*time.Second, "the agent to work", func() bool { return strings.Contains(c.srv.Capture(pane), "working") })
	c.want([]string{"clean", "busy"}, 1, "", "loop 'busy' is being watched")
	c.want([]string{"stop", "busy"}, 0, "", "")
	// stop returns once the state says stopped; the watcher exits a moment later.
	watcher := c.state("busy").WatcherPID
	tmuxtest.Eventually(t, 30*time.Second, "the watcher to exit", func() bool { return !alive(watcher) })
	c.want([]string{"clean", "--all"}, 0, "cleaned ralph state for busy", "loop 'busy' is still running (only ralph state removed)")
	if dead := strings.TrimSpace(c.srv.Must("display", "-p", "-t", pane, "#{pane_dead}")); dead != "0" {
		t.Errorf("clean touched the agent")
	}
}

func TestNoRunReplaceAndCleanState(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.srv.NewPane()
	base := []string{"run", "-S", c.srv.Socket, "-t", pane, "--name", "prep", "--restart-delay", "0", "--prompt-mode", "arg", "--max-iterations", "2"}
	c.want(append(base, "--no-run", "--", "sh", "-c", "sleep 1"), 0, "start the loop with 'ralph-watch resume prep'", "")
	if st := c.state("prep"); st.Status != state.Paused || st.CurrentIteration != 0 {
		t.Errorf("prepared loop: %s at %d", st.Status, st.CurrentIteration)
	}
	if got := c.srv.Option(pane, "@ralph-state"); got != "paused" {
		t.Errorf("@ralph-state = %q", got)
	}
	c.want(append(base, "--", "true"), 2, "", "loop 'prep' already exists (paused); use 'ralph-watch resume prep', --replace or --clean-state")
	c.want([]string{"resume", "prep"}, 0, "resumed ralph loop for prep", "")
	st := c.until("prep", "the loop to end", func(st *state.State) bool { return st.ExitReason != nil })
	if *st.ExitReason != "max_iterations" || st.CurrentIteration != 2 {
		t.Errorf("resumed prepared loop ended with %s at %d", *st.ExitReason, st.CurrentIteration)
	}
	// The watcher records the end, then gives the pane back and lets go of the loop.
	tmuxtest.Eventually(t, 10*time.Second, "the resumed watcher to exit", func() bool { return !alive(st.WatcherPID) })

	c.want(append(base, "--clean-state", "--", "true"), 0, "cleared ralph state for prep", "")

	agent := c.srv.FakeAgent("agent", "ready\nread\nprint old agent\nquiet\n")
	oldPane := c.detach("rep", append([]string{"--max-iterations", "5", "--"}, agent...)...)
	old := c.until("rep", "iteration 1", func(st *state.State) bool { return st.CurrentIteration == 1 })
	tmuxtest.Eventually(t, 30*time.Second, "the old agent to work", func() bool { return strings.Contains(c.srv.Capture(oldPane), "old agent") })
	c.want([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "rep", "--prompt-mode", "arg", "--max-iterations", "1", "--", "true"},
		2, "", "loop 'rep' is already running")
	c.want([]string{"run", "--replace", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "rep", "--prompt-mode", "arg", "--max-iterations", "1", "--", "true"},
		0, "replaced existing loop rep", "")
	tmuxtest.Eventually(t, 5*time.Second, "the old watcher to exit", func() bool { return !alive(old.WatcherPID) })
	tmuxtest.Eventually(t, 10*time.Second, "the old agent to be ended, its pane back at a shell", func() bool {
		return strings.TrimSpace(c.srv.Must("display", "-p", "-t", oldPane, "#{pane_dead} #{pane_current_command}")) == "0 "+endShell()
	})
	if st := c.state("rep"); st.CurrentIteration != 1 || *st.ExitReason != "max_iterations" {
		t.Errorf("replacement: %+v", st)
	}
}

func TestInitWritesThePromptTemplateOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_ = os.Remove(filepath.Join(c.srv.Dir, "PROMPT.md"))
	c.want([]string{"init"}, 0, "created PROMPT.md\n", "")
	data, _ := os.ReadFile(filepath.Join(c.srv.Dir, "PROMPT.md"))
	if string(data) != promptTemplate {
		t.Errorf("PROMPT.md = %q", data)
	}
	for _, want := range []string{"specs", "most important", "search", "plan", "tests", "Commit with", "Never push", "print RALPH_DONE on a\nline of its own"} {
		if !strings.Contains(promptTemplate, want) {
			t.Errorf("template lacks %q", want)
		}
	}
	if strings.Contains(promptTemplate, "Commit and push") {
		t.Error("the template asks the agent to push")
	}
	c.want([]string{"init"}, 1, "", "ralph-watch: error: PROMPT.md already exists (use --force to overwrite)")
	c.want([]string{"init", "--force"}, 0, "created PROMPT.md (overwritten)", "")
	if out := c.want([]string{"template"}, 0, "", ""); out != promptTemplate {
		t.Errorf("template printed %q", out)
	}
	// What init writes is a prompt run takes (UTF-8, the check at start).
	if _, err := prompt.Read(filepath.Join(c.srv.Dir, "PROMPT.md")); err != nil {
		t.Errorf("run refuses the prompt init wrote: %v", err)
	}
}

func TestLoopsOnTwoServersAtOnceKeepTheirOwnState(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	other := tmuxtest.Start(t)
	a := c.command(nil, "run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "one", "--prompt-mode", "arg", "--max-iterations", "3", "--restart-delay", "0", "--", "sh", "-c", "sleep 0.5")
	b := c.command(nil, "run", "-S", other.Socket, "-t", other.NewPane(), "--name", "two", "--prompt-mode", "arg", "--max-iterations", "2", "--restart-delay", "0", "--", "sh", "-c", "sleep 0.5")
	for _, cmd := range []*exec.Cmd{a, b} {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Wait(); err != nil {
		t.Errorf("one: %v", err)
	}
	if err := b.Wait(); err != nil {
		t.Errorf("two: %v", err)
	}
	one, two := c.state("one"), c.state("two")
	if one.TmuxSocket != c.srv.Socket || two.TmuxSocket != other.Socket || one.CurrentIteration != 3 || two.CurrentIteration != 2 {
		t.Errorf("one: %s at %d; two: %s at %d", one.TmuxSocket, one.CurrentIteration, two.TmuxSocket, two.CurrentIteration)
	}
	if strings.Contains(c.log("one"), "/2") || strings.Contains(c.log("two"), "/3") {
		t.Errorf("logs mixed:\n%s\n%s", c.log("one"), c.log("two"))
	}
}

// alive reports a process that exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

func TestLogsLiveFollowsUntilTheLoopEnds(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	// Iteration 1 waits for a message: the loop is surely running when resume is tried.
	agent := c.srv.FakeAgent("agent", "ready\nread\niter 1 print waiting for a message\niter 1 read\nsleep 1s\nexit 0\n")
	c.detach("tail", append([]string{"--max-iterations", "3", "--"}, agent...)...)
	c.until("tail", "iteration 1", func(st *state.State) bool { return st.CurrentIteration >= 1 })
	c.want([]string{"resume", "tail"}, 0, "", "ralph-watch: warning: loop 'tail' is not paused")
	tmuxtest.Eventually(t, 30*time.Second, "iteration 1 to wait for a message", func() bool {
		return strings.Contains(c.srv.Capture(c.state("tail").PaneID), "waiting for a message")
	})
	c.want([]string{"send", "tail", "go on"}, 0, "sent message to tail", "")
	out := c.want([]string{"logs", "--live", "tail"}, 0, "[START] iteration 1/3", "")
	for _, want := range []string{"[END] iteration 3 exit=0", "[DONE] loop complete after 3 iterations reason=max_iterations\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs --live lacks %q:\n%s", want, out)
		}
	}
	_ = os.Remove(filepath.Join(c.srv.Dir, "state", "tail", "iterations.log"))
	c.want([]string{"logs", "tail"}, 1, "", "ralph-watch: error: no iteration log found for loop 'tail'")
}

// Flags may follow the loop's name, as people type them, in every command
// that takes one; after "--" every word is an argument (here one too many).
func TestFlagsMayFollowTheLoopsName(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.runLoop("after", "--prompt-mode", "arg", "--max-iterations", "1", "--", "true")
	c.want([]string{"status", "after", "--json"}, 0, `"watcher_alive": false`, "")
	if last := c.want([]string{"logs", "after", "--tail", "1"}, 0, "", ""); strings.Count(last, "\n") != 1 || !strings.Contains(last, "[DONE]") {
		t.Errorf("logs after --tail 1: %q", last)
	}
	if last := c.want([]string{"logs", "after", "--lines", "2"}, 0, "", ""); strings.Count(last, "\n") != 2 {
		t.Errorf("logs after --lines 2: %q", last)
	}
	c.want([]string{"status", "after", "--bogus"}, 2, "", "flag provided but not defined: --bogus")
	c.want([]string{"status", "after", "--", "--json"}, 2, "", "")

	c.detach("busy", "--prompt-mode", "arg", "--max-iterations", "1", "--", "sh", "-c", "sleep 30")
	c.until("busy", "iteration 1", func(st *state.State) bool { return st.CurrentIteration == 1 })
	c.want([]string{"stop", "busy", "--kill"}, 0, "stopped ralph loop for busy", "")
	if st := c.state("busy"); st.ExitReason == nil || *st.ExitReason != "killed" {
		t.Errorf("stop busy --kill: reason %v, want killed", st.ExitReason)
	}
}

// A loop prepared with --no-run and never started is not running: clean
// removes it and says only that, its pane untouched.
func TestCleanRemovesAPreparedLoopWithoutCallingItRunning(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.srv.NewPane()
	c.want([]string{"run", "-S", c.srv.Socket, "-t", pane, "--name", "prep", "--no-run", "--", "sh", "-c", "sleep 1"}, 0, "start the loop with 'ralph-watch resume prep'", "")
	code, stdout, stderr := c.run(nil, "clean", "prep")
	if code != 0 || stdout != "cleaned ralph state for prep\n" || stderr != "" {
		t.Errorf("clean prep: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(c.srv.Dir, "state", "prep")); err == nil {
		t.Error("the prepared loop's state is still there")
	}
	if got := c.srv.Option(pane, "@ralph-state"); got != "" {
		t.Errorf("@ralph-state = %q after clean, want none", got)
	}
}
