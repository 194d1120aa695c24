package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// twoIterationAgent takes two iterations of a second for its task
// ("Make file-x"): the first starts it, the second (or a later one) makes
// the file and ticks the box; each is a line "N FOLDER" in ../iterations-file-x.
const twoIterationAgent = `f=$(printf %s "$1" | grep -o 'file-[a-z0-9]*' | head -1)
echo "$RALPH_ITERATION $(pwd)" >> "../iterations-$f"
sleep 1
if [ "$RALPH_ITERATION" -ge 2 ]; then echo "$f" > "$f"; sed -i "s/- \[ \] Make $f\$/- [x] Make $f/" PLAN.md; fi`

// startFanReading starts a fan with args and reads its output until a line
// has want; the rest is read on, so that it never blocks.
func startFanReading(c *cli, want string, args ...string) *exec.Cmd {
	c.t.Helper()
	cmd := c.command(gitEnv, args...)
	cmd.Stderr = &bytes.Buffer{}
	out, err := cmd.StdoutPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() && !strings.Contains(lines.Text(), want) {
	}
	go func() {
		for lines.Scan() {
		}
	}()
	return cmd
}

// startFanUntil starts fan name and reads its output until a line has
// want, then until the first iteration of the task that makes file.
func startFanUntil(c *cli, name, want, file string, extra ...string) *exec.Cmd {
	c.t.Helper()
	cmd := startFanReading(c, want, fanArgs(c, name, "2", extra...)...)
	tmuxtest.Eventually(c.t, 30*time.Second, file+"'s first iteration", func() bool {
		_, err := os.Stat(filepath.Join(c.srv.Dir, "repo", ".ralph", "worktrees", "iterations-"+file))
		return err == nil
	})
	return cmd
}

// untilFanEnds waits for fan name's record to say it ended.
func untilFanEnds(c *cli, name string) *fan.State {
	c.t.Helper()
	dir := filepath.Join(c.srv.Dir, "state", "fans", name)
	var s *fan.State
	tmuxtest.Eventually(c.t, 90*time.Second, "fan "+name+" to end", func() bool {
		var err error
		s, err = fan.Load(dir)
		return err == nil && s.Ended && !fan.Running(dir)
	})
	return s
}

// wantLandedOnceInOrder checks that each of the tasks landed once, the
// fan's branch holding their commits in the order queue.jsonl says.
func wantLandedOnceInOrder(c *cli, repo, name string, files ...string) {
	c.t.Helper()
	var order []string
	for _, e := range fanEvents(c, name) {
		if e.Event == "landed" {
			order = append(order, strings.TrimSpace(c.git(repo, "log", "-1", "--format=%s", e.Commit)))
		}
	}
	branch := strings.Split(strings.TrimSpace(c.git(repo, "log", "--reverse", "--format=%s", "main..ralph/fan-"+name)), "\n")
	if strings.Join(order, "\n") != strings.Join(branch, "\n") || len(branch) != len(files) {
		c.t.Errorf("landed, in queue.jsonl:\n%s\non the fan's branch:\n%s\nwant each of %d tasks once, in one order", strings.Join(order, "\n"), strings.Join(branch, "\n"), len(files))
	}
	for _, f := range files {
		if got := strings.TrimSpace(c.git(repo, "show", "ralph/fan-"+name+":"+f)); got != f {
			c.t.Errorf("%s on the fan's branch: %q", f, got)
		}
	}
	if got := c.git(repo, "show", "ralph/fan-"+name+":PLAN.md"); strings.Count(got, "- [x]") != len(files) {
		c.t.Errorf("the fan's plan:\n%s", got)
	}
}

// As a reboot would: the fan's process, its loops' watchers and the tmux
// server all killed midway. restore brings the fan back in its session:
// each loop that was working goes on in its window, worktree and task at
// its next iteration, the queue takes up where it was, and every task
// lands once.
func TestRestoreBringsAFanBackAfterAReboot(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n- [ ] Make file-d\n- [ ] Make file-e\n")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "agent.sh"), []byte(twoIterationAgent), 0o755); err != nil {
		t.Fatal(err)
	}
	runner := startFanUntil(c, "boot", "works task 3", "file-c", "--max-iterations", "6")
	dir := filepath.Join(c.srv.Dir, "state", "fans", "boot")
	s, err := fan.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	_ = runner.Process.Kill()
	_ = runner.Wait()
	working := map[string]string{} // task: its loop at work
	for _, task := range s.Tasks {
		if _, err := os.Stat(filepath.Join(c.srv.Dir, "state", task.Loop, "state.json")); task.State != fan.Working || err != nil {
			continue // a loop just started has no state yet: the fan starts it again
		}
		if st := c.state(task.Loop); st.Status == "running" {
			working[task.ID] = task.Loop
			_ = syscall.Kill(st.WatcherPID, syscall.SIGKILL)
		}
	}
	if len(working) == 0 {
		t.Fatalf("no loop was at work when the fan was killed: %+v", s.Tasks)
	}
	c.srv.Kill()

	c.newServer()
	c.want([]string{"restore", "--dry-run", "-S", c.srv.Socket}, 0, "would restore fan boot (", "")
	if out := c.want([]string{"restore", "-S", c.srv.Socket}, 0, "restored fan boot: ", ""); strings.Contains(out, "re-armed") {
		t.Errorf("restore re-armed the fan's loops as single loops:\n%s", out)
	}
	c.want([]string{"restore", "-S", c.srv.Socket, "boot"}, 1, "", "cannot restore fan boot: it is running")
	tmuxtest.Eventually(t, 30*time.Second, "the fan's windows", func() bool {
		windows, _ := c.srv.Tmux("list-windows", "-t", "=boot", "-F", "#{window_name}")
		return strings.Contains(windows, "fan\n") && strings.Contains(windows, "loop-")
	})
	s = untilFanEnds(c, "boot")
	wantLandedOnceInOrder(c, repo, "boot", "file-a", "file-b", "file-c", "file-d", "file-e")
	for _, task := range s.Tasks {
		if loop, ok := working[task.ID]; ok && (task.Loop != loop || task.Tries != 1) {
			t.Errorf("task %s ended in loop %s, its try %d; want %s, brought back", task.ID, task.Loop, task.Tries, loop)
		}
		f := "file-" + strings.ToLower(string(rune('a'+task.ID[0]-'1')))
		log, _ := os.ReadFile(filepath.Join(repo, ".ralph", "worktrees", "iterations-"+f))
		last := 0
		for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
			word, folder, _ := strings.Cut(line, " ")
			n, _ := strconv.Atoi(word)
			if n <= last || folder != task.Worktree { // an iteration cut short is over: the next goes on from it
				t.Errorf("task %s's iterations:\n%s\nwant each once, rising, all in %s", task.ID, log, task.Worktree)
				break
			}
			last = n
		}
	}
	if out := c.want([]string{"restore", "-S", c.srv.Socket}, 0, "", ""); out != "" {
		t.Errorf("a restore after the fan ended said %q", out)
	}
}

// The tmux server killed under a fan that runs outside it: the fan stops
// where it is and says so; restore brings it back and every task lands once.
func TestAFanWhoseServerWasKilledStopsAndRestoreBringsItBack(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n- [ ] Make file-d\n")
	// The agents hold until the server is gone: its kill may take long enough for a free fan to finish.
	hold := filepath.Join(c.srv.Dir, "hold")
	agent := strings.Replace(twoIterationAgent, "sleep 1\n", "sleep 1\nwhile [ -f "+hold+" ]; do sleep 0.2; done\n", 1)
	for name, text := range map[string]string{"agent.sh": agent, "hold": ""} {
		if err := os.WriteFile(filepath.Join(c.srv.Dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runner := startFanUntil(c, "gone", "works task 2", "file-b", "--max-iterations", "6")
	c.srv.Kill()
	if err := os.Remove(hold); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if err := runner.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("the fan ended with %v, want exit 1", err)
	}
	if got := runner.Stderr.(*bytes.Buffer).String(); !strings.Contains(got, "fan gone: its tmux session is gone; 'ralph-watch restore' brings the fan back") {
		t.Errorf("the fan said: %q", got)
	}
	s, err := fan.Load(filepath.Join(c.srv.Dir, "state", "fans", "gone"))
	if err != nil {
		t.Fatal(err)
	}
	working := 0 // the loops the server took with it: restore takes them up, at work
	for _, task := range s.Tasks {
		if task.State == fan.Skipped {
			t.Errorf("task %s skipped when the server went: %s", task.ID, task.Why)
		}
		if task.State != fan.Working {
			continue
		}
		working++
		if _, err := os.Stat(filepath.Join(c.srv.Dir, "state", task.Loop, "state.json")); err == nil {
			st := c.until(task.Loop, "server_gone", func(st *state.State) bool { return st.ExitReason != nil && *st.ExitReason == "server_gone" })
			tmuxtest.Eventually(t, 30*time.Second, task.Loop+"'s watcher to exit", func() bool { return !alive(st.WatcherPID) })
		}
	}
	c.want([]string{"status", "gone"}, 0, "Fan: gone, not running (ralph-watch restore brings it back)", "")
	c.newServer()
	c.want([]string{"restore", "-S", c.srv.Socket, "gone"}, 0, fmt.Sprintf("restored fan gone: %d loops working, 0 tasks queued", working), "")
	untilFanEnds(c, "gone")
	wantLandedOnceInOrder(c, repo, "gone", "file-a", "file-b", "file-c", "file-d")
	c.want([]string{"restore", "-S", c.srv.Socket, "gone"}, 1, "", "cannot restore fan gone: it ended")
	c.want([]string{"restore", "-S", c.srv.Socket, "nosuch"}, 2, "", "restore: no fan named 'nosuch'")
	c.want([]string{"restore", "-S", c.srv.Socket, "fan-gone-1"}, 2, "", "restore: 'fan-gone-1' is a loop, not a fan: ralph-watch resume fan-gone-1 brings it back")
}

// A fan the person stopped stays stopped: restore leaves it be.
func TestRestoreLeavesAFanThePersonStopped(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	// Task 2 works on until the stop: a fan that ended first has nothing to leave stopped.
	agent := strings.Replace(twoIterationAgent, "sleep 1\n", "sleep 1\n[ \"$f\" = file-b ] && sleep 60\n", 1)
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "agent.sh"), []byte(agent), 0o755); err != nil {
		t.Fatal(err)
	}
	runner := startFanUntil(c, "halt", "works task 2", "file-b")
	c.want([]string{"stop", "halt"}, 0, "stopped fan halt", "")
	_ = runner.Wait()
	c.want([]string{"status", "halt"}, 0, "Fan: halt, stopped\n", "")
	c.want([]string{"restore", "-S", c.srv.Socket, "halt"}, 1, "", "cannot restore fan halt: it was stopped: start it again with ralph-watch fan")
	if out := c.want([]string{"restore", "-S", c.srv.Socket}, 0, "", ""); out != "" {
		t.Errorf("restore said %q", out)
	}
}

// restore starts no fan whose agent needs a secret this environment lacks:
// its loops would start without it.
func TestRestoreRefusesAFanWhoseSecretIsNotInTheEnvironment(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := filepath.Join(c.srv.Dir, "state", "fans", "keyed")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s := &fan.State{Name: "keyed", Repo: c.srv.Dir, Plan: "PLAN.md", Into: "ralph/fan-keyed", Max: 1, Socket: c.srv.Socket, Dir: c.srv.Dir,
		Args: []string{"fan", "-S", c.srv.Socket, "--name", "keyed", "--tasks", "PLAN.md", "--", "env", "ANTHROPIC_API_KEY=…", "agent"}}
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	c.want([]string{"restore", "-S", c.srv.Socket, "keyed"}, 1, "", "cannot restore fan keyed: the agent's command needs ANTHROPIC_API_KEY, whose value is kept in memory only and is not in this environment: export ANTHROPIC_API_KEY=…, then ralph-watch restore keyed\n")
	if out := c.want([]string{"restore", "--dry-run", "-S", c.srv.Socket}, 0, "", ""); out != "" {
		t.Errorf("restore would restore %q", out)
	}
	c.wantEnv([]string{"ANTHROPIC_API_KEY=" + secret}, []string{"restore", "--dry-run", "-S", c.srv.Socket}, 0, "would restore fan keyed (0 loops working, 0 tasks queued)\n", "")
}
