package watch_test

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

func TestUnitAPauseRequestEndsABackoffWaitAtOnce(t *testing.T) {
	u := newUnit(t, "go", failing(1))
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 10
	u.cfg.BackoffWait = func(n int) time.Duration { // the first three short, then a minute: far more than a pause may take
		if n < 4 {
			return 10 * time.Millisecond
		}
		return time.Minute
	}
	wake := make(chan os.Signal, 1)
	u.wake = wake
	u.manual()
	done := u.start()
	for n := 1; n <= 4; n++ {
		u.waitFor(fmt.Sprintf("backoff after failure %d", n), func(st *state.State) bool {
			return st.ConsecutiveFailures == n && st.Shown == words.StatusBackoff.String()
		})
		u.waitTimer(u.cfg.BackoffWait(n))
		if n < 4 {
			u.clock.Advance(u.cfg.BackoffWait(n))
		}
	}
	u.wantOutput("retrying in 60s")
	if err := u.store.Request(state.RequestPause); err != nil {
		t.Fatal(err)
	}
	wake <- syscall.SIGUSR1
	select {
	case res := <-done: // the clock stands still: only the request can end the wait
		u.wantResult(res, words.ExitInterrupted, "paused")
	case <-time.After(5 * time.Second):
		u.mu.Lock()
		u.interrupt()
		u.mu.Unlock()
		<-done
		t.Fatalf("the pause did not end the minute of backoff; output:\n%s", u.out.String())
	}
	if st := u.state(); st.Status != state.Paused || st.CurrentIteration != 4 {
		t.Errorf("state %s at %d, want paused at 4", st.Status, st.CurrentIteration)
	}
	if n := len(u.started()); n != 4 {
		t.Errorf("the agent started %d times, want 4", n)
	}
}
