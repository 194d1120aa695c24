package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
)

// fanAgent does the task its prompt names ("Make file-x"): writes file-x
// and, when the file share is beside it or the task has touches, shared.txt (its name alone, or,
// over a conflict, both sides without the markers); keeps the prompt and
// ticks the task's box (after the seconds the file slow beside it says; file-x made, while the file
// hold-file-x is beside it); told a check failed, it writes the file fixed.
const fanAgent = `f=$(printf %s "$1" | grep -o 'file-[a-z0-9]*' | head -1)
if [ -f "$(dirname "$0")/slow" ]; then sleep "$(cat "$(dirname "$0")/slow")"; fi
printf '%s\n' "$1" > "../prompt-$f-$RALPH_ITERATION"
echo "$f" > "$f"
while [ -f "$(dirname "$0")/hold-$f" ]; do sleep 0.2; done
if grep -q '^<<<<<<<' shared.txt; then grep -v '^[<=>]\{7\}' shared.txt > shared.new; mv shared.new shared.txt
elif [ -f "$(dirname "$0")/share" ] || printf %s "$1" | grep -q "touches:"; then echo "$f" > shared.txt; fi
if printf %s "$1" | grep -q 'fails the check'; then echo fixed > fixed; fi
sed -i "s/- \[ \] Make $f\$/- [x] Make $f/" PLAN.md`

// newFanRepo makes a repository with the plan and a prompt, committed.
func newFanRepo(c *cli, planText string) string {
	c.t.Helper()
	repo := filepath.Join(c.srv.Dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		c.t.Fatal(err)
	}
	for name, text := range map[string]string{"PLAN.md": planText, "PROMPT.md": "do the task\n", "shared.txt": "base\n"} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			c.t.Fatal(err)
		}
	}
	c.git(repo, "init", "-q", "-b", "main")
	c.git(repo, "add", "-A")
	c.git(repo, "commit", "-q", "-m", "start")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "agent.sh"), []byte(fanAgent), 0o755); err != nil {
		c.t.Fatal(err)
	}
	return repo
}

// share makes the scripted agent write shared.txt too.
func share(c *cli) {
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "share"), nil, 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// fanArgs runs a fan named name on repo's plan with the scripted agent.
func fanArgs(c *cli, name string, max string, extra ...string) []string {
	args := []string{"fan", "-S", c.srv.Socket, "--name", name, "--tasks", "repo/PLAN.md", "--max", max,
		"--restart-delay", "0", "--prompt-mode", "arg", "--max-iterations", "3"}
	return append(append(args, extra...), "--", "sh", filepath.Join(c.srv.Dir, "agent.sh"))
}

// fanEvents are the queue's history of fan name.
func fanEvents(c *cli, name string) []fan.Event {
	c.t.Helper()
	data, err := os.ReadFile(filepath.Join(c.srv.Dir, "state", "fans", name, "queue.jsonl"))
	if err != nil {
		c.t.Fatal(err)
	}
	var events []fan.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e fan.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			c.t.Fatalf("queue.jsonl line %q: %v", line, err)
		}
		events = append(events, e)
	}
	return events
}

func TestFanLandsFourTasksOneAtATimeEachAfterItsChecks(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "# Plan\n\n- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n- [ ] Make file-d\n")
	checked := filepath.Join(c.srv.Dir, "checked")
	c.wantEnv(gitEnv, fanArgs(c, "four", "2", "--check", "git log -1 --format=%s >> "+checked), 0, "4 of 4 tasks landed on ralph/fan-four", "")
	subjects := strings.Fields(strings.ReplaceAll(c.git(repo, "log", "--format=%s", "main..ralph/fan-four"), "Make ", "Make_"))
	if len(subjects) != 12 { // "Task N: Make_file-x", newest first
		t.Fatalf("the fan's branch holds %q, want four task commits", subjects)
	}
	if got := c.git(repo, "rev-list", "--merges", "main..ralph/fan-four"); got != "" {
		t.Errorf("the fan's branch has merges: %q", got)
	}
	for _, f := range []string{"file-a", "file-b", "file-c", "file-d"} {
		if got := strings.TrimSpace(c.git(repo, "show", "ralph/fan-four:"+f)); got != f {
			t.Errorf("%s on the fan's branch: %q", f, got)
		}
	}
	if got := c.git(repo, "show", "ralph/fan-four:PLAN.md"); strings.Count(got, "- [x]") != 4 {
		t.Errorf("the fan's plan is not ticked:\n%s", got)
	}
	log, _ := os.ReadFile(checked)
	landed := 0
	for _, e := range fanEvents(c, "four") {
		if e.Event != "landed" {
			continue
		}
		landed++
		subject := strings.TrimSpace(c.git(repo, "log", "-1", "--format=%s", e.Commit))
		if !strings.Contains(string(log), subject+"\n") {
			t.Errorf("landed %q without its check running on it; checks ran on:\n%s", subject, log)
		}
	}
	if landed != 4 {
		t.Errorf("%d tasks landed in queue.jsonl, want 4", landed)
	}
	c.want([]string{"status", "four"}, 0, "Tasks: 4 of 4 landed, 0 working, 0 queued, 0 waiting for review\n", "")
	if got := c.srv.Option("=four:fan", "@ralph-status"); got != "✓ 4/4 landed" {
		t.Errorf("the fan's status line reads %q", got)
	}
	c.want([]string{"status", "--json", "four"}, 0, `"state": "landed"`, "")
	if got := c.git(repo, "status", "--porcelain", "--untracked-files=no"); got != "" || c.git(repo, "branch", "--show-current") != "main\n" {
		t.Errorf("the person's working tree changed: %q", got)
	}
}

func TestFanSendsAConflictBackToItsLoopAndLandsItOnTheNextTry(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	share(c)
	c.wantEnv(gitEnv, fanArgs(c, "clash", "2"), 0, "2 of 2 tasks landed on ralph/fan-clash", "")
	var sentBack []fan.Event
	for _, e := range fanEvents(c, "clash") {
		if e.Event == "sent-back" {
			sentBack = append(sentBack, e)
		}
	}
	if len(sentBack) != 1 || !strings.Contains(sentBack[0].Why, "shared.txt") {
		t.Fatalf("sent back %+v, want one conflict in shared.txt", sentBack)
	}
	second := map[string]string{"1": "file-a", "2": "file-b"}[sentBack[0].Task]
	prompt, _ := os.ReadFile(filepath.Join(repo, ".ralph", "worktrees", "prompt-"+second+"-1"))
	if !strings.Contains(string(prompt), "conflicts with work landed since") || !strings.Contains(string(prompt), "shared.txt") {
		t.Errorf("the loop's next prompt lacks the conflict:\n%s", prompt)
	}
	if got := c.git(repo, "show", "ralph/fan-clash:shared.txt"); got != "file-a\nfile-b\n" && got != "file-b\nfile-a\n" {
		t.Errorf("shared.txt on the fan's branch: %q, want both tasks' lines", got)
	}
}

func TestFanKeepsTasksThatTouchOneFileApart(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n  touches: shared.txt\n- [ ] Make file-b\n  touches: *.txt\n- [ ] Make file-c\n")
	code, stdout, stderr := c.run(gitEnv, fanArgs(c, "apart", "3")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	landedA, startedB := strings.Index(stdout, "task 1 landed"), strings.Index(stdout, "works task 2")
	if landedA < 0 || startedB < landedA {
		t.Errorf("task 2 started before task 1, which touches its files, landed:\n%s", stdout)
	}
	if startedC := strings.Index(stdout, "works task 3"); startedC > landedA {
		t.Errorf("task 3, which touches nothing of theirs, waited:\n%s", stdout)
	}
	for _, e := range fanEvents(c, "apart") {
		if e.Event == "sent-back" {
			t.Errorf("a task was sent back: %+v", e)
		}
	}
	if got := c.git(repo, "show", "ralph/fan-apart:shared.txt"); got != "file-b\n" {
		t.Errorf("shared.txt on the fan's branch: %q", got)
	}
}

func TestFanSendsATaskWhoseCheckFailsOnTheBranchBackWithTheChecksOutput(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	check := `if [ -f file-a ] && [ -f file-b ] && [ ! -f fixed ]; then echo "file-a and file-b clash"; exit 1; fi`
	c.wantEnv(gitEnv, fanArgs(c, "checked", "2", "--check", check), 0, "2 of 2 tasks landed on ralph/fan-checked", "")
	var sentBack []fan.Event
	for _, e := range fanEvents(c, "checked") {
		if e.Event == "sent-back" {
			sentBack = append(sentBack, e)
		}
	}
	if len(sentBack) != 1 || !strings.Contains(sentBack[0].Why, "file-a and file-b clash") {
		t.Fatalf("sent back %+v, want one with the check's output", sentBack)
	}
	if got := c.git(repo, "show", "ralph/fan-checked:fixed"); got != "fixed\n" {
		t.Errorf("the fix did not land: %q", got)
	}
}

func TestRunTaskWorksOnlyTheTaskItNames(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "PLAN.md"), []byte("- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := `f=$(printf %s "$1" | grep -o 'file-[a-z]' | head -1); echo "$f" >> worked; sed -i "s/- \[ \] Make $f/- [x] Make $f/" PLAN.md`
	c.want([]string{"run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "one", "--restart-delay", "0", "--prompt-mode", "arg",
		"--max-iterations", "5", "--tasks", "PLAN.md", "--task", "2", "--", "sh", "-c", agent, "agent"}, 0, "task 2 done, stopping loop", "")
	if worked, _ := os.ReadFile(filepath.Join(c.srv.Dir, "worked")); string(worked) != "file-b\n" {
		t.Errorf("the loop worked on %q, want file-b alone", worked)
	}
	c.want([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--tasks", "PLAN.md", "--task", "9", "--", "sh"}, 2, "", "--task 9: the plan")
	c.want([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--task", "1", "--", "sh"}, 2, "", "--task needs --tasks FILE")
}

func TestAFanKilledMidwayAndStartedAgainLandsEveryTaskOnce(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n- [ ] Make file-d\n")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "slow"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := startFanReading(c, "landed on", fanArgs(c, "again", "2")...)
	_ = first.Process.Kill() // mid-fan: one task landed, loops at work
	_ = first.Wait()
	c.wantEnv(gitEnv, fanArgs(c, "again", "2"), 0, "4 of 4 tasks landed on ralph/fan-again", "")
	landed := map[string]int{}
	for _, e := range fanEvents(c, "again") {
		if e.Event == "landed" {
			landed[e.Task]++
		}
	}
	if len(landed) != 4 || landed["1"]+landed["2"]+landed["3"]+landed["4"] != 4 {
		t.Errorf("landed %v, want each of the four tasks once", landed)
	}
	if got := c.git(repo, "log", "--format=%s", "main..ralph/fan-again"); strings.Count(got, "Task ") != 4 || strings.Count(got, "Task 1:") != 1 {
		t.Errorf("the fan's branch has %q, want each of the four tasks once", got)
	}
}

func TestAFanIsPausedResumedAndStoppedAsOneAndStartedAgain(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n")
	// The loops work while they are steered, and their agents (which a stop
	// leaves running) past the fan started again: work they finished meanwhile
	// would stand in the worktree before the new loops' first iterations.
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "slow"), []byte("60"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := startFanReading(c, "works task 2", fanArgs(c, "steered", "2")...)
	for deadline := time.Now().Add(30 * time.Second); ; { // both loops' watchers have started
		_, status, _ := c.run(nil, "status", "steered")
		if strings.Contains(status, "Fan: steered, running") && strings.Contains(status, "  fan-steered-1: running") && strings.Contains(status, "  fan-steered-2: running") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fan's loops did not start:\n%s", status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.want([]string{"note", "steered", "mind the tests"}, 0, "note for the next iteration of fan-steered-", "")
	c.want([]string{"pause", "steered"}, 0, "", "")
	c.want([]string{"resume", "steered"}, 0, "", "")
	c.want([]string{"stop", "steered"}, 0, "stopped fan steered", "")
	var ee *exec.ExitError
	if err := first.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("the stopped fan ended with %v, want exit 130", err)
	}
	c.want([]string{"status", "steered"}, 0, "Fan: steered, stopped", "")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "slow"), []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.wantEnv(gitEnv, fanArgs(c, "steered", "2"), 0, "3 of 3 tasks landed on ralph/fan-steered", "")
	if got := strings.Count(c.git(repo, "log", "--format=%s", "main..ralph/fan-steered"), "Task "); got != 3 {
		t.Errorf("the fan's branch has %d task commits, want 3", got)
	}
}

func TestFanRefusesWhatItCannotDoBeforeAnythingStarts(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n")
	c.want([]string{"fan", "-S", c.srv.Socket, "--tasks", "repo/PLAN.md"}, 2, "", "fan needs a command to loop")
	c.want([]string{"fan", "-S", c.srv.Socket, "--", "sh"}, 2, "", "fan needs --tasks FILE")
	c.want([]string{"fan", "-S", c.srv.Socket, "--tasks", "repo/PLAN.md", "--max", "0", "--", "sh"}, 2, "", "--max and --merge-attempts must be at least 1")
	c.want([]string{"fan", "-S", c.srv.Socket, "--tasks", "repo/PLAN.md", "--task", "1", "--", "sh"}, 2, "", "flag provided but not defined: --task")
	c.want([]string{"fan", "-S", c.srv.Socket, "--tasks", "repo/PLAN.md", "--into", "main", "--", "sh"}, 2, "", "--into main: it is checked out in "+repo)
	if err := os.WriteFile(filepath.Join(repo, "PLAN.md"), []byte("- [ ] Make file-a\n- [ ] Make file-b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.want([]string{"fan", "-S", c.srv.Socket, "--tasks", "repo/PLAN.md", "--", "sh"}, 2, "", "commit the plan PLAN.md first")
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "PLAN.md"), []byte("- [ ] One\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.want([]string{"fan", "-S", c.srv.Socket, "--tasks", "PLAN.md", "--", "sh"}, 2, "", "fan needs a git repository")
	if got := c.git(repo, "branch", "--list"); got != "* main\n" {
		t.Errorf("a refused fan made branches: %q", got)
	}
}

func TestAFanStartedAgainAfterItEndedTakesUpTheTasksThatDidNotLand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	block := filepath.Join(c.srv.Dir, "block")
	if err := os.WriteFile(block, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	check := `if [ -f file-b ] && [ -f ` + block + ` ]; then echo blocked; exit 1; fi`
	c.wantEnv(gitEnv, fanArgs(c, "twice", "1", "--check", check), 3, "1 of 2 tasks landed on ralph/fan-twice", "")
	c.want([]string{"status", "twice"}, 0, "Tasks: 1 of 2 landed", "")
	if err := os.Remove(block); err != nil {
		t.Fatal(err)
	}
	c.wantEnv(gitEnv, fanArgs(c, "twice", "1", "--check", check), 0, "2 of 2 tasks landed on ralph/fan-twice", "")
	if got := c.git(repo, "log", "--format=%s", "main..ralph/fan-twice"); got != "Task 2: Make file-b\nTask 1: Make file-a\n" {
		t.Errorf("the fan's branch: %q", got)
	}
	for _, f := range []string{"file-a", "file-b"} {
		c.git(repo, "cat-file", "-e", "ralph/fan-twice:"+f)
	}
}
