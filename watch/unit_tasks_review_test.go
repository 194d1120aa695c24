package watch_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// Tasks with a review: an iteration that implements a task, another that
// reviews it, alone approving it, with notes that bring a fix.

func TestUnitTasksAReviewIterationAloneApprovesAndItsNotesBringAFix(t *testing.T) {
	var notes string
	u := planned(t, "- [ ] Only task\n", func(u *unit, n int, prompt string) {
		switch n {
		case 1, 3: // implement, then fix
			u.work(n)
			u.tick(prompt)
		case 2: // the review finds a problem
			_ = os.MkdirAll(filepath.Dir(notes), 0o755)
			_ = os.WriteFile(notes, []byte("The parser drops the last line.\n"), 0o644)
		}
	})
	notes = filepath.Join(u.cfg.Dir, ".ralph", "review.md")
	u.cfg.Review = true
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	if got := len(u.started()); got != 4 {
		t.Errorf("the agent started %d times, want 4: implement, review, fix, review", got)
	}
	p := u.pastes()
	if len(p) != 4 || !strings.Contains(p[1], "Review task 1") || !strings.Contains(p[2], "The parser drops the last line.") || !strings.Contains(p[3], "Review task 1") {
		t.Errorf("prompts = %q, want implement, review, a fix with the review's notes, review", p)
	}
	u.wantLog("task 1 implement", "task 1 review: implemented", "task 1 review review=1/5", "task 1 changes: The parser drops the last line.",
		"task 1 fix attempt=2/3", "task 1 review review=2/5", "task 1 approved")
}

const storyPlan = `{
  "verifyCommands": ["test -e work-1"],
  "userStories": [
    {"id": "US-001", "title": "Add the priority field", "priority": 1, "passes": false, "dependsOn": [], "reviewStatus": "pending", "reviewCount": 0}
  ]
}
`

func TestUnitTasksAnImplementIterationThatSetsPassesIsRejectedAndOnlyAReviewApproves(t *testing.T) {
	var edited string
	u := planned(t, storyPlan, func(u *unit, n int, prompt string) {
		switch n {
		case 1: // implements, and approves itself
			u.work(n)
			edited = strings.Replace(strings.Replace(u.readPlan(), `"passes": false`, `"passes": true`, 1), `"reviewStatus": "pending"`, `"reviewStatus": "approved"`, 1)
			edited = strings.Replace(edited, `"Add the priority field"`, `"Add the priority field (and its index)"`, 1)
			u.writePlan(edited)
		case 2: // implements again, and leaves the verdict to the review
			u.work(n)
		case 3: // the review approves
			u.writePlan(strings.Replace(strings.Replace(u.readPlan(), `"passes": false`, `"passes": true`, 1), `"reviewStatus": "pending"`, `"reviewStatus": "approved"`, 1))
		}
	})
	u.cfg.TasksFile = filepath.Join(u.cfg.Dir, "tasks.json")
	u.writePlan(storyPlan)
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	if got := len(u.started()); got != 3 {
		t.Errorf("the agent started %d times, want 3: implement (rejected), implement, review", got)
	}
	u.wantLog("[TASK] iteration 1 task US-001 reviewStatus put back", "[TASK] iteration 1 task US-001 reopened",
		`[TASK] iteration 1 task US-001 rejected: it set "passes" or "reviewStatus" itself`,
		"[TASK] iteration 2 task US-001 review: implemented", "[TASK] iteration 3 task US-001 review review=1/5", "[TASK] iteration 3 task US-001 approved")
	p := u.pastes()
	if len(p) != 3 || !strings.Contains(p[1], "Task US-001 was not accepted") || !strings.Contains(p[2], "Review task US-001") {
		t.Errorf("prompts = %q", p)
	}
	// what the loop put back after iteration 1: the two values, no other byte
	want := strings.Replace(storyPlan, `"Add the priority field"`, `"Add the priority field (and its index)"`, 1)
	if n := len(u.tmux.Calls("paste")); n >= 2 && !strings.Contains(p[1], "Add the priority field (and its index)") {
		t.Errorf("the second prompt lacks the agent's own edit of the plan:\n%s\nwant the plan as\n%s", p[1], want)
	}
	if st := u.state(); len(st.Checks) == 0 || st.Checks[0].Results[0].Command != "test -e work-1" {
		t.Errorf("the plan's verifyCommands did not run as checks: %+v", st.Checks)
	}
}

func TestUnitTasksTheLoopPutsBackOnlyTheBytesAnImplementIterationApprovedWith(t *testing.T) {
	u := planned(t, storyPlan, func(u *unit, n int, prompt string) {
		u.work(n)
		edited := strings.Replace(strings.Replace(u.readPlan(), `"passes": false`, `"passes": true`, 1), `"reviewStatus": "pending"`, `"reviewStatus": "approved"`, 1)
		u.writePlan(strings.Replace(edited, `"Add the priority field"`, `"Add the priority field (and its index)"`, 1))
	})
	u.cfg.TasksFile = filepath.Join(u.cfg.Dir, "tasks.json")
	u.writePlan(storyPlan)
	u.cfg.MaxIterations = 1
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	want := strings.Replace(storyPlan, `"Add the priority field"`, `"Add the priority field (and its index)"`, 1)
	if got := u.readPlan(); got != want {
		t.Errorf("plan =\n%s\nwant the agent's edit kept and passes and reviewStatus put back:\n%s", got, want)
	}
}

func TestUnitTasksAtTheReviewCapTheReviewApprovesWithItsNotesKept(t *testing.T) {
	u := planned(t, "- [ ] Only task\n", func(u *unit, n int, prompt string) {
		if strings.Contains(prompt, "Review task 1") { // every review finds something
			notes := filepath.Join(u.cfg.Dir, ".ralph", "review.md")
			_ = os.MkdirAll(filepath.Dir(notes), 0o755)
			_ = os.WriteFile(notes, []byte("Still not right ("+strconv.Itoa(n)+")."), 0o644)
			return
		}
		u.work(n)
		u.tick(prompt)
	})
	u.cfg.Review, u.cfg.ReviewCap = true, 2
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	if got := len(u.started()); got != 4 {
		t.Errorf("the agent started %d times, want 4: implement, review, fix, review (the cap)", got)
	}
	item := u.taskItem("1")
	if item.State != "done" || item.Reviews != 2 || item.Notes != "Still not right (4)." {
		t.Errorf("task 1 = %+v, want done at the cap with the last review's notes kept", item)
	}
	u.wantLog("task 1 approved: review cap (2) reached; its notes are kept")
}
