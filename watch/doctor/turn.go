package doctor

// One iteration's events, as the signal table reads them: whether its
// prompt went in, and when each kind of event first came.

import (
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// turn is the events of one iteration.
type turn struct {
	started bool
	events  []contract.Event
}

// delivered reports whether the turn's prompt went in.
func delivered(t turn) bool {
	if _, ok := t.first(contract.EventSubmitted); ok {
		return true
	}
	// A slow agent (OpenCode on a busy machine) can show the submit too
	// late for the typist: the agent at work on the pasted prompt, or
	// answering it, says it went in all the same.
	if _, ok := t.first(contract.EventPasted); !ok {
		return false
	}
	for _, k := range []contract.EventKind{contract.EventBusy, contract.EventDone, contract.EventLimit} {
		if _, ok := t.first(k); ok {
			return true
		}
	}
	e, ok := t.first(contract.EventTurnEnd)
	return ok && e.Via == contract.ViaHook
}

// at picks iteration n's events.
func at(events []contract.Event, n int) turn {
	var t turn
	for _, e := range events {
		if e.Iteration == n {
			t.events = append(t.events, e)
			t.started = t.started || e.Kind == contract.EventStarted
		}
	}
	return t
}

func (t turn) first(kind contract.EventKind) (contract.Event, bool) {
	for _, e := range t.events {
		if e.Kind == kind {
			return e, true
		}
	}
	return contract.Event{}, false
}

func (t turn) firstVia(kind contract.EventKind, via string) (contract.Event, bool) {
	for _, e := range t.events {
		if e.Kind == kind && e.Via == via {
			return e, true
		}
	}
	return contract.Event{}, false
}

// at is when the first event of kind came, 0 if none.
func (t turn) at(kind contract.EventKind) time.Duration {
	e, _ := t.first(kind)
	return e.After
}
