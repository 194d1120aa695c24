package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// committingAgent is fanAgent that then commits as the template prompt
// asks: everything, its ticked plan line too, with a message of its own.
const committingAgent = fanAgent + `
git add -A && git -c user.name=agent -c user.email=agent@example.invalid commit -q -m "agent made $f"`

// fanWith writes agent as the fan's scripted agent.
func fanWith(c *cli, agent string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "agent.sh"), []byte(agent), 0o755); err != nil {
		c.t.Fatal(err)
	}
}

// The fan takes the agent's command after "--" as run does: its flags are
// the agent's (sh -c SCRIPT, claude -p), not the fan's.
func TestFanTakesAnAgentCommandWithFlagsAsRunDoes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	args := fanArgs(c, "flags", "2")
	args = append(args[:len(args)-2], "sh", "-e", "-c", fanAgent, "agent")
	c.wantEnv(gitEnv, args, 0, "2 of 2 tasks landed on ralph/fan-flags", "")
	for _, f := range []string{"file-a", "file-b"} {
		c.git(repo, "cat-file", "-e", "ralph/fan-flags:"+f)
	}
}

// Tasks on adjacent lines of the plan, each ticked and committed by its
// agent: each lands as its agent made it, its message kept, whichever
// neighbour's tick landed first.
func TestFanLandsAnAgentsCommitsAsMadeBesideANeighboursTick(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n- [ ] Make file-d\n")
	fanWith(c, committingAgent)
	c.wantEnv(gitEnv, fanArgs(c, "made", "2"), 0, "4 of 4 tasks landed on ralph/fan-made", "")
	got := strings.Fields(c.git(repo, "log", "--reverse", "--format=%s", "main..ralph/fan-made"))
	var subjects []string
	for i := 0; i+2 < len(got); i += 3 {
		subjects = append(subjects, strings.Join(got[i:i+3], " "))
	}
	if len(subjects) != 4 || len(got) != 12 {
		t.Fatalf("the fan's branch holds %q, want the four agents' commits", got)
	}
	for _, s := range subjects {
		if !strings.HasPrefix(s, "agent made file-") {
			t.Errorf("the fan's branch holds %q, want each commit as its agent made it:\n%s", s, strings.Join(subjects, "\n"))
		}
	}
	if plan := c.git(repo, "show", "ralph/fan-made:PLAN.md"); strings.Count(plan, "- [x]") != 4 || strings.Contains(plan, "<<<<") {
		t.Errorf("the fan's plan:\n%s", plan)
	}
}

// An agent that commits its tick, its task sent back for a failed check:
// the plan is the queue's in the hand-back as in the landing, the loop
// sent back works the task again and it lands.
func TestFanSendsBackATaskWhoseAgentCommittedItsTick(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n")
	fanWith(c, committingAgent)
	check := `if [ -f file-a ] && [ -f file-b ] && [ ! -f fixed ]; then echo "file-a and file-b clash"; exit 1; fi`
	c.wantEnv(gitEnv, fanArgs(c, "tick", "2", "--check", check), 0, "3 of 3 tasks landed on ralph/fan-tick", "")
	sentBack := 0
	for _, e := range fanEvents(c, "tick") {
		if e.Event == "sent-back" {
			sentBack++
		}
	}
	if sentBack != 1 {
		t.Errorf("%d tasks sent back, want 1", sentBack)
	}
	c.git(repo, "cat-file", "-e", "ralph/fan-tick:fixed")
	if plan := c.git(repo, "show", "ralph/fan-tick:PLAN.md"); plan != "- [x] Make file-a\n- [x] Make file-b\n- [x] Make file-c\n" {
		t.Errorf("the fan's plan:\n%s", plan)
	}
	c.want([]string{"status", "tick"}, 0, "Tasks: 3 of 3 landed", "")
}

// startFan starts a fan with args, its output in a file; wait waits for
// its end and returns its exit status and output.
func startFan(c *cli, args ...string) (wait func() (int, string)) {
	c.t.Helper()
	wait, _ = startFanPID(c, args...)
	return wait
}

// startFanPID is startFan, with the fan's pid.
func startFanPID(c *cli, args ...string) (wait func() (int, string), pid int) {
	c.t.Helper()
	out := filepath.Join(c.srv.Dir, "fan.out")
	f, err := os.Create(out)
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := c.command(gitEnv, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { _ = cmd.Wait(); f.Close(); close(ended) }()
	c.t.Cleanup(func() { _ = cmd.Process.Kill(); <-ended })
	return func() (int, string) {
		c.t.Helper()
		select {
		case <-ended:
		case <-time.After(120 * time.Second):
			_ = cmd.Process.Kill()
			<-ended
			data, _ := os.ReadFile(out)
			c.t.Fatalf("the fan did not end:\n%s", data)
		}
		data, _ := os.ReadFile(out)
		return cmd.ProcessState.ExitCode(), string(data)
	}, cmd.Process.Pid
}

// loopAtWork waits until loop name's agent is at work in its first
// iteration, and returns its state.
func loopAtWork(c *cli, name string) *state.State {
	c.t.Helper()
	var st *state.State
	tmuxtest.Eventually(c.t, 60*time.Second, name+" at work", func() bool {
		data, err := os.ReadFile(filepath.Join(c.srv.Dir, "state", name, "state.json"))
		st = &state.State{}
		return err == nil && json.Unmarshal(data, st) == nil && st.Status == state.Running &&
			st.WatcherPID > 0 && st.CurrentIteration == 1 && st.LastIterationStarted != "" && st.LastIterationEnded == ""
	})
	return st
}

// kill -9 of a fan loop's watcher mid-task: the fan takes the loop up in
// its own window, its agent left at work, and the task lands; no try of
// the task is lost and no other loop takes its window.
func TestAFanLoopWhoseWatcherIsKilledGoesOnInItsWindow(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "slow"), []byte("4"), 0o644); err != nil {
		t.Fatal(err)
	}
	wait := startFan(c, fanArgs(c, "lost", "2")...)
	st := loopAtWork(c, "fan-lost-1")
	pane := st.PaneID
	if err := syscall.Kill(st.WatcherPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code, out := wait()
	if code != 0 || !strings.Contains(out, "3 of 3 tasks landed on ralph/fan-lost") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "loop fan-lost-1 on task 1 lost its watcher: taken up in window 1") {
		t.Errorf("the fan did not say it took the loop up:\n%s", out)
	}
	if strings.Contains(out, "fan-lost-1-2") || strings.Contains(out, "skipped") {
		t.Errorf("task 1 went to another loop:\n%s", out)
	}
	wts := filepath.Join(repo, ".ralph", "worktrees")
	if _, err := os.Stat(filepath.Join(wts, "prompt-file-a-2")); err == nil {
		t.Errorf("task 1's agent was started again: its first was ended")
	}
	data, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "fan-lost-1", "state.json"))
	var after state.State
	if err := json.Unmarshal(data, &after); err != nil || after.PaneID != pane {
		t.Errorf("the loop went on in pane %q, want its own %s (%v)", after.PaneID, pane, err)
	}
	s, _ := fan.Load(filepath.Join(c.srv.Dir, "state", "fans", "lost"))
	if task := s.Task("1"); task == nil || task.Tries != 1 || task.Fails != 0 {
		t.Errorf("task 1 in the fan's record: %+v, want one loop and no failed try", task)
	}
}

// A fan window closed by the person: the fan says the pane was closed and
// a new loop takes the task up, a failed try of it.
func TestAFanWindowClosedIsOneFailedTryOfItsTask(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	// The first agents sleep long enough that the window is closed before
	// task 1's work is made (a closed loop's finished work is another story).
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "slow"), []byte("15"), 0o644); err != nil {
		t.Fatal(err)
	}
	wait := startFan(c, fanArgs(c, "shut", "2")...)
	loopAtWork(c, "fan-shut-1")
	c.srv.Must("kill-window", "-t", "=shut:loop-1")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "slow"), []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := wait()
	if code != 0 || !strings.Contains(out, "2 of 2 tasks landed on ralph/fan-shut") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "task 1 goes to a new loop: the pane of its loop fan-shut-1 was closed (1 of 3 tries failed)") ||
		!strings.Contains(out, "loop fan-shut-1-2 works task 1") {
		t.Errorf("the fan did not say the pane was closed and try the task again:\n%s", out)
	}
	c.git(repo, "cat-file", "-e", "ralph/fan-shut:file-a")
}

// A fan window closed after its agent made the task's work (file-a in the
// worktree, not yet ticked nor judged): the fan's next loop on the task
// counts the work made since the task began as its first iteration's
// change, so the tick of its agent, which finds the work made, stands and
// the task lands, not skipped for "nothing in the work tree changed".
func TestAFanWindowClosedAfterItsAgentMadeTheWorkLandsTheTask(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n")
	hold := filepath.Join(c.srv.Dir, "hold-file-a")
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wait := startFan(c, fanArgs(c, "made", "1", "--task-attempts", "2")...)
	work := filepath.Join(repo, ".ralph", "worktrees", "fan-made-1", "file-a")
	tmuxtest.Eventually(t, 60*time.Second, "task 1's work made in its worktree", func() bool {
		_, err := os.Stat(work)
		return err == nil
	})
	c.srv.Must("kill-window", "-t", "=made:loop-1")
	if err := os.Remove(hold); err != nil {
		t.Fatal(err)
	}
	code, out := wait()
	if code != 0 || !strings.Contains(out, "1 of 1 tasks landed on ralph/fan-made") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "task 1 goes to a new loop: the pane of its loop fan-made-1 was closed") ||
		!strings.Contains(out, "loop fan-made-1-2 works task 1") {
		t.Errorf("the fan did not say the pane was closed and give the task a new loop:\n%s", out)
	}
	if got := strings.TrimSpace(c.git(repo, "show", "ralph/fan-made:file-a")); got != "file-a" {
		t.Errorf("file-a on the fan's branch: %q", got)
	}
}

// fan --detach returns once the fan runs in the background, as run
// --detach does; the fan lands every task there, its lines in its log.
func TestFanDetachRunsTheFanInTheBackground(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	c.wantEnv(gitEnv, fanArgs(c, "bg", "2", "--detach"), 0, "[ralph] bg: fan running in the background (pid ", "")
	untilFanEnds(c, "bg")
	log, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "fans", "bg", "fan.log"))
	if !strings.Contains(string(log), "2 of 2 tasks landed on ralph/fan-bg") || strings.Count(string(log), "task 1 landed") != 1 {
		t.Errorf("the fan's log:\n%s", log)
	}
	c.git(repo, "cat-file", "-e", "ralph/fan-bg:file-b")
	c.want([]string{"status", "bg"}, 0, "Tasks: 2 of 2 landed", "")
}

// A fan interrupted (^C) says what it leaves running and how to take it
// up; restore takes it up and every task lands.
func TestAFanInterruptedSaysWhatRunsOnAndRestoreTakesItUp(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "slow"), []byte("3"), 0o644); err != nil {
		t.Fatal(err)
	}
	wait, pid := startFanPID(c, fanArgs(c, "int", "2")...)
	loopAtWork(c, "fan-int-1")
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, out := wait()
	if code != 130 || !strings.Contains(out, "[ralph] int: interrupted: its 2 loops run on (fan-int-1, fan-int-2)") ||
		!strings.Contains(out, "'ralph-watch restore int'") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	c.want([]string{"restore", "-S", c.srv.Socket, "int"}, 0, "restored fan int", "")
	if s := untilFanEnds(c, "int"); s == nil {
		t.Fatal("no record")
	}
	log, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "fans", "int", "fan.log"))
	if !strings.Contains(string(log), "3 of 3 tasks landed on ralph/fan-int") {
		t.Errorf("the fan's log:\n%s", log)
	}
	c.git(repo, "cat-file", "-e", "ralph/fan-int:file-c")
}

// fan | head: the pipe closed, the fan lands on, its lines in its log.
func TestAFanWhoseOutputPipeClosesLandsOn(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n")
	cmd := c.command(gitEnv, fanArgs(c, "pipe", "2")...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 1)
	for line[0] != '\n' { // the first line, as head -1 reads it
		if _, err := out.Read(line); err != nil {
			t.Fatal(err)
		}
	}
	_ = out.Close()
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	select {
	case err := <-ended:
		if err != nil {
			t.Errorf("the fan ended with %v, want exit 0", err)
		}
	case <-time.After(120 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the fan did not end")
	}
	log, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "fans", "pipe", "fan.log"))
	if !strings.Contains(string(log), "3 of 3 tasks landed on ralph/fan-pipe") {
		t.Errorf("the fan's log:\n%s", log)
	}
	c.git(repo, "cat-file", "-e", "ralph/fan-pipe:file-c")
}
