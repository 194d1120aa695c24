package watch

import (
	"context"
	"os"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// requests are what the person asks of a running loop (ralph-watch pause,
// stop, stop --kill, skip, retry): a file in the loop's folder and a signal that wakes
// the watcher.
type requests struct {
	store *state.Store
	clock clock.Clock
	wake  <-chan os.Signal // a command left a request (SIGUSR1)
	kill  bool             // a stop asked for the agent to be ended too
}

// wait sleeps between iterations; a pause or stop request, or an interrupt,
// ends the wait at once and is returned (endWaitOver: the wait ran out).
func (q *requests) wait(ctx context.Context, d time.Duration) ending {
	timer := q.clock.After(d)
	for {
		if end, ok := q.take(); ok {
			if endings[end].nextNow { // no iteration runs: the next starts now
				return endWaitOver
			}
			return end
		}
		select {
		case <-ctx.Done():
			return endInterrupted
		case <-timer:
			return endWaitOver
		case <-q.wake:
		case <-q.clock.After(time.Second): // a request whose signal was lost
		}
	}
}

// take takes a pending pause or stop request.
func (q *requests) take() (ending, bool) {
	switch q.store.TakeRequest() {
	case state.RequestPause:
		return endPaused, true
	case state.RequestStop:
		return endStopped, true
	case state.RequestStopKill:
		q.kill = true
		return endStopped, true
	case state.RequestSkip:
		return endSkipped, true
	case state.RequestRetry:
		return endRetried, true
	}
	return endNone, false
}

// sleep waits d or until ctx ends; false if ctx ended.
func (q *requests) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-q.clock.After(d):
		return true
	}
}
