package record

// What an iteration (package iteration) needs of the record: the record is
// its iteration.Record.

import (
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
)

var _ iteration.Record = (*Record)(nil)

// Cursor is where the current iteration's prompt delivery stands.
func (r *Record) Cursor() iteration.Cursor {
	st := r.st
	return iteration.Cursor{Line: st.PromptLine, Untyped: st.PromptUntyped, Pending: st.PromptPending, Pasted: st.PromptPasted, DoneMatch: st.DoneMatch}
}

// SetCursor records where the prompt's delivery stands, and saves.
func (r *Record) SetCursor(c iteration.Cursor) {
	st := r.st
	st.PromptLine, st.PromptUntyped, st.PromptPending, st.PromptPasted, st.DoneMatch = c.Line, c.Untyped, c.Pending, c.Pasted, c.DoneMatch
	r.Save()
}

// Heartbeat saves the state when its heartbeat is old.
func (r *Record) Heartbeat() {
	if r.clock.Now().Sub(r.lastSave) >= heartbeatEvery {
		r.Save()
	}
}
