package watch

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// wait waits d between iterations; an interrupt or a request that comes
// meanwhile pauses or stops the loop.
func (l *Loop) wait(ctx context.Context, d time.Duration) *Exit {
	end := l.asks.wait(ctx, d)
	if end == iteration.EndWaitOver { // not an ending: the wait ran its course
		return nil
	}
	return leaveBetween(l, end)
}

// waitForLimit waits out a usage limit until its reset (or the limit wait
// when no time is written). The iteration is not counted, nor is it a failure.
func waitForLimit(ctx context.Context, l *Loop, text string) *Exit {
	now := l.Clock.Now()
	until, ok := agent.ParseReset(text, now)
	if !ok || until.Sub(now) > maxLimitWait {
		until = now.Add(l.LimitWait)
	}
	if least := cmp.Or(l.MinLimitWait, minLimitWait); until.Sub(now) < least {
		until = now.Add(least)
	}
	l.steer.giveBack()      // its notes go to its new start
	l.rec.WaitingFor(until) // the iteration is run again after the reset
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	l.rec.Sayf("usage limit reached (%s), %s", strings.TrimSpace(line), resetNote(until))
	l.rec.Log("LIMIT", fmt.Sprintf("iteration %d not counted, waiting until %s", l.rec.Iteration()+1, state.Stamp(until)))
	l.rec.AgentState(agent.StateLimited)
	return waitForReset(ctx, l, until)
}

// waitForReset waits until a usage limit resets; a pause meanwhile keeps
// the reset time, so resume waits on instead of starting an iteration.
func waitForReset(ctx context.Context, l *Loop, until time.Time) *Exit {
	now := l.Clock.Now()
	l.status.SetNote(resetNote(until))
	show(l, contract.StatusWaiting)
	wait := until.Sub(now)
	if l.MaxTime > 0 {
		wait = max(0, min(wait, l.MaxTime-now.Sub(l.start)))
	}
	return l.wait(ctx, wait)
}

func resetNote(until time.Time) string {
	return "waiting for limit reset (" + until.Format("15:04") + ")"
}

// resumeWait goes back to waiting for a usage limit's reset when the loop
// was paused while it waited; waited is false when there is nothing to wait for.
func resumeWait(ctx context.Context, l *Loop) (e *Exit, waited bool) {
	until, err := time.ParseInLocation(state.TimeFormat, l.rec.State().WaitingUntil, time.Local)
	if err != nil {
		return nil, false
	}
	if !until.After(l.Clock.Now()) {
		return nil, true // the reset has passed: the next iteration starts
	}
	l.rec.Sayf("resuming the wait for the usage limit's reset (%s)", until.Format("15:04"))
	l.status.Told(contract.StatusWaiting) // the person was told when the limit came, and resumed it knowing
	return waitForReset(ctx, l, until), true
}

// timeLimit ends the iteration running when the loop's max time is up
// (an iteration.Interrupt).
type timeLimit struct {
	end   time.Time
	clock clock.Clock
}

func (t timeLimit) Check() (iteration.Ending, bool) {
	if t.clock.Now().Before(t.end) {
		return iteration.EndNone, false
	}
	return iteration.EndMaxTime, true
}
