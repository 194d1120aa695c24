// Package steering is what the person asks of a running loop: requests
// (pause, stop, skip, retry: a file in the loop's folder and a signal that
// wakes the watcher) and steering (ralph-watch note, set; state.Steer):
// notes for the prompts and new limits, taken at iteration boundaries
// only, each request once, in the order made. A request left while no
// watcher ran is taken when one comes back. The limits in force live here,
// apart from the loop's settings, which stay as its flags gave them.
package steering

import (
	"fmt"
	"slices"

	"github.com/ralph-tmux/ralph.tmux/watch/record"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Steering takes the person's notes and limits into the loop.
type Steering struct {
	Limits Limits // in force: they change here, between iterations, and nowhere else
	rec    *record.Record
	ran    func() state.Ran // what the loop has used of its limits
	// taken are the notes the running iteration's prompt took, and kept how
	// many of them stayed queued (the sticky ones): an iteration a usage
	// limit gives back gives them back, in their order, for its new start.
	taken []state.Note
	kept  int
}

// New is the loop's steering, with limits in force.
func New(limits Limits, rec *record.Record, ran func() state.Ran) *Steering {
	return &Steering{Limits: limits, rec: rec, ran: ran}
}

// Take applies the requests waiting in the loop's folder; it reports
// whether the limits in force changed. Each is recorded as applied
// (state.json saved) before its file goes, so a watcher stopped between
// the two removes it and does not apply it again.
func (s *Steering) Take() (limitsChanged bool) {
	store := s.rec.Store()
	for _, r := range store.Steers() {
		if !slices.Contains(s.rec.State().Steered, r.ID) {
			limitsChanged = s.apply(r) || limitsChanged
			s.rec.Steered(r.ID)
		}
		if err := store.SteerTaken(r.ID); err != nil {
			s.rec.Warnf("remove request %s: %v", r.ID, err)
		}
	}
	s.rec.ForgetSteered(store.SteerPending)
	return limitsChanged
}

func (s *Steering) apply(r state.Steer) bool {
	switch r.Kind {
	case state.SteerNote:
		s.rec.AddNote(state.Note{Text: r.Text, Sticky: r.Sticky, Made: r.Made})
	case state.SteerClear:
		n := len(s.rec.State().Notes)
		s.rec.SetNotes(nil)
		s.rec.Log("NOTE", fmt.Sprintf("cleared %d notes", n))
		s.rec.Sayf("notes cleared (%d)", n)
	case state.SteerSet:
		return s.set(r.Set)
	}
	return false
}

// set changes the loop's limits, unless one is below what has already run.
func (s *Steering) set(l *state.Limits) bool {
	if l.Empty() {
		return false
	}
	asked := l.String()
	if err := l.Check(s.ran(), s.Limits.State()); err != nil {
		s.rec.Sayf("set %s refused: %v", asked, err)
		s.rec.Log("SET", fmt.Sprintf("refused %s: %v", asked, err))
		return false
	}
	was := s.Limits.Was(l)
	s.rec.MergeSet(l)
	s.Limits.Apply(l)
	s.rec.Sayf("set %s (was %s)", l.String(), was)
	s.rec.Log("SET", fmt.Sprintf("%s at iteration %d (was %s)", l.String(), s.rec.Iteration(), was))
	return true
}

// PendingMax is the iteration limit the loop will have once it takes the
// set requests waiting for it, each checked as Take will check it: the
// status line shows a raised limit at once, not at the next iteration.
func (s *Steering) PendingMax() int {
	return *state.Pending(s.Limits.State(), s.ran, s.rec.Store().Steers(), s.rec.State().Steered).MaxIterations
}

// ForPrompt takes the notes for the iteration that starts: every note
// queued, once, and the sticky ones; each is logged with the iteration.
func (s *Steering) ForPrompt() []string {
	st := s.rec.State()
	var texts []string
	var kept []state.Note
	s.taken = append([]state.Note(nil), st.Notes...)
	for _, n := range st.Notes {
		texts = append(texts, n.Text)
		s.rec.Log("NOTE", fmt.Sprintf("iteration %d%s: %q", s.rec.Iteration(), map[bool]string{true: " sticky"}[n.Sticky], n.Text))
		if n.Sticky {
			kept = append(kept, n)
		}
	}
	s.kept = len(kept)
	s.rec.SetNotes(kept)
	return texts
}

// GiveBack queues again, in their order, the notes of an iteration a usage
// limit gave back, before those that came since: its new start is the
// iteration they were for.
func (s *Steering) GiveBack() {
	if s.taken == nil {
		return
	}
	notes := s.rec.State().Notes
	since := notes[min(s.kept, len(notes)):] // notes the person sent meanwhile (a clear waits for the boundary)
	s.rec.SetNotes(append(s.taken, since...))
	s.taken, s.kept = nil, 0
}
