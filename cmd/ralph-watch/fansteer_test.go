package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The person steers a fan by its name while its first loop works: a
// sticky note reaches every prompt of the loops started after it, a
// once-note the working loop ended without carrying reaches the next loop
// started, and the limits set reach the loops started later; each command
// answers for the fan.
func TestNotesAndLimitsGivenToAFanReachTheLoopsItStartsAfterThem(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "slow"), []byte("8"), 0o644); err != nil { // task 1's iteration outlasts the commands
		t.Fatal(err)
	}
	cmd := startFanReading(c, "works task 1", fanArgs(c, "fs", "1")...)
	c.until("fan-fs-1", "its first iteration", func(st *state.State) bool { return st.CurrentIteration >= 1 })
	c.want([]string{"note", "--sticky", "fs", "STICKY-NOTE"}, 0, "note for every iteration of fan fs's loops", "")
	c.want([]string{"note", "fs", "ONCE-NOTE"}, 0, "note for the next iteration of fan-fs-1 (fan fs's loops at work", "")
	c.want([]string{"set", "--max-iterations", "+5", "fs"}, 0, "fan fs: max-iterations 8 for the loops it starts", "")
	c.want([]string{"resume", "--max-iterations", "+10", "fs"}, 0, "fan fs: max-iterations 18 for its loops at work and those it starts", "")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "slow"), []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the fan ended with %v", err)
	}
	read := func(f string) string {
		data, _ := os.ReadFile(filepath.Join(repo, ".ralph", "worktrees", "prompt-"+f+"-1"))
		return string(data)
	}
	if got := read("file-a"); strings.Contains(got, "NOTE") {
		t.Errorf("task 1's prompt, given before the notes, has one:\n%s", got)
	}
	for _, f := range []string{"file-b", "file-c"} {
		if got := read(f); !strings.Contains(got, "STICKY-NOTE") {
			t.Errorf("the sticky note is not in %s's prompt:\n%s", f, got)
		}
	}
	if got := read("file-b") + read("file-c"); strings.Count(got, "ONCE-NOTE") != 1 || !strings.Contains(read("file-b"), "ONCE-NOTE") {
		t.Errorf("the once-note, which task 1's loop ended without, is not in the next loop's prompt once:\n%s", got)
	}
	for _, loop := range []string{"fan-fs-2", "fan-fs-3"} {
		if st := c.state(loop); st.MaxIterations != 18 {
			t.Errorf("%s ran with max-iterations %d, want 18", loop, st.MaxIterations)
		}
	}
	c.want([]string{"status", "fs"}, 0, "Set for the loops it starts: max-iterations 18\nNote for every iteration (sticky): STICKY-NOTE\n", "")
	c.want([]string{"note", "--clear", "fs"}, 0, "notes of fan fs cleared", "")
	if s, err := fan.Load(filepath.Join(c.srv.Dir, "state", "fans", "fs")); err != nil || len(s.Notes) != 0 || s.Limit() != 18 {
		t.Errorf("the fan's record after the clear: %+v, %v", s, err)
	}
}

// What a fan keeps in the repository (its worktrees, the queue's) is
// ignored by git without the person's .gitignore: their checkout's status
// stays clean and git add -A finds no embedded repository; a .ralph/config
// the person writes still shows, to be committed.
func TestAFanLeavesThePersonsCheckoutClean(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	c.wantEnv(gitEnv, fanArgs(c, "clean", "2"), 0, "2 of 2 tasks landed on ralph/fan-clean", "")
	if got := c.git(repo, "status", "--porcelain"); got != "" {
		t.Errorf("git status of the person's checkout after the fan:\n%s", got)
	}
	add := exec.Command("git", "-C", repo, "add", "-A", "--dry-run")
	if out, err := add.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("git add -A after the fan: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(repo, ".gitignore")); err == nil {
		t.Errorf("the fan wrote the person's .gitignore")
	}
	if err := os.WriteFile(filepath.Join(repo, ".ralph", "config"), []byte("inactivity-timeout 60s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := c.git(repo, "status", "--porcelain", "--untracked-files=all"); got != "?? .ralph/config\n" {
		t.Errorf("git status with the person's .ralph/config: %q, want it shown", got)
	}
}

// logs, tasks and clean given a fan's name: the fan's log with its loops'
// [TASK] lines in order, its plan as its branch has it with where each
// task stands, and the worktrees and branches of its landed tasks removed
// while a task's that did not land stays.
func TestLogsTasksAndCleanOfAFan(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	check := `if [ -f file-b ]; then echo "file-b is refused"; exit 1; fi` // task 2's loop never gets it done
	c.wantEnv(gitEnv, fanArgs(c, "life", "1", "--check", check), 3, "1 of 2 tasks landed on ralph/fan-life", "")
	logs := c.want([]string{"logs", "life"}, 0, "[TASK] fan-life-1: iteration 1 task 1 implement", "")
	works, worked, landed := strings.Index(logs, "loop fan-life-1 works task 1"), strings.Index(logs, "[TASK] fan-life-1: iteration 1 task 1"), strings.Index(logs, "task 1 landed on ralph/fan-life")
	// Lines of one second keep no order between the fan's log and a loop's: the loops' [TASK] lines are
	// checked to be there; the fan's own lines in their order.
	if works < 0 || worked < 0 || landed < works || !strings.Contains(logs, "task 2 skipped") {
		t.Errorf("logs of the fan, out of order or short:\n%s", logs)
	}
	if got := c.want([]string{"logs", "--lines", "1", "life"}, 0, "", ""); strings.Count(got, "\n") != 1 {
		t.Errorf("logs --lines 1 of the fan: %q", got)
	}
	tasks := c.want([]string{"tasks", "life"}, 0, "PLAN.md on ralph/fan-life", "")
	for _, want := range []string{"Fan life:", "landed", "skipped  fan-life-2"} {
		if !strings.Contains(tasks, want) {
			t.Errorf("tasks of the fan lacks %q:\n%s", want, tasks)
		}
	}
	clean := c.want([]string{"clean", "life"}, 0, "removed branch ralph/fan-life-1", "")
	if !strings.Contains(clean, "kept task 2 (skipped)") {
		t.Errorf("clean of the fan did not say it kept task 2's work:\n%s", clean)
	}
	if got := c.git(repo, "branch", "--format=%(refname:short)"); got != "main\nralph/fan-life\nralph/fan-life-2\n" {
		t.Errorf("branches after clean:\n%s", got)
	}
	if got := c.git(repo, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 2 || !strings.Contains(got, "fan-life-2") {
		t.Errorf("worktrees after clean:\n%s", got)
	}
	c.want([]string{"status", "life"}, 0, "Tasks: 1 of 2 landed", "")
}

// The fan's process killed while both its loops work, and the loops finish
// before restore: restore says they ended meanwhile (not "working"), the
// fan taken up says so once each in its log, and lands both. Meanwhile
// each loop's status-line entry names its task, and the fan's shows what
// landed.
func TestRestoreTakesUpAFanWhoseLoopsEndedMeanwhile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "slow"), []byte("3"), 0o644); err != nil {
		t.Fatal(err)
	}
	runner := startFanReading(c, "works task 2", fanArgs(c, "rs", "2")...)
	tmuxtest.Eventually(t, 30*time.Second, "the loops' status-line entries", func() bool {
		return strings.HasSuffix(c.srv.Option("=rs:loop-1", "@ralph-status"), "· task 1") &&
			strings.HasSuffix(c.srv.Option("=rs:loop-2", "@ralph-status"), "· task 2")
	})
	if got := c.srv.Option("=rs:fan", "@ralph-status"); got != "⟳ 2 loops · 0/2 landed" {
		t.Errorf("the fan's status-line entry reads %q", got)
	}
	_ = runner.Process.Kill()
	_ = runner.Wait()
	for _, loop := range []string{"fan-rs-1", "fan-rs-2"} {
		st := c.until(loop, "to end", func(st *state.State) bool { return st.Status == "stopped" })
		tmuxtest.Eventually(t, 30*time.Second, loop+"'s watcher to exit", func() bool { return !alive(st.WatcherPID) })
	}
	c.want([]string{"restore", "-S", c.srv.Socket}, 0, "restored fan rs: 0 loops working, 2 ended meanwhile, 0 tasks queued", "")
	if s := untilFanEnds(c, "rs"); s.Task("1").State != fan.Landed || s.Task("2").State != fan.Landed {
		t.Errorf("after restore: %+v", s.Tasks)
	}
	log, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "fans", "rs", "fan.log"))
	for _, line := range []string{"loop fan-rs-1 on task 1 taken up", "loop fan-rs-2 on task 2 taken up", "2 of 2 tasks landed"} {
		if n := strings.Count(string(log), line); n != 1 {
			t.Errorf("the fan's log has %q %d times:\n%s", line, n, log)
		}
	}
	if got := c.srv.Option("=rs:fan", "@ralph-status"); got != "✓ 2/2 landed" {
		t.Errorf("the ended fan's status-line entry reads %q", got)
	}
	wantLandedOnceInOrder(c, repo, "rs", "file-a", "file-b")
}

// A command of one loop given a fan's name answers for the fan: it takes a
// loop, and it names the fan's loops at work.
func TestACommandOfOneLoopGivenAFansNameSaysItIsAFan(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := filepath.Join(c.srv.Dir, "state", "fans", "fk")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s := &fan.State{Name: "fk", Max: 2, Tasks: []fan.Task{{ID: "1", State: fan.Working, Slot: 1, Loop: "fan-fk-1"}, {ID: "2", State: fan.Open}}}
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"skip", "fk"}, {"retry", "fk"}, {"send", "fk", "hello"}, {"replay", "fk"}} {
		c.want(args, 2, "", args[0]+" takes a loop, and 'fk' is a fan: give one of its loops (at work: fan-fk-1)")
	}
}
