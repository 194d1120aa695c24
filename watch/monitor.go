package watch

import (
	"cmp"
	"context"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

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
func (w *agentWatch) monitor(ctx context.Context, started time.Time) ending {
	var det agent.Detector
	var timeout <-chan time.Time
	if w.cfg.IterationTimeout > 0 {
		timeout = w.clock.After(w.cfg.IterationTimeout - w.clock.Now().Sub(started))
	}
	var notify <-chan struct{}
	if w.pane.stream != nil {
		notify = w.pane.stream.Notify()
	}
	due := w.clock.After(0) // the next look the detector needs (first, deadline, or poll)
	dueAt := w.clock.Now()
	var soon <-chan time.Time // a look because output arrived
	checkInterval := w.cfg.PollInterval
	if w.pane.stream != nil {
		checkInterval = max(checkInterval, cmp.Or(w.cfg.CheckEvery, checkEvery))
	}
	check := w.clock.After(checkInterval)
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
		w.take()
		if w.match != "" && w.cfg.CheckDoneContinuous {
			return endDone
		}
		if w.exited {
			return endExit
		}
		looked := false
		select {
		case <-ctx.Done():
			return endInterrupted
		case <-w.asks.wake:
			if end, ok := w.asks.take(); ok {
				return end
			}
			if end, ok := w.hookEnding(); ok {
				return end
			}
		case <-notify:
			quiet = w.clock.After(quietAfter)
			if soon == nil {
				soon = w.clock.After(w.cfg.PollInterval)
			}
		case <-quiet:
			quiet = nil
			if w.cfg.CheckDoneContinuous {
				w.flush()
			}
		case <-timeout:
			return endTimeout
		case <-soon:
			soon, looked = nil, true
		case <-due:
			due, looked = nil, true
		case <-check:
			check = w.clock.After(checkInterval)
			if end, ok := w.loopChecks(); ok { // the done and pause files, a request, max time, the budget
				return end
			}
			if end, ok := w.hookEnding(); ok { // its signal was lost
				return end
			}
			if w.clock.Now().Sub(w.rec.lastSave) >= heartbeatEvery {
				w.rec.save()
			}
			looked = !proc.Running()
		}
		if !looked {
			continue
		}
		pane, end, ended, next, err := w.look(&det)
		if err != nil {
			return w.pane.gone(err)
		}
		if pane.Dead {
			return endExit
		}
		if ended {
			return end
		}
		proc = agent.WatchProcess(pane.PID)
		now := w.clock.Now()
		switch {
		case w.pane.stream == nil:
			if due == nil {
				due = w.clock.After(w.cfg.PollInterval)
			}
		case next > 0 && (due == nil || now.Add(next).Before(dueAt)): // the soonest deadline wins
			due, dueAt = w.clock.After(next), now.Add(next)
		}
	}
}

// look captures the pane's last lines and judges them (the agent's state,
// inactivity): the one place the monitor reads the screen. next is how soon
// another look could change the verdict with no new output; 0: never.
func (w *agentWatch) look(det *agent.Detector) (pane tmux.Pane, end ending, ended bool, next time.Duration, err error) {
	now := w.clock.Now()
	pane, screen, err := w.tmux.Snapshot(w.pane.captureRequest())
	if err == nil && !w.pane.same(pane) {
		err = errNewServer
	}
	if err != nil || pane.Dead {
		return pane, endNone, false, 0, err
	}
	w.casts.resize(pane)
	w.spend.noteEnv(pane.PID) // for its receipt, should it exit before it is read
	end, ended, next = w.observe(det, screen, now)
	return pane, end, ended, next, nil
}
