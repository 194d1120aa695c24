package watch_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// failing is an agent that takes its prompt as an argument and fails at once.
func failing(code int) func(int) *tmuxfake.Program {
	return func(int) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(t *tmuxfake.Term) { t.Write("boom"); t.Exit(code) }}
	}
}

func TestUnitAFailedIterationWaitsExactlyItsBackoffBeforeTheNext(t *testing.T) {
	u := newUnit(t, "go", failing(3))
	u.cfg.PromptMode = watch.ModeArg
	u.cfg.MaxIterations = 10
	u.manual()
	done := u.start()
	for n := 1; n < 5; n++ {
		u.waitFor(fmt.Sprintf("backoff after failure %d", n), func(st *state.State) bool {
			return st.ConsecutiveFailures == n && st.Shown == watch.StatusBackoff.String()
		})
		wait := watch.Backoff(n)
		u.waitTimer(wait)
		u.clock.Advance(wait - time.Millisecond)
		time.Sleep(20 * time.Millisecond) // a loop that did not wait would start the agent now
		if got := len(u.started()); got != n {
			t.Fatalf("the agent started again %s before the end of backoff %d (%s)", time.Millisecond, n, wait)
		}
		u.clock.Advance(time.Millisecond)
		u.waitStarted(n + 1)
	}
	res := <-done
	u.wantResult(res, watch.ExitFailed, "consecutive_failures")
	started := u.started()
	for n := 1; n < len(started); n++ {
		if gap := started[n].Sub(started[n-1]); gap != watch.Backoff(n) {
			t.Errorf("start %d came %s after start %d, want exactly the backoff %s", n+1, gap, n, watch.Backoff(n))
		}
	}
	u.wantLog("iteration 1 exit=3 attempt=1/5 backoff=1s", "iteration 2 exit=3 attempt=2/5 backoff=2s",
		"iteration 4 exit=3 attempt=4/5 backoff=8s", "iteration 5 exit=3 attempt=5/5")
	if st := u.state(); st.Status != state.Failed || st.TotalFailures != 5 || st.ExitReason == nil || *st.ExitReason != "consecutive_failures" {
		t.Errorf("state = %+v, want failed after 5 failures", st)
	}
}

func TestUnitASuccessResetsTheFailureCount(t *testing.T) {
	u := newUnit(t, "go", func(n int) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(t *tmuxfake.Term) {
			if n == 2 {
				t.Exit(0)
				return
			}
			t.Exit(1)
		}}
	})
	u.cfg.PromptMode = watch.ModeArg
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), watch.ExitDone, "max_iterations")
	if st := u.state(); st.ConsecutiveFailures != 1 || st.TotalFailures != 2 {
		t.Errorf("consecutive %d total %d, want 1 and 2", st.ConsecutiveFailures, st.TotalFailures)
	}
	u.wantLog("iteration 1 exit=1 attempt=1/5 backoff=1s", "[END] iteration 2 exit=0", "iteration 3 exit=1 attempt=1/5 backoff=1s")
}
