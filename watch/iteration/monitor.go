package iteration

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
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

// output is what the agent writes, read from the pane's output stream
// into the iteration: the done scanner, bracketed paste, the exit marker.
type output struct {
	tmux   tmux.Client
	paneID string
	pane   Pane // whose stream it reads
	clock  clock.Clock
	events *events

	nonce      string // its exit marker's; "": any marker is this agent's
	scanner    *agent.DoneScanner
	match      string // the done match
	exited     bool
	exitMarked int   // the status in its exit marker; -1 until seen
	since      int64 // the stream's length when the agent was started
	pasteOn    bool  // the agent turned on bracketed paste
	spoke      bool  // the agent has written something
}

// stream is the pane's output stream; nil: it is not read.
func (o *output) stream() Output { return o.pane.Output() }

// take moves new output into the iteration: text to the done scanner,
// markers to the exit status.
func (o *output) take() {
	if o.stream() == nil {
		return
	}
	text, markers := o.stream().Take()
	if text != "" && !o.spoke {
		o.spoke = true
		o.events.tell(contract.EventOutput, contract.ViaStream, "")
	}
	if o.scanner != nil && o.match == "" && text != "" {
		if m, ok := o.scanner.Feed(text); ok {
			o.match = m
			o.events.tell(contract.EventDone, contract.ViaStream, m)
		}
	}
	for _, m := range markers {
		if m == agent.PasteOn {
			if !o.pasteOn {
				o.events.tell(contract.EventPasteOn, contract.ViaStream, "")
			}
			o.pasteOn = true
			o.pane.SetAgentPastes()
			continue
		}
		f := strings.Split(m, ";")
		if len(f) == 3 && f[0] == "exit" && (f[1] == o.nonce || o.nonce == "") {
			if code, err := strconv.Atoi(f[2]); err == nil {
				o.exited, o.exitMarked = true, code
				o.events.tell(contract.EventExit, contract.ViaExit, f[2])
			}
		}
	}
}

// flush judges what the done scanner held back for want of context: the
// output has gone quiet or the iteration is over.
func (o *output) flush() {
	if o.scanner != nil && o.match == "" {
		if m, ok := o.scanner.Flush(); ok {
			o.match = m
			o.events.tell(contract.EventDone, contract.ViaStream, m)
		}
	}
}

// drain waits for the exit marker, which follows the agent's last output, so
// nothing the agent wrote is judged in the next iteration. A pipe still
// delivering (a flood on a busy machine) is waited for; a silent one a second.
func (o *output) drain() {
	if o.stream() == nil {
		return
	}
	limit := o.clock.After(drainLimit)
	for {
		o.take()
		if o.exited {
			return
		}
		select {
		case <-o.stream().Notify():
		case <-o.clock.After(time.Second):
			return
		case <-limit:
			return
		}
	}
}

// drainLimit bounds the wait for a pane whose output never stops arriving.
const drainLimit = 30 * time.Second

// exitCode reads the dead pane's exit status. tmux 3.3a sometimes leaves it
// empty until another child exits; a nudge makes the server reap and record it.
func (o *output) exitCode() int {
	for try := 0; try < 100; try++ {
		pane, err := o.tmux.Pane(o.paneID)
		if err != nil {
			break
		}
		if pane.Dead && pane.DeadStatus != "" {
			if code, err := strconv.Atoi(pane.DeadStatus); err == nil {
				return code
			}
		}
		if pane.Dead && pane.DeadSignal != "" {
			if sig, err := strconv.Atoi(pane.DeadSignal); err == nil {
				return 128 + sig
			}
		}
		if pane.Dead {
			_ = o.tmux.Nudge()
		}
		<-o.clock.After(10 * time.Millisecond)
	}
	return o.exitMarked
}

// events tells what the iteration learns of its agent: the cast's
// markers, and the listener (Settings.Events), if any.
type events struct {
	listen  func(contract.Event) // nil: nobody listens
	casts   Cast
	rec     Record
	clock   clock.Clock
	started time.Time // when the agent was respawned
}

func (e *events) tell(kind contract.EventKind, via, detail string) {
	e.casts.Mark(kind)
	if e.listen == nil {
		return
	}
	var after time.Duration
	if !e.started.IsZero() {
		after = e.clock.Now().Sub(e.started)
	}
	e.listen(contract.Event{Iteration: e.rec.Iteration(), Kind: kind, Via: via, After: after, Detail: detail})
}
