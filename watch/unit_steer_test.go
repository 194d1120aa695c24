package watch_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// steered is a loop whose agent takes each prompt, runs act (the person,
// steering while the iteration runs) and exits 0; prompts are the prompts
// it was given, in order.
type steered struct {
	*unit
	mu      sync.Mutex
	prompts []string
}

func newSteered(t *testing.T, act func(s *steered, n int)) *steered {
	s := &steered{}
	s.unit = newUnit(t, "go", func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) {
			s.mu.Lock()
			s.prompts = append(s.prompts, input)
			s.mu.Unlock()
			if act != nil {
				act(s, n)
			}
			term.Exit(0)
		})
	})
	return s
}

// leave leaves a request as the note and set commands do.
func (s *steered) leave(r state.Steer) {
	s.t.Helper()
	if _, err := s.store.Steer(r, s.clock.Now()); err != nil {
		s.t.Fatal(err)
	}
}

func (s *steered) wantPrompts(want ...string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !reflect.DeepEqual(s.prompts, want) {
		s.t.Errorf("prompts:\n%q\nwant\n%q", s.prompts, want)
	}
}

func notes(texts ...string) string {
	return "go\n\n## Notes from the person\n\n" + strings.Join(texts, "\n\n")
}

func intp(n int) *int { return &n }

// A note reaches the next iteration once; a sticky one every iteration
// until cleared; both are kept in the receipt and the log.
func TestUnitANoteReachesTheNextIterationOnceAndAStickyOneEveryIterationUntilCleared(t *testing.T) {
	s := newSteered(t, func(s *steered, n int) {
		switch n {
		case 1:
			s.leave(state.Steer{Kind: state.SteerNote, Text: "the API moved to v2"})
			s.leave(state.Steer{Kind: state.SteerNote, Text: "never touch vendor/", Sticky: true})
		case 3:
			s.leave(state.Steer{Kind: state.SteerClear})
		}
	})
	s.cfg.MaxIterations = 4
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	s.wantPrompts("go", notes("the API moved to v2", "never touch vendor/"), notes("never touch vendor/"), "go")
	s.wantLog(`[NOTE] iteration 2: "the API moved to v2"`, `[NOTE] iteration 2 sticky: "never touch vendor/"`,
		`[NOTE] iteration 3 sticky: "never touch vendor/"`, "[NOTE] cleared 1 notes")
	rs, err := receipt.Load(s.store.Path(state.ReceiptsFile))
	if err != nil || len(rs) != 4 {
		t.Fatalf("receipts: %d, %v", len(rs), err)
	}
	if !reflect.DeepEqual(rs[1].Notes, []string{"the API moved to v2", "never touch vendor/"}) || rs[0].Notes != nil || rs[3].Notes != nil {
		t.Errorf("receipts' notes: %q %q %q", rs[0].Notes, rs[1].Notes, rs[3].Notes)
	}
	if st := s.state(); st.Notes != nil || len(st.Steered) != 0 {
		t.Errorf("state keeps notes %+v, steered %q", st.Notes, st.Steered)
	}
}

// A prompt that says where notes go gets them there, without the heading.
func TestUnitNotesGoWhereThePromptPlacesThem(t *testing.T) {
	s := newSteered(t, nil)
	s.leave(state.Steer{Kind: state.SteerNote, Text: "one"})
	s.leave(state.Steer{Kind: state.SteerNote, Text: "two"})
	writePrompt(t, s.unit, "before\n{{notes}}\nafter")
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	s.wantPrompts("before\none\n\ntwo\nafter")
}

// set changes the limits at the next iteration boundary, refuses one below
// what has run, and the status line shows the new limit.
func TestUnitSetRaisesTheLimitAtTheNextIterationAndRefusesOneBelowWhatRan(t *testing.T) {
	s := newSteered(t, func(s *steered, n int) {
		switch n {
		case 1:
			s.leave(state.Steer{Kind: state.SteerSet, Set: &state.Limits{AddIterations: 2}})
		case 3:
			s.leave(state.Steer{Kind: state.SteerSet, Set: &state.Limits{MaxIterations: intp(2)}})
		}
	})
	s.cfg.MaxIterations = 2
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	if n := len(s.started()); n != 4 {
		t.Errorf("ran %d iterations, want 4", n)
	}
	s.wantLog("[SET] max-iterations 4 at iteration 1 (was max-iterations 2)", "[START] iteration 2/4",
		"[SET] refused max-iterations 2: --max-iterations 2 is below the 3 iterations already run")
	st := s.state()
	if st.MaxIterations != 4 || st.Set == nil || st.Set.MaxIterations == nil || *st.Set.MaxIterations != 4 {
		t.Errorf("state: max %d, set %+v", st.MaxIterations, st.Set)
	}
	if max, _, _ := s.tmux.PaneOption(s.cfg.Pane, contract.OptionMax); max != "4" {
		t.Errorf("@ralph-max = %q, want 4", max)
	}
}

// set changes the limits in force, never the loop's settings: state.json's
// settings stay as the flags gave them, while its limits and the
// iteration's timeout follow the set.
func TestUnitSetLeavesTheLoopsSettingsAsItsFlagsGaveThem(t *testing.T) {
	s := newSteered(t, func(s *steered, n int) {
		if n == 1 {
			s.leave(state.Steer{Kind: state.SteerSet, Set: &state.Limits{MaxIterations: intp(3), InactivityTimeout: intp(60)}})
		}
	})
	s.cfg.MaxIterations = 2
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	if n := len(s.started()); n != 3 {
		t.Errorf("ran %d iterations, want 3", n)
	}
	st := s.state()
	if st.MaxIterations != 3 || st.InactivityTimeout != 60 {
		t.Errorf("state's limits in force: max %d, inactivity %d; want 3 and 60", st.MaxIterations, st.InactivityTimeout)
	}
	if got := st.Settings["MaxIterations"]; got != "2" {
		t.Errorf("settings MaxIterations = %q, want the flag's 2", got)
	}
	if got := st.Settings["InactivityTimeout"]; got != s.cfg.InactivityTimeout.String() {
		t.Errorf("settings InactivityTimeout = %q, want the flag's %s", got, s.cfg.InactivityTimeout)
	}
}

// A note and a set left while no watcher runs are applied when one comes
// back, once; the limit set outlasts the first run's flags at every resume.
func TestUnitSteeringLeftWithoutAWatcherIsAppliedWhenItComesBackAndKept(t *testing.T) {
	s := newSteered(t, func(s *steered, n int) {
		if n == 1 || n == 3 {
			s.unit.mu.Lock()
			s.interrupt() // the watcher goes; the agent runs on
			s.unit.mu.Unlock()
		}
	})
	s.cfg.MaxIterations = 2
	s.wantResult(s.run(), contract.ExitInterrupted, "interrupted")
	s.leave(state.Steer{Kind: state.SteerNote, Text: "left while away"})
	s.leave(state.Steer{Kind: state.SteerSet, Set: &state.Limits{MaxIterations: intp(4)}})
	s.cfg.Resume = true
	s.wantResult(s.run(), contract.ExitInterrupted, "interrupted") // in iteration 3
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")     // the flags still say 2
	if n := len(s.started()); n != 4 {
		t.Errorf("ran %d iterations, want 4", n)
	}
	s.wantPrompts("go", notes("left while away"), "go", "go")
	if got := strings.Count(strings.Join(s.logLines(), "\n"), "[SET] "); got != 1 {
		t.Errorf("[SET] logged %d times, want once", got)
	}
}

// A request recorded as applied whose file a stopped watcher left behind is
// removed, not applied again.
func TestUnitARequestAppliedBeforeAWatcherStoppedIsNotAppliedTwice(t *testing.T) {
	s := newSteered(t, nil)
	s.cfg.MaxIterations = 1
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	r, err := s.store.Steer(state.Steer{Kind: state.SteerNote, Text: "already sent"}, s.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	st := s.state()
	st.Steered = []string{r.ID}
	if err := s.store.Save(st); err != nil {
		t.Fatal(err)
	}
	s.leave(state.Steer{Kind: state.SteerSet, Set: &state.Limits{MaxIterations: intp(2)}})
	s.cfg.Resume = true
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	s.wantPrompts("go", "go")
	if left := s.store.Steers(); len(left) != 0 {
		t.Errorf("requests left: %+v", left)
	}
}

// A loop that ended at its limit goes on when the limit is raised, with its
// history: iterations, receipts.
func TestUnitALoopEndedAtItsLimitGoesOnOnceItIsRaised(t *testing.T) {
	s := newSteered(t, nil)
	s.cfg.MaxIterations = 2
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	s.leave(state.Steer{Kind: state.SteerSet, Set: &state.Limits{AddIterations: 3}})
	s.cfg.Resume = true
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	st := s.state()
	if st.CurrentIteration != 5 || len(st.IterationDurations) != 5 {
		t.Errorf("state: iteration %d, durations %v; want 5 of each", st.CurrentIteration, st.IterationDurations)
	}
	if rs, _ := receipt.Load(s.store.Path(state.ReceiptsFile)); len(rs) != 5 || rs[4].Iteration != 5 {
		t.Errorf("receipts: %+v", rs)
	}
	s.wantLog("[DONE] loop complete after 2 iterations", "[RESUME]", "[SET] max-iterations 5 at iteration 2", "[START] iteration 3/5",
		"[DONE] loop complete after 5 iterations")
}

func writePrompt(t *testing.T, u *unit, text string) {
	t.Helper()
	if err := os.WriteFile(u.cfg.PromptFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// skip ends the iteration now and sets its task aside; retry ends it and
// gives its task to a fresh agent, the try not counted (a tick it made is
// reopened). Both leave the agent's work in the tree.
func TestUnitSkipAndRetryEndTheIterationAndActOnItsTask(t *testing.T) {
	var u *unit
	ask := func(request string) {
		if err := u.store.Request(request); err != nil {
			t.Error(err)
		}
	}
	u = newUnit(t, "Work on the plan.\n", func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) {
			switch n {
			case 1: // works on task 1; the person skips it while it runs
				u.work(n)
				ask(state.RequestSkip)
			case 2: // ticks task 2 without work; the person asks for it again
				u.tick(input)
				ask(state.RequestRetry)
			default:
				u.work(n)
				u.tick(input)
				term.Exit(0)
			}
		})
	})
	u.simulate() // the loop takes the request at its next look, long before the agent goes quiet
	u.cfg.TasksFile = filepath.Join(u.cfg.Dir, "PLAN.md")
	u.cfg.TaskAttempts, u.cfg.ReviewCap, u.cfg.DiffChars = 3, 5, 20000
	u.cfg.MaxIterations = 20
	u.writePlan(threeTasks)
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
	if _, err := os.Stat(filepath.Join(u.cfg.Dir, "work-1")); err != nil {
		t.Errorf("the skipped iteration's work is gone: %v", err)
	}
	if item := u.taskItem("1"); item.State != "skipped" || item.Attempts != 1 {
		t.Errorf("task 1 = %+v, want skipped after its one try", item)
	}
	item := u.taskItem("2")
	if item.State != "done" || item.Attempts != 1 || len(item.Iterations) != 2 || item.Iterations[0] != 2 || item.Iterations[1] != 3 ||
		item.Verdicts[0].Verdict != "retry" {
		t.Errorf("task 2 = %+v, want retried in iteration 2, done in 3 with one attempt counted", item)
	}
	if p := u.pastes(); len(p) != 4 || !strings.Contains(p[1], "Add the command") || !strings.Contains(p[2], "Add the command") {
		t.Errorf("prompts = %q, want task 2 given again after the retry", p)
	}
	if st := u.state(); st.TotalFailures != 0 {
		t.Errorf("%d failures counted, want none", st.TotalFailures)
	}
	u.wantLog("[END] iteration 1 skipped", "[TASK] iteration 1 task 1 skipped: the person skipped it",
		"[END] iteration 2 retried", "[TASK] iteration 2 task 2 reopened", "[TASK] iteration 2 task 2 retry", "[TASK] iteration 3 task 2 implement attempt=1/3",
		"[TASK] iteration 3 task 2 done", "[TASK] iteration 4 task 3 done")
}

// A skip that comes while the loop waits between iterations ends the wait:
// the next iteration starts now, and the loop is not paused.
func TestUnitASkipBetweenIterationsStartsTheNextAtOnce(t *testing.T) {
	s := newSteered(t, func(s *steered, n int) {
		if n == 1 { // a few seconds into the wait after this iteration
			s.schedule(5*time.Second, func() {
				if err := s.store.Request(state.RequestSkip); err != nil {
					t.Error(err)
				}
			})
		}
	})
	s.simulate()
	s.cfg.MaxIterations = 2
	s.cfg.RestartDelay = 10 * time.Minute
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	if st := s.started(); len(st) != 2 || st[1].Sub(st[0]) >= 10*time.Minute {
		t.Errorf("agents started at %v, want the second before the delay ran out", st)
	}
}

// set --task-attempts gives a plan's tasks more tries from the next
// iteration; fewer than a task still open has had is refused.
func TestUnitSetTaskAttemptsChangesTheTriesOfThePlansTasks(t *testing.T) {
	u := planned(t, "- [ ] Only task\n", func(u *unit, n int, prompt string) {
		switch n {
		case 1:
			four := 4
			_, _ = u.store.Steer(state.Steer{Kind: state.SteerSet, Set: &state.Limits{TaskAttempts: &four}}, u.clock.Now())
		case 2:
			one := 1
			_, _ = u.store.Steer(state.Steer{Kind: state.SteerSet, Set: &state.Limits{TaskAttempts: &one}}, u.clock.Now())
		}
	})
	u.cfg.TaskAttempts = 2
	u.wantResult(u.run(), contract.ExitLimit, "tasks_skipped")
	if item := u.taskItem("1"); item.Attempts != 4 {
		t.Errorf("task 1 = %+v, want skipped after 4 tries", item)
	}
	u.wantLog("[SET] task-attempts 4 at iteration 1 (was task-attempts 2)",
		"[SET] refused task-attempts 1: --task-attempts 1 is below the 2 tries an open task has had",
		"[TASK] iteration 4 task 1 skipped: not done after 4 attempts")
}

// The last iteration the limits allow ends the loop at once: the wait
// before a next iteration (--restart-delay) is not waited out first.
func TestUnitTheLastIterationEndsTheLoopWithoutTheRestartDelay(t *testing.T) {
	s := newSteered(t, nil)
	s.simulate()
	s.cfg.MaxIterations = 1
	s.cfg.RestartDelay = 10 * time.Minute
	s.wantResult(s.run(), contract.ExitDone, "max_iterations")
	st := s.started()
	if len(st) != 1 {
		t.Fatalf("agents started at %v, want 1", st)
	}
	if ended := s.clock.Now(); ended.Sub(st[0]) >= 10*time.Minute {
		t.Errorf("the loop ended at %v, its last agent started at %v: it waited the restart delay for nothing", ended, st[0])
	}
}

// A raised limit shows in the pane's options (the status line, the popup's
// row) as soon as it is asked, while the iteration still runs; the loop
// takes it at the next iteration as before.
func TestUnitARaisedLimitShowsAtOnceWhileTheIterationRuns(t *testing.T) {
	var u *unit
	var max, status string // the pane's, as the first iteration's agent ends
	u = newUnit(t, "go", func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) {
			if n == 1 {
				if _, err := u.store.Steer(state.Steer{Kind: state.SteerSet, Set: &state.Limits{AddIterations: 8}}, u.clock.Now()); err != nil {
					t.Error(err)
				}
			}
			u.schedule(30*time.Second, func() { // a turn that takes a while
				if n == 1 {
					max, _, _ = u.tmux.PaneOption(u.cfg.Pane, contract.OptionMax)
					status, _, _ = u.tmux.PaneOption(u.cfg.Pane, contract.OptionStatus)
				}
				u.tmux.Act(u.cfg.Pane, func(t *tmuxfake.Term) { t.Exit(0) })
			})
		})
	})
	u.simulate()
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if max != "10" || !strings.Contains(status, "1/10") {
		t.Errorf("while iteration 1 ran the pane showed @ralph-max %q, @ralph-status %q; want the new limit, 10", max, status)
	}
	u.wantLog("[SET] max-iterations 10 at iteration 1 (was max-iterations 2)", "[START] iteration 2/10")
}
