package watch_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
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
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 10
	u.manual()
	done := u.start()
	for n := 1; n < 5; n++ {
		u.waitFor(fmt.Sprintf("backoff after failure %d", n), func(st *state.State) bool {
			return st.ConsecutiveFailures == n && st.Shown == contract.StatusBackoff.String()
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
	u.wantResult(res, contract.ExitFailed, "consecutive_failures")
	started := u.started()
	for n := 1; n < len(started); n++ {
		if gap := started[n].Sub(started[n-1]); gap != watch.Backoff(n) {
			t.Errorf("start %d came %s after start %d, want exactly the backoff %s", n+1, gap, n, watch.Backoff(n))
		}
	}
	u.wantLog("iteration 1 exit=3 attempt=1/5 backoff=1s", "iteration 2 exit=3 attempt=2/5 backoff=2s",
		"iteration 4 exit=3 attempt=4/5 backoff=8s", "iteration 5 exit=3 attempt=5/5")
	u.wantOutput(
		"iteration 1 failed (exit: 3), retrying in 1s (attempt 1/5)",
		"iteration 2 failed (exit: 3), retrying in 2s (attempt 2/5)",
		"iteration 4 failed (exit: 3), retrying in 8s (attempt 4/5)",
		"[ralph] unit: 5 consecutive failures, stopping loop",
	)
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
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations") // its last iteration failed: not done
	if st := u.state(); st.ConsecutiveFailures != 1 || st.TotalFailures != 2 {
		t.Errorf("consecutive %d total %d, want 1 and 2", st.ConsecutiveFailures, st.TotalFailures)
	}
	u.wantLog("iteration 1 exit=1 attempt=1/5 backoff=1s", "[END] iteration 2 exit=0", "iteration 3 exit=1 attempt=1/5")
	u.wantOutput("iteration 1 failed (exit: 1), retrying in 1s (attempt 1/5)", "iteration 3 failed (exit: 1)")
	if strings.Contains(u.logText(), "iteration 3 exit=1 attempt=1/5 backoff") || strings.Count(u.out.String(), "retrying in") != 1 {
		t.Errorf("the last iteration's failure promises a retry:\n%s", u.out.String())
	}
}

// limitText is what a limited agent shows: the reset time as an epoch.
func limitText(reset time.Time) string {
	return fmt.Sprintf("Claude AI usage limit reached|%d", reset.Unix())
}

func TestUnitAUsageLimitOnScreenWaitsForTheResetAndIsNotCounted(t *testing.T) {
	reset := unitStart.Add(2 * time.Hour)
	u := newUnit(t, "go", func(n int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, input string) {
			if n == 1 { // it stays at its prompt, limited
				t.Write(limitText(reset))
				return
			}
			t.Write("worked")
			t.Exit(0)
		})
	})
	u.cfg.Agent = knownAgent()
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	started := u.started()
	if len(started) != 2 || started[1].Before(reset) {
		t.Fatalf("agent started at %v, want again only after the reset at %v", started, reset)
	}
	u.wantLog("[START] iteration 1/1", "[LIMIT] iteration 1 not counted, waiting until "+state.Stamp(reset),
		"[START] iteration 1/1", "[END] iteration 1 exit=0")
	if st := u.state(); st.CurrentIteration != 1 || st.TotalFailures != 0 || st.WaitingUntil != "" {
		t.Errorf("state = %+v, want iteration 1 counted once, no failure, no wait left", st)
	}
	if !strings.Contains(u.out.String(), "waiting for limit reset ("+reset.Format("15:04")+")") {
		t.Errorf("output lacks the reset time:\n%s", u.out.String())
	}
}

func TestUnitTheLoopStartsAgainExactlyAtTheLimitsReset(t *testing.T) {
	reset := unitStart.Add(5 * time.Hour)
	u := newUnit(t, "go", func(n int) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(t *tmuxfake.Term) {
			if n == 1 {
				t.Write(limitText(reset))
				t.Exit(1)
				return
			}
			t.Exit(0)
		}}
	})
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.Agent = knownAgent()
	u.manual()
	done := u.start()
	u.waitFor("the wait for the reset", func(st *state.State) bool { return st.WaitingUntil == state.Stamp(reset) })
	u.waitTimer(reset.Sub(u.clock.Now()))
	u.clock.Advance(reset.Sub(u.clock.Now()) - time.Millisecond)
	time.Sleep(20 * time.Millisecond) // a loop that did not wait would start the agent now
	if n := len(u.started()); n != 1 {
		t.Fatalf("the agent started again before the reset")
	}
	if st := u.state(); st.Shown != contract.StatusWaiting.String() {
		t.Errorf("status while waiting for the reset = %q, want %q", st.Shown, contract.StatusWaiting.String())
	}
	u.clock.Advance(time.Millisecond)
	u.waitStarted(2)
	u.wantResult(<-done, contract.ExitDone, "max_iterations")
	if got := u.started()[1]; !got.Equal(reset) {
		t.Errorf("the agent started again at %v, want at the reset %v", got, reset)
	}
}
