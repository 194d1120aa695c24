package pane

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/cast"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Cast is the loop's recording of the iteration that runs: the pane's
// raw output as the stream reads it, kept as casts/<iteration>.cast in the
// loop's folder (see package cast). Only the loop's goroutine touches it;
// the stream's reader reaches the recording through the stream's tee.
type Cast struct {
	Given
	cfg       CastSettings
	from      Source     // whose stream it records
	iteration func() int // the loop's iteration now (its record's): the cast's number

	file   *cast.Recorder
	stream *Stream // whose tee feeds it

	width, height int             // the size the cast last recorded
	marked        map[string]bool // each marker is left once per iteration
	warned        bool            // a cast could not be written: said once per loop
}

// CastSettings are what the casts read of the loop's settings (the fields
// of watch.Config: CastLimit, Name, PromptMode).
type CastSettings struct {
	Limit      int64 // bytes of casts kept, oldest dropped first; 0: none recorded
	Name       string
	PromptMode string
}

// Source is where a cast's output comes from: the pane's stream (Pane),
// nil while the pane's output is not read.
type Source interface {
	Stream() *Stream
}

// NewCast gives a loop its recording of each iteration, from the stream of
// from; iteration is the loop's iteration now.
func NewCast(g Given, cfg CastSettings, from Source, iteration func() int) *Cast {
	return &Cast{Given: g, cfg: cfg, from: from, iteration: iteration}
}

// defaultCastWidth and defaultCastHeight head a cast when the pane's size is not known.
const defaultCastWidth, defaultCastHeight = 80, 24

// castMarks are the markers events leave in the cast.
var castMarks = map[contract.EventKind]string{
	contract.EventPasted:    cast.MarkPromptDelivered, // Enter follows at once; the agent's answer comes after
	contract.EventSubmitted: cast.MarkPromptDelivered,
	contract.EventDone:      cast.MarkDoneMatched,
	contract.EventTurnEnd:   cast.MarkTurnEnd,
}

// Start begins the iteration's cast before the agent is started, so
// none of its output is missed; pane gives its size. Without a stream
// there is nothing to record.
func (c *Cast) Start(pane tmux.Pane, command []string) {
	stream := c.from.Stream()
	c.End()
	if c.cfg.Limit <= 0 || stream == nil {
		return
	}
	dir := c.Store.Path(state.CastsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		c.failed(err)
		return
	}
	w, h := pane.Width, pane.Height
	if w <= 0 || h <= 0 {
		w, h = defaultCastWidth, defaultCastHeight
	}
	n := c.iteration()
	header := cast.Header{Width: w, Height: h, Command: strings.Join(command, " "), Name: c.cfg.Name, Iteration: n}
	file, err := cast.Create(filepath.Join(dir, cast.FileName(n)), header, c.Clock.Now(), c.cfg.Limit)
	if err != nil {
		c.failed(err)
		return
	}
	c.file, c.stream, c.width, c.height, c.marked = file, stream, w, h, map[string]bool{}
	stream.setTee(func(raw []byte) { _ = file.Output(c.Clock.Now(), raw) }) // an error shows when the cast ends
}

// End closes the iteration's cast, if one is open, and drops the
// oldest casts past the loop's limit.
func (c *Cast) End() {
	file := c.file
	if file == nil {
		return
	}
	c.file = nil
	c.stream.setTee(nil) // waits out a chunk being written
	if err := file.Close(); err != nil {
		c.failed(err)
	}
	if err := cast.Prune(c.Store.Path(state.CastsDir), c.cfg.Limit); err != nil {
		c.failed(err)
	}
}

// Mark leaves the marker an event stands for, once per iteration: the
// prompt delivered (seen pasted, else submitted; in arg and stdin modes
// given at the start), the done token matched, the turn's end.
func (c *Cast) Mark(kind contract.EventKind) {
	if c.file == nil {
		return
	}
	label := castMarks[kind]
	if kind == contract.EventStarted && c.cfg.PromptMode != agent.ModeType {
		label = cast.MarkPromptDelivered
	}
	if label == "" || c.marked[label] {
		return
	}
	c.marked[label] = true
	_ = c.file.Marker(c.Clock.Now(), label)
}

// Resize records a new pane size the loop saw.
func (c *Cast) Resize(pane tmux.Pane) {
	if c.file == nil || pane.Width <= 0 || pane.Height <= 0 || (pane.Width == c.width && pane.Height == c.height) {
		return
	}
	c.width, c.height = pane.Width, pane.Height
	_ = c.file.Resize(c.Clock.Now(), c.width, c.height)
}

// failed warns once per loop: a cast is a record, never a reason for
// an iteration to fail.
func (c *Cast) failed(err error) {
	if c.warned {
		return
	}
	c.warned = true
	c.Warnf("cannot record the pane's output (%v); the loop goes on", err)
}

// setTee hands every raw chunk the stream reads to f as well, before it is
// normalised; nil stops it. It returns once no chunk is being handed over.
func (s *Stream) setTee(f func(raw []byte)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tee = f
}
