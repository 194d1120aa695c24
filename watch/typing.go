package watch

import (
	"context"
	"errors"

	"github.com/ralph-tmux/ralph.tmux/watch/deliver"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// typeText types text into the agent's pane (see deliver.Typist.Type); stop
// is true when the iteration must end with end.
func (l *Loop) typeText(ctx context.Context, it *iteration, text string) (end ending, stop bool) {
	err := l.typist(it).Type(ctx, text)
	switch {
	case err == nil:
		it.took = true
		return endNone, false
	case errors.Is(err, deliver.ErrInterrupted):
		return endInterrupted, true
	case errors.Is(err, tmux.ErrPaneDead):
		// tmux refused the write: the agent exited, which the watch that follows records.
		l.warnf("the agent exited before its prompt was submitted")
		return endNone, false
	}
	return l.goneEnding(err), true
}

// typist types into the loop's pane while the iteration's output is read.
func (l *Loop) typist(it *iteration) *deliver.Typist {
	return &deliver.Typist{
		Tmux: l.Tmux, Pane: l.Pane, Name: l.Name, Clock: l.Clock, Agent: &l.Agent, Lines: l.Lines,
		Watch: iterationWatch{l, it}, Warnf: l.warnf,
		Report: func(s deliver.Step, detail string) {
			for _, e := range stepEvents[s] {
				l.event(it, e.kind, e.via, detail)
			}
		},
	}
}

// stepEvents are the events each step of typing tells the listener.
var stepEvents = map[deliver.Step][]struct {
	kind words.EventKind
	via  string
}{
	deliver.PasteChecked:      {{words.EventPasteCheck, words.ViaPaste}},
	deliver.Pasted:            {{words.EventPasted, words.ViaScreen}},
	deliver.ProbeSubmitted:    {{words.EventPasted, words.ViaProbe}, {words.EventSubmitted, words.ViaProbe}},
	deliver.SubmittedByHook:   {{words.EventSubmitted, words.ViaHook}},
	deliver.SubmittedByScreen: {{words.EventSubmitted, words.ViaScreen}},
}

// iterationWatch is what the typist learns of the iteration's agent.
type iterationWatch struct {
	l  *Loop
	it *iteration
}

func (w iterationWatch) Take()        { w.l.take(w.it) }
func (w iterationWatch) Exited() bool { return w.it.exited }

func (w iterationWatch) Output() (int64, bool) {
	if w.l.stream == nil {
		return 0, false
	}
	return w.l.stream.Bytes(), true
}

func (w iterationWatch) Hooked(name string) bool {
	_, ok := w.l.hookRecord(name)
	return ok
}
