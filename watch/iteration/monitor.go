package iteration

import (
	"cmp"
	"context"
	"errors"
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
func (w *Watch) monitor(ctx context.Context, started time.Time) Ending {
	var det agent.Detector
	var timeout <-chan time.Time
	if w.cfg.IterationTimeout > 0 {
		timeout = w.clock.After(w.cfg.IterationTimeout - w.clock.Now().Sub(started))
	}
	var notify <-chan struct{}
	if w.out.stream() != nil {
		notify = w.out.stream().Notify()
	}
	due := w.clock.After(0) // the next look the detector needs (first, deadline, or poll)
	dueAt := w.clock.Now()
	var soon <-chan time.Time // a look because output arrived
	checkInterval := w.cfg.PollInterval
	if w.out.stream() != nil {
		checkInterval = max(checkInterval, cmp.Or(w.cfg.CheckEvery, checkEvery))
	}
	check := w.clock.After(checkInterval)
	var quiet <-chan time.Time // fires when output has paused after arriving
	var proc agent.PaneProcess
	for {
		select { // first, before a flood of output is read: it could keep them waiting
		case <-ctx.Done():
			return EndInterrupted
		case <-timeout:
			return EndTimeout
		default:
		}
		w.out.take()
		if w.out.match != "" && w.cfg.CheckDoneContinuous {
			return EndDone
		}
		if w.out.exited {
			return EndExit
		}
		looked := false
		select {
		case <-ctx.Done():
			return EndInterrupted
		case <-w.asks.Wake():
			if end, ok := w.asks.Take(); ok {
				return end
			}
			if end, ok := w.turn.hookEnding(); ok {
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
				w.out.flush()
			}
		case <-timeout:
			return EndTimeout
		case <-soon:
			soon, looked = nil, true
		case <-due:
			due, looked = nil, true
		case <-check:
			check = w.clock.After(checkInterval)
			if end, ok := w.interrupted(); ok { // the done and pause files, a request, max time, the budget
				return end
			}
			if end, ok := w.turn.hookEnding(); ok { // its signal was lost
				return end
			}
			w.rec.Heartbeat()
			looked = !proc.Running()
		}
		if !looked {
			continue
		}
		pane, end, ended, next, err := w.look(&det)
		if err != nil {
			return w.pane.Gone(err)
		}
		if pane.Dead {
			return EndExit
		}
		if ended {
			return end
		}
		proc = agent.WatchProcess(pane.PID)
		now := w.clock.Now()
		switch {
		case w.out.stream() == nil:
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
func (w *Watch) look(det *agent.Detector) (pane tmux.Pane, end Ending, ended bool, next time.Duration, err error) {
	now := w.clock.Now()
	pane, screen, err := w.tmux.Snapshot(captureRequest(w.cfg))
	if err == nil && !w.pane.Same(pane) {
		err = ErrNewServer
	}
	if err != nil || pane.Dead {
		return pane, EndNone, false, 0, err
	}
	w.casts.Resize(pane)
	w.spend.NoteEnv(pane.PID) // for its receipt, should it exit before it is read
	end, ended, next = w.turn.observe(det, screen, now)
	return pane, end, ended, next, nil
}

// interrupted asks each of the iteration's interrupts, in turn, whether it
// ends the iteration.
func (w *Watch) interrupted() (Ending, bool) {
	for _, in := range w.interrupts {
		if end, ok := in.Check(); ok {
			return end, true
		}
	}
	return EndNone, false
}

// Waits of the watch that are not flags.
const (
	checkEvery = 5 * time.Second        // Settings.CheckEvery's default (each wake costs)
	quietAfter = 15 * time.Millisecond  // output paused this long: judge held-back lines
	hookSettle = 3 * time.Second        // longest wait for output after a turn-end hook: a busy machine draws the reply late
	hookQuiet  = 150 * time.Millisecond // after a turn-end hook, output paused this long is all there is
)

// ErrNewServer: the pane id answers from another tmux server than the
// loop's (it was restarted and hands out the old ids again): the loop's
// server is gone.
var ErrNewServer = errors.New("the tmux server was restarted")

// capture is the pane's last lines (Settings.Lines).
func capture(c tmux.Client, cfg *Settings) (string, error) {
	return c.Capture(captureRequest(cfg))
}

// captureRequest asks for the last lines with wrapped lines joined, so a
// client attaching at another width does not look like activity.
func captureRequest(cfg *Settings) tmux.CaptureRequest {
	return tmux.CaptureRequest{Pane: cfg.Pane, Start: -cfg.Lines, Join: true}
}

// sleep waits d or until ctx ends; false if ctx ended.
func (d *delivery) sleep(ctx context.Context, wait time.Duration) bool {
	if wait <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-d.clock.After(wait):
		return true
	}
}
