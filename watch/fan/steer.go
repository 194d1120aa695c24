package fan

import (
	"path/filepath"
	"slices"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// The person's steering of a fan (ralph-watch note, set, resume with a
// limit, given the fan's name): a request in the fan's folder (state.Steer,
// as a loop has them) that the fan takes into its record and passes to
// each loop at work. A sticky note and a limit stay the fan's, for every
// loop it starts later; a once-note no loop at work could carry (none was
// working, or the one that was ended first) goes to the next loop started.

// Steer applies a steering request of the person's to the fan's record; it
// reports whether the request goes on to the loops at work too.
func (s *State) Steer(r state.Steer) bool {
	working := len(s.AtWork()) > 0
	switch r.Kind {
	case state.SteerNote:
		n := state.Note{Text: r.Text, Sticky: r.Sticky, Made: r.Made}
		switch {
		case r.Sticky:
			s.Notes = append(s.Notes, n)
		case working: // its loops' once: if one ends before it carried it, the next loop started does
			s.Given = append(s.Given, n)
		default:
			s.Notes = append(s.Notes, n)
		}
	case state.SteerClear:
		s.Notes, s.Given = nil, nil
		for i := range s.Tasks {
			s.Tasks[i].Notes = nil
		}
	case state.SteerSet:
		l := *r.Set
		if r.Set.Empty() || l.Check(state.Ran{}, s.InForce()) != nil { // +N made absolute on the fan's limits
			return false
		}
		if s.Set == nil {
			s.Set = &state.Limits{}
		}
		s.Set.Merge(&l)
	}
	return working
}

// InForce are the limits the fan's next loop starts with: its flags',
// and over them those the person set.
func (s *State) InForce() state.Limits {
	l := s.Flags
	l.Merge(s.Set)
	return l
}

// Limit is the iteration limit the fan's next loop starts with (0: none).
func (s *State) Limit() int {
	if l := s.InForce(); l.MaxIterations != nil {
		return *l.MaxIterations
	}
	return 0
}

// AtWork are the tasks whose loops are at work now, each in its window.
func (s *State) AtWork() []*Task {
	var out []*Task
	for i := range s.Tasks {
		if t := &s.Tasks[i]; t.State == Working && t.Slot > 0 && t.Loop != "" {
			out = append(out, t)
		}
	}
	return out
}

// startNotes are the person's notes for a loop that starts on t: the once
// ones kept for it from a start that did not happen, the fan's sticky ones,
// and the once ones waiting for the next loop (which this loop takes).
func (s *State) startNotes(t *Task) []state.Note {
	var notes []state.Note
	for _, n := range t.Notes {
		if !n.Sticky {
			notes = append(notes, n)
		}
	}
	var waiting []state.Note
	for _, n := range s.Notes {
		if n.Sticky {
			notes = append(notes, n)
		} else {
			waiting = append(waiting, n)
		}
	}
	s.Given = append(s.Given, waiting...) // the loop's once: if it ends before it carried them, the next loop's
	s.Notes = slices.DeleteFunc(s.Notes, func(n state.Note) bool { return !n.Sticky })
	if len(s.Notes) == 0 {
		s.Notes = nil
	}
	return append(notes, waiting...)
}

// Unsent records the once-notes a loop ended without carrying: those the
// person gave the fan go to the next loop started.
func (s *State) Unsent(notes []state.Note) {
	for _, n := range notes {
		if i := slices.IndexFunc(s.Given, func(g state.Note) bool { return g.Text == n.Text && g.Made == n.Made }); i >= 0 && !n.Sticky {
			s.Given = slices.Delete(s.Given, i, i+1)
			s.Notes = append(s.Notes, n)
		}
	}
}

// Lost records the end of a loop the fan lost on t (it did not start, or
// ended unseen): the person's once-notes it was to carry, kept for it
// (t.Notes) or left in its folder (loopNotes), go to the next loop started.
func (s *State) Lost(t *Task, loopNotes []state.Note) {
	s.Unsent(append(t.Notes, loopNotes...))
	t.Notes = nil
}

// Unsent are the once-notes loop name (under root) has not carried into a
// prompt: those it took and those still waiting in its folder, as a
// clear among them leaves them.
func Unsent(root, name string) []state.Note {
	store := &state.Store{Dir: filepath.Join(root, name)}
	var notes []state.Note
	if st, err := store.Load(); err == nil {
		notes = append(notes, st.Notes...)
	}
	for _, r := range store.Steers() {
		switch r.Kind {
		case state.SteerNote:
			notes = append(notes, state.Note{Text: r.Text, Sticky: r.Sticky, Made: r.Made})
		case state.SteerClear:
			notes = nil
		}
	}
	return slices.DeleteFunc(notes, func(n state.Note) bool { return n.Sticky })
}

// TakeSteers takes the person's requests waiting in the fan's folder into
// its record, passes each on to the loops at work (under root) as the
// request it is, and saves the record; a request is recorded as taken
// before its file goes, so none is applied twice. It reports whether it
// took any.
func TakeSteers(root, dir string, s *State, save func() error) bool {
	store := &state.Store{Dir: dir}
	took := false
	for _, r := range store.Steers() {
		if !slices.Contains(s.Steered, r.ID) {
			if s.Steer(r) {
				for _, t := range s.AtWork() {
					if loop, err := state.Open(root, t.Loop); err == nil {
						_ = loop.Pass(r)
					}
				}
			}
			s.Steered = append(s.Steered, r.ID)
			if err := save(); err != nil {
				return took
			}
			took = true
		}
		_ = store.SteerTaken(r.ID)
	}
	s.Steered = slices.DeleteFunc(s.Steered, func(id string) bool { return !store.SteerPending(id) })
	return took
}

// Root is the loops' state root of the fan whose folder is dir.
func Root(dir string) string { return filepath.Dir(filepath.Dir(dir)) }
