package watch_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/pane"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
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
			return st.ConsecutiveFailures == n && st.Shown == contract.StatusBackoff.String()
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
		u.wantResult(res, contract.ExitInterrupted, "paused")
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

func TestUnitResumingALoopPausedInALimitWaitWaitsForTheReset(t *testing.T) {
	reset := unitStart.Add(9 * time.Second)
	u := newUnit(t, "do the work", func(n int) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(t *tmuxfake.Term) {
			if n == 1 {
				t.Write(limitText(reset) + "\n")
				t.Exit(1)
				return
			}
			t.Exit(0)
		}}
	})
	u.asClaude()
	u.cfg.MinLimitWait = time.Nanosecond // the reset, not a minute
	u.cfg.PromptMode = agent.ModeArg
	notes := filepath.Join(u.cfg.Dir, "notes")
	u.tmux.SetGlobal(pane.NotifyOption, `printf '%s|%s\n' "$RALPH_STATE" "$RALPH_REASON" >> `+shQuote(notes))
	wake := make(chan os.Signal, 1)
	u.wake = wake
	u.manual()
	done := u.start()
	u.waitFor("the limit wait", func(st *state.State) bool { return st.WaitingUntil == state.Stamp(reset) })
	if err := u.store.Request(state.RequestPause); err != nil {
		t.Fatal(err)
	}
	wake <- syscall.SIGUSR1
	u.wantResult(<-done, contract.ExitInterrupted, "paused")
	if st := u.state(); st.WaitingUntil == "" || st.CurrentIteration != 0 {
		t.Fatalf("paused in the wait: waiting until %q at iteration %d", st.WaitingUntil, st.CurrentIteration)
	}
	u.cfg.Resume = true
	done = u.start()
	shown := ""
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		state, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionState)
		status, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionStatus)
		if shown = state + " " + status; strings.Contains(u.out.String(), "resuming the wait") && strings.HasPrefix(shown, "waiting ") {
			break
		}
	}
	u.wantOutput("resuming the wait")
	if !strings.HasPrefix(shown, "waiting ⏳ 1/1 waiting for limit reset") {
		t.Errorf("while it waits again the pane shows %q", shown)
	}
	u.waitTimer(reset.Sub(u.clock.Now()))
	noticed := func(what string) string { // the notify command runs on its own, as it would in the hours of a wait
		var notices string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !strings.Contains(notices, what); time.Sleep(time.Millisecond) {
			b, _ := os.ReadFile(notes)
			notices = string(b)
		}
		return notices
	}
	noticed("waiting|")
	u.clock.Advance(reset.Sub(u.clock.Now()))
	u.wantResult(<-done, contract.ExitDone, "max_iterations")
	if started := u.started(); len(started) != 2 || started[1].Before(reset) {
		t.Errorf("the agent started at %v, want again at the reset %v", started, reset)
	}
	notices := noticed("done|")
	if want := "waiting|limit reset (" + reset.Format("15:04") + ")\ndone|max_iterations\n"; notices != want {
		t.Errorf("notices %q, want %q: the limit once, the end once", notices, want)
	}
}

// A pause in the moment between iterations (after the [END] line, before
// the next respawn), then resume: the finished iteration is recorded once,
// its receipt once, and the loop goes on with the next.
func TestUnitAPauseBetweenIterationsRecordsTheFinishedIterationOnce(t *testing.T) {
	wake := make(chan os.Signal, 1)
	var u *unit
	u = newUnit(t, "finish the plan", func(n int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, _ string) {
			t.Write("working")
			t.Exit(0)
			if n == 1 {
				u.schedule(time.Second, func() { // the pause lands in the restart delay
					if err := u.store.Request(state.RequestPause); err != nil {
						u.t.Error(err)
					}
					wake <- syscall.SIGUSR1
				})
			}
		})
	})
	u.simulate()
	u.wake = wake
	u.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE`)
	u.cfg.RestartDelay = 3 * time.Second
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitInterrupted, "paused")
	u.wantOutput("iteration 1 completed")
	if n := len(u.started()); n != 1 {
		t.Fatalf("paused after %d starts, want between iterations 1 and 2", n)
	}
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	log := strings.Join(u.logLines(), "\n")
	if n := strings.Count(log, "[END] iteration 1 "); n != 1 {
		t.Errorf("%d [END] lines for iteration 1, want 1:\n%s", n, log)
	}
	if n := strings.Count(log, "[COST] iteration 1 "); n != 1 {
		t.Errorf("%d [COST] lines for iteration 1, want 1:\n%s", n, log)
	}
	if !strings.Contains(log, "[END] iteration 2 ") {
		t.Errorf("iteration 2 did not run after the resume:\n%s", log)
	}
}
