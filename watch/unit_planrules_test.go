package watch_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
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
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
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
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
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
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
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
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
	if item := u.taskItem("2"); item.State != "done" {
		t.Errorf("task 2 = %+v, want done", item)
	}
	if log := strings.Join(u.logLines(), "\n"); strings.Contains(log, "[STALL]") {
		t.Errorf("an iteration was counted as a stall:\n%s", log)
	}
}

// A review that does not run to its end (its agent crashes, or hangs past
// --inactivity-timeout) approves nothing: the task waits for a review, and
// the next iteration reviews it in a fresh agent.
func TestUnitAReviewThatDoesNotRunToItsEndApprovesNothing(t *testing.T) {
	for _, how := range []string{"crash", "hang"} {
		t.Run(how, func(t *testing.T) {
			u := steps(t, "- [ ] Only task\n", func(u *unit, n int, prompt string, term *tmuxfake.Term) {
				switch n {
				case 1:
					u.work(n)
					u.tick(prompt)
					term.Exit(0)
				case 2: // the review: gone before its end
					if how == "crash" {
						term.Exit(1)
					} // else it sits silent
				default:
					term.Exit(0)
				}
			})
			u.cfg.Review = true
			u.cfg.InactivityTimeout = time.Minute
			u.wantResult(u.run(), contract.ExitDone, "tasks_done")
			if n := len(u.started()); n != 3 {
				t.Errorf("the agent started %d times, want 3: implement, the review cut short, a fresh review", n)
			}
			p := u.pastes()
			if len(p) != 3 || !strings.Contains(p[2], "Review task 1") {
				t.Errorf("prompts = %q, want the third a review", p)
			}
			if item := u.taskItem("1"); item.State != "done" || item.Reviews != 1 {
				t.Errorf("task 1 = %+v, want done by one review that ran to its end", item)
			}
			if log := strings.Join(u.logLines(), "\n"); strings.Contains(log, "iteration 2 task 1 approved") {
				t.Errorf("the review cut short approved the task:\n%s", log)
			}
			u.wantLog("[TASK] iteration 2 task 1 retry: the review did not run to its end", "[TASK] iteration 3 task 1 review review=1/5",
				"[TASK] iteration 3 task 1 approved")
		})
	}
}

// A review that never runs to its end is not retried for ever: after as
// many cut short in a row as the task's tries, the task is skipped and the
// loop ends, even with no iteration limit.
func TestUnitAReviewThatNeverRunsToItsEndSkipsItsTaskAfterItsTries(t *testing.T) {
	u := steps(t, "- [ ] Only task\n", func(u *unit, n int, prompt string, term *tmuxfake.Term) {
		if n == 1 {
			u.work(n)
			u.tick(prompt)
			term.Exit(0)
			return
		}
		term.Exit(1) // every review crashes
	})
	u.cfg.Review = true
	u.cfg.MaxIterations = 0
	u.cfg.TaskAttempts = 3
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
	if n := len(u.started()); n != 4 {
		t.Errorf("the agent started %d times, want 4: implement, then three reviews cut short", n)
	}
	if item := u.taskItem("1"); item.State != "skipped" || item.Reviews != 0 || item.Unfinished != 0 {
		t.Errorf("task 1 = %+v, want skipped, charged no review", item)
	}
	if plan := u.readPlan(); plan != "- [ ] Only task\n" {
		t.Errorf("the plan is %q, want the skipped task open", plan)
	}
	u.wantLog("[TASK] iteration 2 task 1 retry: the review did not run to its end", "[TASK] iteration 3 task 1 retry: the review did not run to its end",
		"[TASK] iteration 4 task 1 skipped: the review did not run to its end (exit=1), 3 iterations in a row")
}

// A review the person skips is no review: the task is skipped, charged none.
func TestUnitAReviewThePersonSkipsIsNotCountedAsAReview(t *testing.T) {
	u := steps(t, "- [ ] Only task\n", func(u *unit, n int, prompt string, term *tmuxfake.Term) {
		if n == 1 {
			u.work(n)
			u.tick(prompt)
			term.Exit(0)
			return
		}
		u.ask(state.RequestSkip)
	})
	u.cfg.Review = true
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
	if item := u.taskItem("1"); item.State != "skipped" || item.Reviews != 0 || item.Attempts != 1 {
		t.Errorf("task 1 = %+v, want skipped after one attempt and no review", item)
	}
}

// retry during a review starts it again from the plan as it found it: a
// box the reviewer unticked is ticked again, and the fresh review approves.
func TestUnitRetryDuringAReviewPutsBackTheBoxTheReviewerUnticked(t *testing.T) {
	var seen string
	u := steps(t, "- [ ] Only task\n", func(u *unit, n int, prompt string, term *tmuxfake.Term) {
		switch n {
		case 1:
			u.work(n)
			u.tick(prompt)
			term.Exit(0)
		case 2:
			u.writePlan("- [ ] Only task\n")
			u.ask(state.RequestRetry)
		default:
			seen = u.readPlan()
			term.Exit(0)
		}
	})
	u.cfg.Review = true
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	if seen != "- [x] Only task\n" {
		t.Errorf("the fresh review found the plan %q, want it as the review cut short found it", seen)
	}
	if n := len(u.started()); n != 3 {
		t.Errorf("the agent started %d times, want 3: implement, the review retried, the fresh review", n)
	}
	if item := u.taskItem("1"); item.State != "done" || item.Reviews != 1 || item.Attempts != 1 {
		t.Errorf("task 1 = %+v, want done after one attempt and one review", item)
	}
	u.wantLog("[TASK] iteration 2 task 1 retry", "[TASK] iteration 3 task 1 approved")
}

// claudeTurn has a program write a Claude Code turn holding fill tokens of
// context into a transcript of its own, as its hooks tell the loop.
func (u *unit) claudeTurn(n int, fill string) {
	transcript := filepath.Join(u.cfg.Dir, "session-"+strconv.Itoa(n)+".jsonl")
	if fill != "" {
		_ = os.WriteFile(transcript, []byte(recordedTurn(u.t, fill)), 0o600)
	}
	_ = os.WriteFile(u.store.Path(state.TranscriptFile), []byte(transcript), 0o600)
}

// An iteration the context guard ends is no attempt (the next prompt says
// attempt 1), and a review it ends approves nothing.
func TestUnitAnIterationTheContextGuardEndsIsNoAttemptAndNoReview(t *testing.T) {
	u := steps(t, "- [ ] Only task\n", func(u *unit, n int, prompt string, term *tmuxfake.Term) {
		switch n {
		case 1, 3: // fills its context and goes on working
			u.claudeTurn(n, "869895") // 87%
		case 2:
			u.claudeTurn(n, "")
			u.work(n)
			u.tick(prompt)
			term.Exit(0)
		default:
			u.claudeTurn(n, "")
			term.Exit(0)
		}
	})
	u.cfg.Agent = agent.Profile{Name: "claude"}
	u.cfg.Review = true
	u.cfg.MaxContext = 70
	u.cfg.BudgetEvery = time.Second
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	p := u.pastes()
	if len(p) != 4 || !strings.Contains(p[1], "attempt 1 of 3") || !strings.Contains(p[3], "Review task 1") {
		t.Errorf("prompts = %q, want implement, implement (attempt 1 again), review, review", p)
	}
	if item := u.taskItem("1"); item.State != "done" || item.Attempts != 1 || item.Reviews != 1 {
		t.Errorf("task 1 = %+v, want done after one attempt and one review", item)
	}
	if log := strings.Join(u.logLines(), "\n"); strings.Contains(log, "rejected") || strings.Contains(log, "iteration 3 task 1 approved") {
		t.Errorf("an iteration the guard ended was judged as a try:\n%s", log)
	}
	u.wantLog("[END] iteration 1 context", "[TASK] iteration 1 task 1 retry", "[TASK] iteration 2 task 1 implement attempt=1/3",
		"[END] iteration 3 context", "[TASK] iteration 3 task 1 retry", "[TASK] iteration 4 task 1 approved")
}

// An iteration the budget ends is no attempt: once the budget is raised
// and the loop resumed, its task goes on at the same attempt.
func TestUnitAnIterationTheBudgetEndsIsNoAttempt(t *testing.T) {
	u := steps(t, "- [ ] Only task\n", func(u *unit, n int, prompt string, term *tmuxfake.Term) {
		if n == 1 { // spends past the budget and goes on working
			u.claudeTurn(n, "719895")
			return
		}
		u.claudeTurn(n, "")
		u.work(n)
		u.tick(prompt)
		term.Exit(0)
	})
	u.cfg.Agent = agent.Profile{Name: "claude"}
	u.cfg.Budget = receipt.Budget{Tokens: 300000}
	u.cfg.BudgetEvery = time.Second
	u.wantResult(u.run(), contract.ExitLimit, "budget")
	more := int64(10_000_000)
	if _, err := u.store.Steer(state.Steer{Kind: state.SteerSet, Set: &state.Limits{MaxTokens: &more}}, u.clock.Now()); err != nil {
		t.Fatal(err)
	}
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	p := u.pastes()
	if len(p) != 2 || !strings.Contains(p[1], "attempt 1 of 3") {
		t.Errorf("prompts = %q, want the second at attempt 1 again", p)
	}
	if item := u.taskItem("1"); item.State != "done" || item.Attempts != 1 {
		t.Errorf("task 1 = %+v, want done in one attempt", item)
	}
	u.wantLog("[END] iteration 1 budget", "[RESUME]", "[TASK] iteration 1 task 1 retry", "[TASK] iteration 2 task 1 implement attempt=1/3", "[TASK] iteration 2 task 1 done")
}

// A review's prompt names its notes file whatever placeholders the prompt
// uses: where {{review_file}} says, else on a line of its own.
func TestUnitAReviewPromptNamesTheNotesFileWhateverThePromptUses(t *testing.T) {
	for _, prompt := range []string{"{{mode}} task {{task_id}}:\n{{task}}\n", "{{mode}} {{task}}; notes go to {{review_file}}.\n"} {
		u := planned(t, "- [ ] Only task\n", func(u *unit, n int, prompt string) {
			if n == 1 {
				u.work(n)
				u.tick(prompt)
			}
		})
		u.writePrompt(prompt)
		u.cfg.Review = true
		u.wantResult(u.run(), contract.ExitDone, "tasks_done")
		notes := filepath.Join(u.cfg.Dir, ".ralph", "review.md")
		p := u.pastes()
		if len(p) != 2 || !strings.HasPrefix(p[1], "review ") || strings.Count(p[1], notes) != 1 || strings.Contains(p[1], "{{") {
			t.Errorf("prompt %q: the review's prompt = %q, want it to name %s once", prompt, p, notes)
		}
		if len(p) > 0 && !strings.Contains(prompt, "{{review_file}}") && strings.Contains(p[0], notes) {
			t.Errorf("prompt %q: the implement prompt names the review's notes file: %q", prompt, p[0])
		}
	}
}

// The line a review's prompt gets when it places the task but not the notes
// file reads on its own: a prompt of {{task}} alone does not say it is a
// review, so the line says so, and how to approve, before "if not".
func TestUnitAReviewsAppendedLineSaysItIsAReviewAndHowToApprove(t *testing.T) {
	u := planned(t, "- [ ] Only task\n", func(u *unit, n int, prompt string) {
		if n == 1 {
			u.work(n)
			u.tick(prompt)
		}
	})
	u.writePrompt("Do this: {{task}}\n")
	u.cfg.Review = true
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	p := u.pastes()
	if len(p) != 2 {
		t.Fatalf("prompts %q, want an implement and a review", p)
	}
	notes := filepath.Join(u.cfg.Dir, ".ralph", "review.md")
	want := "This iteration reviews task 1, implemented in the last one, in a fresh mind: change no code. If it is right and complete, change nothing. If not, write what must change into " + notes + "; the task then goes back for a fix."
	if !strings.Contains(p[1], want) {
		t.Errorf("the review's prompt = %q, want it to hold %q", p[1], want)
	}
}

// set +N on the watcher adds N to the limit in force, for every limit.
func TestUnitSetPlusNAddsToTheLimitInForce(t *testing.T) {
	s := newSteered(t, func(s *steered, n int) {
		if n == 1 {
			cost, tokens := 1.0, int64(300000)
			s.leave(state.Steer{Kind: state.SteerSet, Set: &state.Limits{Add: &state.Limits{MaxCostUSD: &cost, MaxTokens: &tokens,
				MaxTime: intp(3600), TaskAttempts: intp(2), MaxIterations: intp(1)}}})
		}
	})
	s.cfg.MaxIterations, s.cfg.MaxTime, s.cfg.TaskAttempts = 1, time.Hour, 3
	s.cfg.Budget = receipt.Budget{CostUSD: 5, Tokens: 200000}
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	s.wantLog("[SET] max-iterations 2 max-time 2h0m0s max-tokens 500000 max-cost 6.00 task-attempts 5 at iteration 1 " +
		"(was max-iterations 1 max-time 1h0m0s max-tokens 200000 max-cost 5.00 task-attempts 3)")
	if st := s.state(); st.MaxCostUSD != 6 || st.MaxTokens != 500000 || st.Set == nil || st.Set.Add != nil {
		t.Errorf("state: max cost %.2f, max tokens %d, set %+v", st.MaxCostUSD, st.MaxTokens, st.Set)
	}
}

// stop during a review, then resume: the review the stop cut short is
// given back, and a fresh one reviews the task.
func TestUnitResumeAfterAStopInAReviewReviewsAgain(t *testing.T) {
	u := steps(t, "- [ ] Only task\n", func(u *unit, n int, prompt string, term *tmuxfake.Term) {
		switch n {
		case 1:
			u.work(n)
			u.tick(prompt)
			term.Exit(0)
		case 2:
			u.ask(state.RequestStop) // the person stops the loop during the review
		default:
			term.Exit(0)
		}
	})
	u.cfg.Review = true
	u.wantResult(u.run(), contract.ExitInterrupted, "stopped")
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	if p := u.pastes(); len(p) != 3 || !strings.Contains(p[2], "Review task 1") {
		t.Errorf("prompts = %q, want implement, review, review", p)
	}
	if item := u.taskItem("1"); item.State != "done" || item.Reviews != 1 {
		t.Errorf("task 1 = %+v, want done by the one review that ran to its end", item)
	}
	u.wantLog("[RESUME]", "[TASK] iteration 2 task 1 retry: the loop ended (stopped) before iteration 2 was over; not counted as a review",
		"[TASK] iteration 3 task 1 review review=1/5", "[TASK] iteration 3 task 1 approved")
}

// A new run of a plan whose last run left a task implemented and not
// reviewed reviews it first: its tick is no review's.
func TestUnitANewRunReviewsFirstWhatTheLastRunLeftUnreviewed(t *testing.T) {
	for _, kept := range []bool{false, true} {
		u := planned(t, "- [ ] Add the parser\n- [ ] Add the command\n", func(u *unit, n int, prompt string) {
			if !strings.Contains(prompt, "Review task") {
				u.work(n)
				u.tick(prompt)
			}
		})
		u.cfg.Review = true
		u.cfg.MaxIterations = 1
		u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
		if kept { // as run keeps an ended run apart before a new one
			if _, err := u.store.Archive("20260314T090000"); err != nil {
				t.Fatal(err)
			}
		}
		u.cfg.MaxIterations = 20
		u.wantResult(u.run(), contract.ExitDone, "tasks_done")
		p := u.pastes()
		if len(p) != 4 || !strings.Contains(p[1], "Review task 1") || !strings.Contains(p[2], "Add the command") {
			t.Errorf("kept apart %v: prompts = %q, want implement 1; then a new run: review 1, implement 2, review 2", kept, p)
		}
		u.wantLog("[TASK] task 1: the last run left it waiting for its review; it comes first", "[TASK] iteration 1 task 1 review review=1/5",
			"[TASK] iteration 1 task 1 approved")
	}
}

// --commit names the iteration's task and its verdict, and makes no commit
// that would hold only the loop's own edit of the plan.
func TestUnitCommitNamesTheTaskAndItsVerdictAndNeverCommitsTheLoopsPlanEditAlone(t *testing.T) {
	u := planned(t, threeTasks, func(u *unit, n int, prompt string) {
		switch n {
		case 1:
			u.work(n)
			u.tick(prompt)
		case 2: // ticks another task than its own and commits that itself
			u.writePlan(strings.Replace(u.readPlan(), "- [ ] Write the docs", "- [x] Write the docs", 1))
			u.git("commit", "-qam", "agent: docs")
		}
	})
	u.gitInit()
	u.cfg.Commit = true
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	subjects := strings.Split(strings.TrimSpace(u.git("log", "--format=%s")), "\n")
	if len(subjects) != 3 || subjects[2] != "start" || subjects[1] != "ralph unit: iteration 1, task 1 done: Add the parser" || subjects[0] != "agent: docs" {
		t.Errorf("commits (newest first) = %q, want the agent's, then iteration 1's naming task 1 and its verdict", subjects)
	}
	if got := u.git("status", "--porcelain"); !strings.Contains(got, "PLAN.md") {
		t.Errorf("the loop's reopening of task 3 is not left uncommitted: status %q", got)
	}
	u.wantLog("[TASK] iteration 2 task 3 reopened", "[COMMIT] iteration 2 not committed: only the loop's own edit of the plan changed")
}

// An iteration a restart cut short (its watcher gone with the server;
// restore recorded its end) is no attempt: the resumed loop gives its task
// the same attempt again.
func TestUnitAnIterationARestartCutShortIsNoAttempt(t *testing.T) {
	u := planned(t, "- [ ] Only task\n", nil)
	u.launch(func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) {
			if n == 1 { // works on, until the server goes
				u.mark("answered")
				term.Write("working on\n")
				return
			}
			u.work(n)
			u.tick(input)
			term.Exit(0)
		})
	})
	k := newKillable(u.tmux, func(string, ...string) bool { _, ok := u.marked("answered"); return ok })
	dead := u.killed(k)
	st := u.state() // what restore does for a loop whose server went away (control.Rearm.revive)
	st.LastIterationEnded = state.Stamp(u.clock.Now())
	contract.ReasonServerGone.Write(st)
	if err := u.store.Save(st); err != nil {
		t.Fatal(err)
	}
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	defer func() { k.release(); <-dead }() // the killed watcher's last steps, after the checks: it is gone for the loop
	if item := u.taskItem("1"); item.State != "done" || item.Attempts != 1 {
		t.Errorf("task 1 = %+v, want done in one attempt", item)
	}
	if p := u.pastes(); len(p) < 2 || !strings.Contains(p[len(p)-1], "attempt 1 of 3") {
		t.Errorf("prompts = %q, want the resumed loop's at attempt 1", p)
	}
	u.wantLog("[RESUME]", "[TASK] iteration 1 task 1 retry: the loop ended (server_gone) before iteration 1 was over; not counted as a try",
		"[TASK] iteration 2 task 1 implement attempt=1/3", "[TASK] iteration 2 task 1 done")
}
