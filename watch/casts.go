package watch

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/cast"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// castLog is the loop's recording of the iteration that runs: the pane's
// raw output as the stream reads it, kept as casts/<iteration>.cast in the
// loop's folder (see package cast). Only the loop's goroutine touches it;
// the stream's reader reaches the recorder through the stream's tee.
type castLog struct {
	rec           *cast.Recorder
	width, height int             // the size the cast last recorded
	marked        map[string]bool // each marker is left once per iteration
	warned        bool            // a cast could not be written: said once per loop
}

// defaultCastWidth and defaultCastHeight head a cast when the pane's size is not known.
const defaultCastWidth, defaultCastHeight = 80, 24

// castMarks are the markers events leave in the cast.
var castMarks = map[words.EventKind]string{
	words.EventPasted:    cast.MarkPromptDelivered, // Enter follows at once; the agent's answer comes after
	words.EventSubmitted: cast.MarkPromptDelivered,
	words.EventDone:      cast.MarkDoneMatched,
	words.EventTurnEnd:   cast.MarkTurnEnd,
}

// startCast begins the iteration's cast before the agent is started, so
// none of its output is missed; pane gives its size. Without a stream
// there is nothing to record.
func (l *Loop) startCast(pane tmux.Pane) {
	l.endCast()
	if l.CastLimit <= 0 || l.stream == nil {
		return
	}
	dir := l.Store.Path(state.CastsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		l.castFailed(err)
		return
	}
	w, h := pane.Width, pane.Height
	if w <= 0 || h <= 0 {
		w, h = defaultCastWidth, defaultCastHeight
	}
	header := cast.Header{Width: w, Height: h, Command: strings.Join(l.Command, " "), Name: l.Name, Iteration: l.iteration}
	rec, err := cast.Create(filepath.Join(dir, cast.FileName(l.iteration)), header, l.Clock.Now(), l.CastLimit)
	if err != nil {
		l.castFailed(err)
		return
	}
	l.casts.rec, l.casts.width, l.casts.height, l.casts.marked = rec, w, h, map[string]bool{}
	l.stream.setTee(func(raw []byte) { _ = rec.Output(l.Clock.Now(), raw) }) // an error shows when the cast ends
}

// endCast closes the iteration's cast, if one is open, and drops the
// oldest casts past the loop's limit.
func (l *Loop) endCast() {
	rec := l.casts.rec
	if rec == nil {
		return
	}
	l.casts.rec = nil
	if l.stream != nil {
		l.stream.setTee(nil) // waits out a chunk being written
	}
	if err := rec.Close(); err != nil {
		l.castFailed(err)
	}
	if err := cast.Prune(l.Store.Path(state.CastsDir), l.CastLimit); err != nil {
		l.castFailed(err)
	}
}

// castMark leaves the marker an event stands for, once per iteration: the
// prompt delivered (seen pasted, else submitted; in arg and stdin modes
// given at the start), the done token matched, the turn's end.
func (l *Loop) castMark(kind words.EventKind) {
	if l.casts.rec == nil {
		return
	}
	label := castMarks[kind]
	if kind == words.EventStarted && l.PromptMode != agent.ModeType {
		label = cast.MarkPromptDelivered
	}
	if label == "" || l.casts.marked[label] {
		return
	}
	l.casts.marked[label] = true
	_ = l.casts.rec.Marker(l.Clock.Now(), label)
}

// castResize records a new pane size the loop saw.
func (l *Loop) castResize(pane tmux.Pane) {
	c := &l.casts
	if c.rec == nil || pane.Width <= 0 || pane.Height <= 0 || (pane.Width == c.width && pane.Height == c.height) {
		return
	}
	c.width, c.height = pane.Width, pane.Height
	_ = c.rec.Resize(l.Clock.Now(), c.width, c.height)
}

// castFailed warns once per loop: a cast is a record, never a reason for
// an iteration to fail.
func (l *Loop) castFailed(err error) {
	if l.casts.warned {
		return
	}
	l.casts.warned = true
	l.warnf("cannot record the pane's output (%v); the loop goes on", err)
}

// setTee hands every raw chunk the stream reads to f as well, before it is
// normalised; nil stops it. It returns once no chunk is being handed over.
func (s *Stream) setTee(f func(raw []byte)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tee = f
}
