package steering

import (
	"context"
	"os"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Requests are what the person asks of a running loop (ralph-watch pause,
// stop, stop --kill, skip, retry): a file in the loop's folder and a signal
// that wakes the watcher.
type Requests struct {
	Store *state.Store
	Clock clock.Clock
	Woken <-chan os.Signal // a command left a request (SIGUSR1)
	// Looked, when set, runs each time the requests are looked at: what a
	// command left besides them (a new limit) may change what the pane shows.
	Looked func()
	kill   bool // a stop asked for the agent to be ended too
}

// Wait sleeps between iterations; a pause or stop request, or an interrupt,
// ends the wait at once and is returned (iteration.EndWaitOver: the wait ran out).
func (q *Requests) Wait(ctx context.Context, d time.Duration) iteration.Ending {
	timer := q.Clock.After(d)
	for {
		if end, ok := q.Take(); ok {
			if end.NextNow() { // no iteration runs: the next starts now
				return iteration.EndWaitOver
			}
			return end
		}
		select {
		case <-ctx.Done():
			return iteration.EndInterrupted
		case <-timer:
			return iteration.EndWaitOver
		case <-q.Woken:
		case <-q.Clock.After(time.Second): // a request whose signal was lost
		}
	}
}

// Take takes a pending pause or stop request.
func (q *Requests) Take() (iteration.Ending, bool) {
	if q.Looked != nil {
		q.Looked()
	}
	switch q.Store.TakeRequest() {
	case state.RequestPause:
		return iteration.EndPaused, true
	case state.RequestStop:
		return iteration.EndStopped, true
	case state.RequestStopKill:
		q.kill = true
		return iteration.EndStopped, true
	case state.RequestSkip:
		return iteration.EndSkipped, true
	case state.RequestRetry:
		return iteration.EndRetried, true
	}
	return iteration.EndNone, false
}

// Killing reports whether a stop asked for the agent to be ended too.
func (q *Requests) Killing() bool { return q.kill }

// Check takes a pending request while an iteration runs (an iteration.Interrupt).
func (q *Requests) Check() (iteration.Ending, bool) { return q.Take() }

// Wake receives when a command left a request.
func (q *Requests) Wake() <-chan os.Signal { return q.Woken }
