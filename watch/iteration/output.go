package iteration

import (
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

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
		o.events.tell(words.EventOutput, words.ViaStream, "")
	}
	if o.scanner != nil && o.match == "" && text != "" {
		if m, ok := o.scanner.Feed(text); ok {
			o.match = m
			o.events.tell(words.EventDone, words.ViaStream, m)
		}
	}
	for _, m := range markers {
		if m == agent.PasteOn {
			if !o.pasteOn {
				o.events.tell(words.EventPasteOn, words.ViaStream, "")
			}
			o.pasteOn = true
			o.pane.SetAgentPastes()
			continue
		}
		f := strings.Split(m, ";")
		if len(f) == 3 && f[0] == "exit" && (f[1] == o.nonce || o.nonce == "") {
			if code, err := strconv.Atoi(f[2]); err == nil {
				o.exited, o.exitMarked = true, code
				o.events.tell(words.EventExit, words.ViaExit, f[2])
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
			o.events.tell(words.EventDone, words.ViaStream, m)
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
	listen  func(words.Event) // nil: nobody listens
	casts   Cast
	rec     Record
	clock   clock.Clock
	started time.Time // when the agent was respawned
}

func (e *events) tell(kind words.EventKind, via, detail string) {
	e.casts.Mark(kind)
	if e.listen == nil {
		return
	}
	var after time.Duration
	if !e.started.IsZero() {
		after = e.clock.Now().Sub(e.started)
	}
	e.listen(words.Event{Iteration: e.rec.Iteration(), Kind: kind, Via: via, After: after, Detail: detail})
}
