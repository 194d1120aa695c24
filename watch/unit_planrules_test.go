package watch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// The plan's rules hold however an iteration ends: only a finished review
// approves, a try the loop cut short is no attempt, the person's steering
// is no stall.

// steps is a unit loop working through plan (as planned) whose agent does
// what step says and exits only when step says so: a person's skip or
// retry ends the iterations it leaves running.
func steps(t *testing.T, plan string, step func(u *unit, n int, prompt string, term *tmuxfake.Term)) *unit {
	t.Helper()
	u := planned(t, plan, nil)
	u.launch(func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) { step(u, n, input, term) })
	})
	u.simulate() // the loop takes a request at its next look, long before the agent goes quiet
	return u
}

// ask leaves a request as skip and retry do.
func (u *unit) ask(request string) {
	if err := u.store.Request(request); err != nil {
		u.t.Error(err)
	}
}

// reviewNotes writes what a review finds into .ralph/review.md.
func (u *unit) reviewNotes(text string) {
	notes := filepath.Join(u.cfg.Dir, ".ralph", "review.md")
	_ = os.MkdirAll(filepath.Dir(notes), 0o755)
	_ = os.WriteFile(notes, []byte(text), 0o644)
}

// A raised --task-attempts given during a task's last attempt applies to
// that attempt's verdict: the task is not skipped first.
func TestUnitSetTaskAttemptsDuringTheLastAttemptAppliesToIt(t *testing.T) {
	u := planned(t, "- [ ] Only task\n", func(u *unit, n int, prompt string) {
		switch n {
		case 2: // the last of 2 tries, and the person gives it more
			four := 4
			if _, err := u.store.Steer(state.Steer{Kind: state.SteerSet, Set: &state.Limits{TaskAttempts: &four}}, u.clock.Now()); err != nil {
				u.t.Error(err)
			}
		case 3:
			u.work(n)
			u.tick(prompt)
		}
	})
	u.cfg.TaskAttempts = 2
	u.wantResult(u.run(), words.ExitDone, "tasks_done")
	if item := u.taskItem("1"); item.State != "done" || item.Attempts != 3 {
		t.Errorf("task 1 = %+v, want done in its third try", item)
	}
	u.wantLog("[SET] task-attempts 4 at iteration 2 (was task-attempts 2)", "[TASK] iteration 2 task 1 rejected: it was not marked done",
		"[TASK] iteration 3 task 1 implement attempt=3/4", "[TASK] iteration 3 task 1 done")
}

// skip during a review: the log, the state and the loop's end agree that
// the task is skipped, its box open.
func TestUnitSkipDuringAReviewSkipsTheTask(t *testing.T) {
	u := steps(t, "- [ ] Only task\n", func(u *unit, n int, prompt string, term *tmuxfake.Term) {
		switch n {
		case 1:
			u.work(n)
			u.tick(prompt)
			term.Exit(0)
		case 2: // the review runs; the person skips it
			u.ask(state.RequestSkip)
		default:
			term.Exit(0)
		}
	})
	u.cfg.Review = true
	u.wantResult(u.run(), words.ExitLimit, "tasks_skipped")
	if item := u.taskItem("1"); item.State != "skipped" {
		t.Errorf("task 1 = %+v, want skipped", item)
	}
	if st := u.state(); st.Tasks.Done != 0 || st.Tasks.Skipped != 1 {
		t.Errorf("tasks = %+v, want 0 done, 1 skipped", st.Tasks)
	}
	if got := u.readPlan(); got != "- [ ] Only task\n" {
		t.Errorf("plan = %q, want its box open: the task is not done", got)
	}
	if n := len(u.started()); n != 2 {
		t.Errorf("the agent started %d times, want 2", n)
	}
	u.wantLog("[TASK] iteration 2 task 1 skipped: the person skipped it", "reason=tasks_skipped skipped=1")
}

// skip after the agent ticked its task: the task is skipped, not done.
func TestUnitSkipAfterTheAgentTickedItsTaskSkipsIt(t *testing.T) {
	u := steps(t, threeTasks, func(u *unit, n int, prompt string, term *tmuxfake.Term) {
		u.work(n)
		u.tick(prompt)
		if n == 1 {
			u.ask(state.RequestSkip)
			return
		}
		term.Exit(0)
	})
	u.wantResult(u.run(), words.ExitLimit, "tasks_skipped")
	if item := u.taskItem("1"); item.State != "skipped" {
		t.Errorf("task 1 = %+v, want skipped", item)
	}
	if got := u.readPlan(); !strings.Contains(got, "- [ ] Add the parser") {
		t.Errorf("plan =\n%s\nwant the skipped task's box open", got)
	}
}

// --stall-limit counts only the agent's own implement and fix iterations
// that changed nothing: not the person's retry and skip, not a review.
func TestUnitTheStallLimitCountsNeitherSteeringNorReviews(t *testing.T) {
	u := steps(t, "- [ ] Add the parser\n- [ ] Add the command\n", func(u *unit, n int, prompt string, term *tmuxfake.Term) {
		switch {
		case n == 1:
			u.ask(state.RequestRetry)
		case n == 2:
			u.ask(state.RequestSkip)
		case strings.Contains(prompt, "Review task"): // approves: changes nothing, by design
			term.Exit(0)
		default:
			u.work(n)
			u.tick(prompt)
			term.Exit(0)
		}
	})
	u.gitInit()
	u.cfg.Review = true
	u.cfg.StallLimit = 1
	u.wantResult(u.run(), words.ExitLimit, "tasks_skipped")
	if item := u.taskItem("2"); item.State != "done" {
		t.Errorf("task 2 = %+v, want done", item)
	}
	if log := strings.Join(u.logLines(), "\n"); strings.Contains(log, "[STALL]") {
		t.Errorf("an iteration was counted as a stall:\n%s", log)
	}
}
