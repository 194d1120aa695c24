package watch_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

const threeTasks = "# Plan\n\n- [ ] Add the parser\n- [ ] Add the command\n- [ ] Write the docs\n"

// planned is a unit loop working through plan (written to PLAN.md) with
// MaxIterations 20; its agent does what step says in each iteration.
func planned(t *testing.T, plan string, step func(u *unit, n int, prompt string)) *unit {
	t.Helper()
	var u *unit
	u = newUnit(t, "Work on the plan.\n", func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) {
			step(u, n, input)
			term.Exit(0)
		})
	})
	u.cfg.TasksFile = filepath.Join(u.cfg.Dir, "PLAN.md")
	u.cfg.TaskAttempts, u.cfg.ReviewCap, u.cfg.DiffChars = 3, 5, 20000
	u.cfg.MaxIterations = 20
	u.writePlan(plan)
	return u
}

func (u *unit) writePlan(text string) {
	u.t.Helper()
	if err := os.WriteFile(u.cfg.TasksFile, []byte(text), 0o644); err != nil {
		u.t.Fatal(err)
	}
}

func (u *unit) readPlan() string {
	u.t.Helper()
	data, err := os.ReadFile(u.cfg.TasksFile)
	if err != nil {
		u.t.Fatal(err)
	}
	return string(data)
}

// tick marks done the task the prompt names, as an agent does.
func (u *unit) tick(prompt string) {
	lines := strings.SplitAfter(u.readPlan(), "\n")
	for i, l := range lines {
		if title, ok := strings.CutPrefix(strings.TrimSpace(l), "- [ ] "); ok && strings.Contains(prompt, title) {
			lines[i] = strings.Replace(l, "- [ ]", "- [x]", 1)
			break
		}
	}
	u.writePlan(strings.Join(lines, ""))
}

// work writes a file in the work tree: a change the loop can see.
func (u *unit) work(n int) {
	if err := os.WriteFile(filepath.Join(u.cfg.Dir, "work-"+strconv.Itoa(n)), []byte("work"), 0o644); err != nil {
		u.t.Error(err)
	}
}

func (u *unit) taskItem(id string) state.TaskItem {
	u.t.Helper()
	st := u.state()
	if st.Tasks == nil || st.Tasks.Item(id) == nil {
		u.t.Fatalf("state.json has no task %s: %+v", id, st.Tasks)
	}
	return *st.Tasks.Item(id)
}

func TestUnitTasksAnAgentThatTicksHonestlyGetsThroughThePlanOneTaskAnIteration(t *testing.T) {
	u := planned(t, threeTasks, func(u *unit, n int, prompt string) {
		u.work(n)
		u.tick(prompt)
	})
	u.cfg.ProgressFile = filepath.Join(u.cfg.Dir, "progress.md")
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	if data, _ := os.ReadFile(u.cfg.ProgressFile); strings.Count(string(data), "- Task: task ") != 3 || !strings.Contains(string(data), "- Task: task 2 done\n") {
		t.Errorf("the progress file lacks each task's verdict:\n%s", data)
	}
	rs, _ := receipt.Load(u.store.Path(state.ReceiptsFile))
	if len(rs) != 3 || rs[0].Task != "1" || rs[2].Task != "3" {
		t.Errorf("receipts = %+v, want each with its task", rs)
	}
	if got := len(u.started()); got != 3 {
		t.Errorf("the agent started %d times, want 3 (one task an iteration)", got)
	}
	pastes := u.pastes()
	for i, want := range []string{"Add the parser", "Add the command", "Write the docs"} {
		if i >= len(pastes) || !strings.Contains(pastes[i], want) || !strings.Contains(pastes[i], u.cfg.TasksFile) {
			t.Errorf("prompt %d lacks its task %q and the plan file; prompts: %q", i+1, want, pastes)
		}
	}
	for i, id := range []string{"1", "2", "3"} {
		item := u.taskItem(id)
		if item.State != "done" || item.Attempts != 1 || len(item.Iterations) != 1 || item.Iterations[0] != i+1 {
			t.Errorf("task %s = %+v, want done in iteration %d, one attempt", id, item, i+1)
		}
	}
	if st := u.state(); st.Tasks.Done != 3 || st.Tasks.Open != 0 || st.Tasks.Total != 3 {
		t.Errorf("tasks = %+v, want 3 of 3 done", st.Tasks)
	}
	u.wantLog("[TASK] iteration 1 task 1 done", "[TASK] iteration 2 task 2 done", "[TASK] iteration 3 task 3 done", "reason=tasks_done")
	if got := u.tmux.Calls("set-option"); len(got) == 0 || !strings.Contains(strings.Join(u.options(), "\n"), "@ralph-status=✓ 3/20 · 3/3") {
		t.Errorf("the status line never showed the tasks: %q", u.options())
	}
}

func TestUnitTasksATickWithNoWorkIsReopenedAndTheTaskSkipped(t *testing.T) {
	u := planned(t, threeTasks, func(u *unit, n int, prompt string) {
		u.tick(prompt) // and nothing else
	})
	u.cfg.TaskAttempts = 2
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
	if got := u.readPlan(); got != threeTasks {
		t.Errorf("plan = %q, want it as it was: every tick reopened", got)
	}
	if got := len(u.started()); got != 6 {
		t.Errorf("the agent started %d times, want 6 (3 tasks, 2 attempts each)", got)
	}
	if p := u.pastes(); len(p) < 2 || !strings.Contains(p[1], "Task 1 was marked done, but nothing in the work tree changed") {
		t.Errorf("the second prompt does not say why the tick was rejected: %q", p)
	}
	item := u.taskItem("1")
	if item.State != "skipped" || item.Attempts != 2 || len(item.Verdicts) != 2 || item.Verdicts[0].Verdict != "rejected" {
		t.Errorf("task 1 = %+v, want skipped after 2 rejected attempts", item)
	}
	u.wantLog("[TASK] iteration 1 task 1 reopened", "[TASK] iteration 1 task 1 rejected: marked done, but nothing in the work tree changed",
		"[TASK] iteration 2 task 1 skipped: not done after 2 attempts", "reason=tasks_skipped skipped=1,2,3")
	u.wantOutput("no task left open; 0 done, skipped: 1, 2, 3")
}

func TestUnitTasksATickWithAFailingCheckIsRejected(t *testing.T) {
	u := planned(t, "- [ ] Only task\n", func(u *unit, n int, prompt string) {
		u.work(n)
		if n == 1 {
			u.work(0) // work-0 breaks the check
		} else {
			_ = os.Remove(filepath.Join(u.cfg.Dir, "work-0"))
		}
		u.tick(prompt)
	})
	u.cfg.Checks = []checks.Check{{Command: "test ! -e work-0"}}
	u.cfg.CheckTimeout, u.cfg.CheckOutputChars = 10e9, 1000
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	if p := u.pastes(); len(p) != 2 || !strings.Contains(p[1], `Task 1 was marked done, but "test ! -e work-0" failed`) {
		t.Errorf("prompts = %q, want the second to say the check failed", p)
	}
	item := u.taskItem("1")
	if item.Attempts != 2 || len(item.Verdicts) != 2 || item.Verdicts[0].Verdict != "rejected" || item.Verdicts[1].Verdict != "done" {
		t.Errorf("task 1 = %+v, want rejected then done", item)
	}
}

func TestUnitTasksAnAgentThatNeverTicksIsNotDoneByItsWord(t *testing.T) {
	u := planned(t, "- [ ] Only task\n", func(u *unit, n int, prompt string) {
		u.work(n)
		_ = os.WriteFile(u.cfg.DoneFile, nil, 0o644) // says it is done; the plan says otherwise
	})
	u.cfg.DoneFile = filepath.Join(u.cfg.Dir, "DONE")
	u.cfg.DonePattern = regexp.MustCompile(`never printed`)
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
	if got := len(u.started()); got != 3 {
		t.Errorf("the agent started %d times, want 3 (--task-attempts)", got)
	}
	lines := strings.Join(u.logLines(), "\n")
	if n := strings.Count(lines, "done signal ignored"); n != 1 {
		t.Errorf("the log says %d times that the done signal is ignored, want once:\n%s", n, lines)
	}
	u.wantLog("task 1 rejected: it was not marked done", "task 1 skipped: not done after 3 attempts")
}

func TestUnitTasksTheAgentsOtherEditsOfThePlanStayAndOnlyItsTickIsReopened(t *testing.T) {
	u := planned(t, threeTasks, func(u *unit, n int, prompt string) {
		if n == 1 {
			u.writePlan(strings.Replace(strings.Replace(u.readPlan(), "- [ ]", "- [x]", 1), "Write the docs", "Write the docs (and a man page)", 1) + "\nNotes: the parser is hard.\n")
		}
	})
	u.cfg.MaxIterations = 1
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	want := "# Plan\n\n- [ ] Add the parser\n- [ ] Add the command\n- [ ] Write the docs (and a man page)\n\nNotes: the parser is hard.\n"
	if got := u.readPlan(); got != want {
		t.Errorf("plan =\n%s\nwant the agent's edits kept and only its tick reopened:\n%s", got, want)
	}
}

// options are the pane options the loop set, NAME=VALUE.
func (u *unit) options() []string {
	var opts []string
	for _, c := range u.tmux.Calls("set-option") {
		opts = append(opts, c.Args...)
	}
	return opts
}

func TestUnitTasksTheDiffPlaceholderHasTheWorkSinceTheLoopStartedCutAtDiffChars(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	u := planned(t, threeTasks, func(u *unit, n int, prompt string) {
		_ = os.WriteFile(filepath.Join(u.cfg.Dir, "work.txt"), []byte(strings.Repeat("line of work "+strconv.Itoa(n)+"\n", 10*n)), 0o644)
		u.tick(prompt)
	})
	u.writePrompt("Task {{task_id}} ({{mode}}, attempt {{attempt}}, {{tasks_left}} left):\n{{task}}\nSo far:\n{{diff}}")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", u.cfg.Dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	_ = os.WriteFile(filepath.Join(u.cfg.Dir, ".gitignore"), []byte("state/\n"), 0o644)
	u.cfg.DiffChars = 300
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	p := u.pastes()
	if len(p) != 3 {
		t.Fatalf("prompts = %q", p)
	}
	if !strings.HasPrefix(p[0], "Task 1 (implement, attempt 1, 3 left):\n- [ ] Add the parser\nSo far:\n") || strings.Contains(p[0], "Work on one task") {
		t.Errorf("prompt 1 = %q, want the placeholders filled and no block appended", p[0])
	}
	if !strings.Contains(p[1], "+line of work 1") || strings.Contains(p[1], "PLAN.md") {
		t.Errorf("prompt 2 = %q, want the diff of iteration 1's work, the plan left out", p[1])
	}
	if !strings.Contains(p[2], "+line of work 2") || !strings.Contains(p[2], "[… diff cut at 300 characters of ") {
		t.Errorf("prompt 3 = %q, want the diff cut at 300 characters with a marker", p[2])
	}
}

func (u *unit) writePrompt(text string) {
	u.t.Helper()
	if err := os.WriteFile(u.cfg.PromptFile, []byte(text), 0o644); err != nil {
		u.t.Fatal(err)
	}
}

func TestUnitTasksAResumedLoopKeepsItsTasksRecord(t *testing.T) {
	var u *unit
	u = newUnit(t, "Work on the plan.\n", func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) {
			u.work(n)
			u.tick(input)
			if n == 1 {
				term.Exit(contract.ExitPause) // the agent pauses the loop
				return
			}
			term.Exit(0)
		})
	})
	u.cfg.TasksFile = filepath.Join(u.cfg.Dir, "PLAN.md")
	u.cfg.TaskAttempts, u.cfg.ReviewCap, u.cfg.DiffChars, u.cfg.MaxIterations = 3, 5, 20000, 10
	u.writePlan(threeTasks)
	u.wantResult(u.run(), contract.ExitInterrupted, "paused")
	if item := u.taskItem("1"); item.State != "done" || item.Iterations[0] != 1 {
		t.Fatalf("task 1 before the resume = %+v", item)
	}
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	for i, id := range []string{"1", "2", "3"} {
		if item := u.taskItem(id); item.State != "done" || len(item.Iterations) != 1 || item.Iterations[0] != i+1 {
			t.Errorf("task %s = %+v, want done in iteration %d", id, item, i+1)
		}
	}
}

func TestUnitTasksAnIterationAUsageLimitGivesBackIsNoTry(t *testing.T) {
	reset := unitStart.Add(2 * time.Hour)
	u := planned(t, "- [ ] Only task\n", func(u *unit, n int, prompt string) {})
	u.launch(func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) {
			if n == 1 { // limited at its prompt
				term.Write(limitText(reset))
				return
			}
			u.work(n)
			u.tick(input)
			term.Exit(0)
		})
	})
	u.cfg.Agent = knownAgent()
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	if item := u.taskItem("1"); item.Attempts != 1 || len(item.Iterations) != 1 || item.Iterations[0] != 1 {
		t.Errorf("task 1 = %+v, want one try in iteration 1 (the limited one given back)", item)
	}
}

func TestUnitTasksAPlanOfFiveThousandTasksTakesLittleTimeAnIteration(t *testing.T) {
	var plan strings.Builder
	plan.WriteString("# Plan\n\n")
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&plan, "- [ ] Task number %d\n", i)
	}
	u := planned(t, plan.String(), func(u *unit, n int, prompt string) {
		u.work(n)
		u.tick(prompt)
	})
	u.cfg.MaxIterations = 3
	begun := time.Now()
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	// Under a second alone, and ten times that beside make test's other
	// packages: a generous bound, which only a plan read far too slowly fails.
	if took := time.Since(begun); took > time.Minute {
		t.Errorf("3 iterations of a 5,000-task plan took %s", took)
	}
	if st := u.state(); st.Tasks.Total != 5000 || st.Tasks.Done != 3 {
		t.Errorf("tasks = %d of %d done, want 3 of 5000", st.Tasks.Done, st.Tasks.Total)
	}
}

func TestUnitTasksAPlanTheAgentBreaksIsToldAndTheLastReadingStays(t *testing.T) {
	const prd = `{"userStories": [{"id": "S1", "title": "Only story", "passes": false}]}` + "\n"
	u := planned(t, prd, func(u *unit, n int, prompt string) {
		u.work(n)
		if n == 1 {
			u.writePlan(`{"userStories": [{"id": "S1", "title": "Only story", "passes": true},]}`)
			return
		}
		u.writePlan(strings.Replace(prd, `"passes": false`, `"passes": true`, 1))
	})
	u.cfg.TasksFile = filepath.Join(u.cfg.Dir, "prd.json")
	u.writePlan(prd)
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	p := u.pastes()
	if len(p) != 2 || !strings.Contains(p[1], "The plan "+u.cfg.TasksFile+" cannot be read") || !strings.Contains(p[1], "Only story") {
		t.Errorf("prompts = %q, want the second to say the plan cannot be read, and name the task", p)
	}
	u.wantLog("task S1 rejected: the plan cannot be read", "task S1 done")
}

func TestUnitTasksADoneTokenWithTasksOpenDoesNotEndTheLoop(t *testing.T) {
	u := planned(t, threeTasks, nil)
	u.launch(func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) {
			if n == 1 {
				u.work(n)
				u.tick(input)
			}
			term.Write("All done!\nRALPH_DONE\n") // every time, whatever it did
			term.Exit(0)
		})
	})
	u.cfg.DonePattern = regexp.MustCompile(`^RALPH_DONE$`)
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	if got := len(u.started()); got != 3 {
		t.Errorf("the agent started %d times, want 3: its token never ends a loop with open tasks", got)
	}
	if n := strings.Count(strings.Join(u.logLines(), "\n"), "done signal ignored"); n != 1 {
		t.Errorf("the log says %d times that the done signal is ignored, want once", n)
	}
}

// An agent that ticks its task and writes a new one above it: its task is
// done, the new one is not taken for it (nor reopened as another's tick).
func TestUnitTasksATaskTheAgentInsertsAboveKeepsTheOthersTheirIDs(t *testing.T) {
	u := planned(t, threeTasks, func(u *unit, n int, prompt string) {
		u.work(n)
		u.tick(prompt)
		if n == 1 {
			u.writePlan(strings.Replace(u.readPlan(), "- [x] Add the parser", "- [ ] Set up the module\n- [x] Add the parser", 1))
		}
	})
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	u.wantLog("[TASK] iteration 1 task 1 done")
	if log := strings.Join(u.logLines(), "\n"); strings.Contains(log, "reopen") {
		t.Errorf("the loop reopened a task the agent did honestly:\n%s", log)
	}
	if item := u.taskItem("1"); item.Title != "Add the parser" || item.Attempts != 1 {
		t.Errorf("task 1 = %+v, want the parser's, done in one attempt", item)
	}
	if item := u.taskItem("4"); item.Title != "Set up the module" || item.State != "done" {
		t.Errorf("the inserted task = %+v, want a new id (4), done", item)
	}
	if got := len(u.started()); got != 4 {
		t.Errorf("the agent started %d times, want 4 (one task an iteration)", got)
	}
}

// An agent that notes its work on its task's line as it ticks it: the task
// is still its own, done.
func TestUnitTasksATaskWhoseTitleTheAgentEditsStaysItself(t *testing.T) {
	u := planned(t, threeTasks, func(u *unit, n int, prompt string) {
		u.work(n)
		u.tick(prompt)
		u.writePlan(regexp.MustCompile(`(?m)^(- \[x\] .*[^)])$`).ReplaceAllString(u.readPlan(), "$1 (done in iteration "+strconv.Itoa(n)+")"))
	})
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	u.wantLog("[TASK] iteration 1 task 1 done", "[TASK] iteration 2 task 2 done", "[TASK] iteration 3 task 3 done")
	if got := len(u.started()); got != 3 {
		t.Errorf("the agent started %d times, want 3", got)
	}
}

// An agent that ticks the first open box whatever its task: the task it
// skipped stays skipped when a later iteration ticks it, and no task gets
// more tries than --task-attempts.
func TestUnitTasksASkippedTaskAnotherIterationTicksStaysSkipped(t *testing.T) {
	u := planned(t, "# Plan\n\n- [ ] Add the parser\n- [ ] Add the command\n", func(u *unit, n int, prompt string) {
		u.writePlan(strings.Replace(u.readPlan(), "- [ ]", "- [x]", 1))
	})
	u.cfg.TaskAttempts = 2
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
	for _, id := range []string{"1", "2"} {
		if item := u.taskItem(id); item.State != "skipped" || item.Attempts != 2 {
			t.Errorf("task %s = %+v, want skipped after 2 attempts", id, item)
		}
	}
	if got := len(u.started()); got != 4 {
		t.Errorf("the agent started %d times, want 4 (two tries of each task)", got)
	}
	if plan := u.readPlan(); strings.Contains(plan, "[x]") {
		t.Errorf("the plan keeps a tick the loop rejected:\n%s", plan)
	}
}

// A worktree loop reads its worktree's copy of the plan: when the person
// edits the copy in their checkout, the loop says so once, in its log.
func TestAWorktreeLoopSaysOnceThatTheCheckoutsPlanChanged(t *testing.T) {
	var mine string
	u := planned(t, threeTasks, func(u *unit, n int, prompt string) {
		if n <= 2 {
			if err := os.WriteFile(mine, []byte(threeTasks+"- [ ] Added in the checkout "+strconv.Itoa(n)+"\n"), 0o644); err != nil {
				u.t.Error(err)
			}
		}
		u.tick(prompt)
		u.work(n)
	})
	checkout := u.cfg.Dir
	wt := filepath.Join(checkout, ".ralph", "worktrees", "unit")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	mine = filepath.Join(checkout, "PLAN.md") // planned wrote the plan there
	u.cfg.Dir, u.cfg.Worktree, u.cfg.TasksFile = wt, wt, filepath.Join(wt, "PLAN.md")
	u.writePlan(threeTasks)
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	want := "[TASK] the plan in your checkout, " + mine + ", changed; this loop reads its worktree's copy, " + u.cfg.TasksFile + ": edit that one"
	told := 0
	for _, l := range u.logLines() {
		if strings.Contains(l, "the plan in your checkout") {
			told++
			if !strings.HasSuffix(l, want) {
				t.Errorf("log line %q, want %q", l, want)
			}
		}
	}
	if told != 1 {
		t.Errorf("the log says %d times that the checkout's plan changed, want once:\n%s", told, strings.Join(u.logLines(), "\n"))
	}
	if st := u.state(); st.Tasks.Total != 3 {
		t.Errorf("the loop read the checkout's plan: %d tasks", st.Tasks.Total)
	}
}

// A fan's loop carrying on a task whose loop was lost (its window closed
// after the agent made the work): started with the commit the fan began
// the task at, its first iteration counts the work already in the worktree
// as its change, and its {{diff}} shows that work: its agent, finding the
// work made, ticks the task, which is done.
func TestUnitTasksAFansLoopCountsTheWorkSinceTheTasksBaseInItsFirstIteration(t *testing.T) {
	u := planned(t, "- [ ] Make file-a\n- [ ] Make file-b\n", func(u *unit, n int, prompt string) {
		if err := os.WriteFile(filepath.Join(u.cfg.Dir, "file-a"), []byte("file-a\n"), 0o644); err != nil { // as it already is
			u.t.Error(err)
		}
		u.tick(prompt)
	})
	u.writePrompt("{{task}}\nSo far:\n{{diff}}")
	u.gitInit()
	base := strings.TrimSpace(u.git("rev-parse", "HEAD"))
	if err := os.WriteFile(filepath.Join(u.cfg.Dir, "file-a"), []byte("file-a\n"), 0o644); err != nil { // the lost loop's work
		t.Fatal(err)
	}
	u.cfg.TaskID, u.cfg.TaskBase = "1", base
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	if p := u.pastes(); len(p) != 1 || !strings.Contains(p[0], "+file-a") {
		t.Errorf("prompts = %q, want one whose diff has the work made for the task", p)
	}
	if item := u.taskItem("1"); item.State != "done" || item.Attempts != 1 {
		t.Errorf("task 1 = %+v, want done in its first attempt", item)
	}
	if st := u.state(); st.CurrentIteration != 1 {
		t.Errorf("iteration %d: want the task done in iteration 1", st.CurrentIteration)
	}
	u.wantLog("[TASK] iteration 1 task 1 done")
}

// Only the first: for --stall-limit the first iteration of that loop,
// whose agent only looks, changed the work (since the task's base), the
// second changed nothing; and the third, whose agent ticks the task with
// nothing changed since its own start, is rejected as ever.
func TestUnitTasksAFansLoopMeasuresItsLaterIterationsFromTheirOwnStart(t *testing.T) {
	u := planned(t, "- [ ] Make file-a\n", func(u *unit, n int, prompt string) {
		if n == 3 {
			u.tick(prompt)
		}
	})
	u.gitInit()
	base := strings.TrimSpace(u.git("rev-parse", "HEAD"))
	if err := os.WriteFile(filepath.Join(u.cfg.Dir, "file-a"), []byte("file-a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u.cfg.TaskID, u.cfg.TaskBase, u.cfg.StallLimit = "1", base, 2
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
	u.wantLog("[TASK] iteration 1 task 1 rejected: it was not marked done",
		"[STALL] iteration 2 unchanged=1/2",
		"[TASK] iteration 3 task 1 skipped: not done after 3 attempts: marked done, but nothing in the work tree changed")
	if lines := strings.Join(u.logLines(), "\n"); strings.Contains(lines, "iteration 1 unchanged") {
		t.Errorf("the first iteration counted as unchanged:\n%s", lines)
	}
}
