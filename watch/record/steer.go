package record

import (
	"slices"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// What the person asks of the loop, as the record keeps it: the requests
// applied, the notes queued, the limits set.

// Steered records a request applied, and saves: a watcher stopped before
// its file goes does not apply it again.
func (r *Record) Steered(id string) {
	r.st.Steered = append(r.st.Steered, id)
	r.Save()
}

// ForgetSteered forgets the requests applied whose files are gone.
func (r *Record) ForgetSteered(pending func(id string) bool) {
	r.st.Steered = slices.DeleteFunc(r.st.Steered, func(id string) bool { return !pending(id) })
}

// AddNote queues a note for the next iteration's prompt.
func (r *Record) AddNote(n state.Note) { r.st.Notes = append(r.st.Notes, n) }

// SetNotes records the notes queued (none: nil).
func (r *Record) SetNotes(notes []state.Note) {
	if len(notes) == 0 {
		notes = nil
	}
	r.st.Notes = notes
}

// MergeSet records the limits the person set.
func (r *Record) MergeSet(l *state.Limits) {
	if r.st.Set == nil {
		r.st.Set = &state.Limits{}
	}
	r.st.Set.Merge(l)
}

// PlanProgress keeps the plan's part of the record (progress.Plan's) once
// the plan has made it; nil: none yet.
func (r *Record) PlanProgress(t *state.Tasks) {
	if t != nil {
		r.st.Tasks = t
	}
}
