package watch

import (
	"cmp"
	"context"
	"errors"
	"os"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// wait sleeps between iterations; a pause or stop request, or an interrupt,
// ends the wait at once and is returned (endWaitOver: the wait ran out).
func (l *Loop) wait(ctx context.Context, d time.Duration) ending {
	timer := l.Clock.After(d)
	for {
		if end, ok := l.request(); ok {
			return end
		}
		select {
		case <-ctx.Done():
			return endInterrupted
		case <-timer:
			return endWaitOver
		case <-l.Wake:
		case <-l.Clock.After(time.Second): // a request whose signal was lost
		}
	}
}

// request takes a pending pause or stop request.
func (l *Loop) request() (ending, bool) {
	switch l.Store.TakeRequest() {
	case state.RequestPause:
		return endPaused, true
	case state.RequestStop:
		return endStopped, true
	case state.RequestStopKill:
		l.killOnStop = true
		return endStopped, true
	}
	return endNone, false
}

// monitor watches the running agent until something ends the iteration.
//
// It wakes on the agent's output: the done scanner reads it as it arrives,
// and the screen is looked at (captured and hashed) at most once per poll
// interval while output flows, and again when the inactivity timeout would
// run out, so a still pane costs no tmux call at all. What output cannot
// tell (the pane closed, the server gone, a done file, a lost request) is
// checked every CheckEvery without tmux: the pane's process is looked up in
// /proc, and only a change there costs a look. Without a stream it polls
// the screen every poll interval, as it must.
func (l *Loop) monitor(ctx context.Context, it *iteration, started time.Time) ending {
	var det agent.Detector
	var timeout <-chan time.Time
	if l.IterationTimeout > 0 {
		timeout = l.Clock.After(l.IterationTimeout - l.Clock.Now().Sub(started))
	}
	var notify <-chan struct{}
	if l.stream != nil {
		notify = l.stream.Notify()
	}
	due := l.Clock.After(0) // the next look the detector needs (first, deadline, or poll)
	dueAt := l.Clock.Now()
	var soon <-chan time.Time // a look because output arrived
	checkInterval := l.PollInterval
	if l.stream != nil {
		checkInterval = max(checkInterval, cmp.Or(l.CheckEvery, checkEvery))
	}
	check := l.Clock.After(checkInterval)
	var quiet <-chan time.Time // fires when output has paused after arriving
	var proc agent.PaneProcess
	for {
		select { // first, before a flood of output is read: it could keep them waiting
		case <-ctx.Done():
			return endInterrupted
		case <-timeout:
			return endTimeout
		default:
		}
		l.take(it)
		if it.match != "" && l.CheckDoneContinuous {
			return endDone
		}
		if it.exited {
			return endExit
		}
		looked := false
		select {
		case <-ctx.Done():
			return endInterrupted
		case <-l.Wake:
			if end, ok := l.request(); ok {
				return end
			}
			if end, ok := l.hookEnding(it); ok {
				return end
			}
		case <-notify:
			quiet = l.Clock.After(quietAfter)
			if soon == nil {
				soon = l.Clock.After(l.PollInterval)
			}
		case <-quiet:
			quiet = nil
			if l.CheckDoneContinuous {
				l.flush(it)
			}
		case <-timeout:
			return endTimeout
		case <-soon:
			soon, looked = nil, true
		case <-due:
			due, looked = nil, true
		case <-check:
			check = l.Clock.After(checkInterval)
			if l.doneFileExists() {
				return endDoneFile
			}
			if l.pauseFileSeen() {
				return endPaused
			}
			if end, ok := l.request(); ok {
				return end
			}
			if l.MaxTime > 0 && l.Clock.Now().Sub(l.start) >= l.MaxTime {
				return endMaxTime
			}
			if end, ok := l.budgetEnding(); ok {
				return end
			}
			if end, ok := l.hookEnding(it); ok { // its signal was lost
				return end
			}
			if l.Clock.Now().Sub(l.lastBeat) >= heartbeatEvery {
				l.save()
			}
			looked = !proc.Running()
		}
		if !looked {
			continue
		}
		pane, end, ended, next, err := l.look(it, &det)
		if err != nil {
			return l.goneEnding(err)
		}
		if pane.Dead {
			return endExit
		}
		if ended {
			return end
		}
		proc = agent.WatchProcess(pane.PID)
		now := l.Clock.Now()
		switch {
		case l.stream == nil:
			if due == nil {
				due = l.Clock.After(l.PollInterval)
			}
		case next > 0 && (due == nil || now.Add(next).Before(dueAt)): // the soonest deadline wins
			due, dueAt = l.Clock.After(next), now.Add(next)
		}
	}
}

// look captures the pane's last lines and judges them (the agent's state,
// inactivity): the one place the monitor reads the screen. next is how soon
// another look could change the verdict with no new output; 0: never.
func (l *Loop) look(it *iteration, det *agent.Detector) (pane tmux.Pane, end ending, ended bool, next time.Duration, err error) {
	now := l.Clock.Now()
	pane, screen, err := l.Tmux.Snapshot(l.captureRequest())
	if err == nil && !l.sameServer(pane) {
		err = errNewServer
	}
	if err != nil || pane.Dead {
		return pane, endNone, false, 0, err
	}
	l.castResize(pane)
	l.noteAgentEnv(pane.PID) // for its receipt, should it exit before it is read
	end, ended, next = l.observe(it, det, screen, now)
	return pane, end, ended, next, nil
}

func (l *Loop) capture() (string, error) {
	return l.Tmux.Capture(l.captureRequest())
}

// captureRequest asks for the last lines with wrapped lines joined, so a
// client attaching at another width does not look like activity.
func (l *Loop) captureRequest() tmux.CaptureRequest {
	return tmux.CaptureRequest{Pane: l.Pane, Start: -l.Lines, Join: true}
}

// serverGoneWait is how long a killed server may take to stop answering.
const serverGoneWait = 200 * time.Millisecond

// goneEnding tells a closed pane from a dead server.
func (l *Loop) goneEnding(err error) ending {
	if tmux.NoServer(err) || errors.Is(err, errNewServer) {
		return endServerGone
	}
	if errors.Is(err, tmux.ErrNoPane) {
		// A server shutting down drops its panes first: ask again a moment later.
		<-l.Clock.After(serverGoneWait)
	}
	pane, perr := l.Tmux.Pane(l.Pane)
	if tmux.NoServer(perr) || perr == nil && !l.sameServer(pane) {
		return endServerGone
	}
	return endPaneGone
}

// errNewServer: the pane id answers from another tmux server than the
// loop's (it was restarted and hands out the old ids again): the loop's
// server is gone.
var errNewServer = errors.New("the tmux server was restarted")

// sameServer says whether pane lives in the server the loop started in.
func (l *Loop) sameServer(pane tmux.Pane) bool {
	return pane.ServerPID == 0 || l.st.ServerPID == 0 || pane.ServerPID == l.st.ServerPID
}

func (l *Loop) doneFileExists() bool {
	if l.DoneFile == "" {
		return false
	}
	_, err := os.Stat(l.DoneFile)
	return err == nil
}

// sleep waits d or until ctx ends; false if ctx ended. A done file ends a long wait early.
func (l *Loop) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-l.Clock.After(d):
		return true
	}
}
