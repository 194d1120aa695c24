package watch

import (
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// event tells the listener, if any.
func (l *Loop) event(it *iteration, kind words.EventKind, via, detail string) {
	l.castMark(kind)
	if l.Events == nil {
		return
	}
	var after time.Duration
	if it != nil && !it.started.IsZero() {
		after = l.Clock.Now().Sub(it.started)
	}
	l.Events(words.Event{Iteration: l.iteration, Kind: kind, Via: via, After: after, Detail: detail})
}
