package iteration

import (
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// What the agent writes: its output stream read into the iteration (the
// done scanner, bracketed paste, the exit marker), and the events the loop
// tells its listener.

// take moves new output into the iteration: text to the done scanner,
// markers to the exit status.
func (w *Watch) take() {
	if w.stream() == nil {
		return
	}
	text, markers := w.stream().Take()
	if text != "" && !w.spoke {
		w.spoke = true
		w.event(words.EventOutput, words.ViaStream, "")
	}
	if w.scanner != nil && w.match == "" && text != "" {
		if m, ok := w.scanner.Feed(text); ok {
			w.match = m
			w.event(words.EventDone, words.ViaStream, m)
		}
	}
	for _, m := range markers {
		if m == agent.PasteOn {
			if !w.pasteOn {
				w.event(words.EventPasteOn, words.ViaStream, "")
			}
			w.pasteOn = true
			w.pane.SetAgentPastes()
			continue
		}
		f := strings.Split(m, ";")
		if len(f) == 3 && f[0] == "exit" && (f[1] == w.nonce || w.nonce == "") {
			if code, err := strconv.Atoi(f[2]); err == nil {
				w.exited, w.exitMarked = true, code
				w.event(words.EventExit, words.ViaExit, f[2])
			}
		}
	}
}

// flush judges what the done scanner held back for want of context: the
// output has gone quiet or the iteration is over.
func (w *Watch) flush() {
	if w.scanner != nil && w.match == "" {
		if m, ok := w.scanner.Flush(); ok {
			w.match = m
			w.event(words.EventDone, words.ViaStream, m)
		}
	}
}

// drain waits for the exit marker, which follows the agent's last output, so
// nothing the agent wrote is judged in the next iteration. A pipe still
// delivering (a flood on a busy machine) is waited for; a silent one a second.
func (w *Watch) drain() {
	if w.stream() == nil {
		return
	}
	limit := w.clock.After(drainLimit)
	for {
		w.take()
		if w.exited {
			return
		}
		select {
		case <-w.stream().Notify():
		case <-w.clock.After(time.Second):
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
func (w *Watch) exitCode() int {
	for try := 0; try < 100; try++ {
		pane, err := w.tmux.Pane(w.cfg.Pane)
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
			_ = w.tmux.Nudge()
		}
		<-w.clock.After(10 * time.Millisecond)
	}
	return w.exitMarked
}

// event tells the listener, if any.
func (w *Watch) event(kind words.EventKind, via, detail string) {
	w.casts.Mark(kind)
	if w.cfg.Events == nil {
		return
	}
	var after time.Duration
	if !w.started.IsZero() {
		after = w.clock.Now().Sub(w.started)
	}
	w.cfg.Events(words.Event{Iteration: w.rec.Iteration(), Kind: kind, Via: via, After: after, Detail: detail})
}
