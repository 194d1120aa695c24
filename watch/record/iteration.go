package record

// What an iteration (package iteration) needs of the record: the record is
// its iteration.Record.

import (
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
)

var _ iteration.Record = (*Record)(nil)

// PromptLine is the pane's line the prompt went in at; nil: unknown.
func (r *Record) PromptLine() *int { return r.st.PromptLine }

// PromptPending reports that the last watcher stopped while it typed the prompt.
func (r *Record) PromptPending() bool { return r.st.PromptPending }

// PromptPasted reports that tmux took the pending prompt's paste.
func (r *Record) PromptPasted() bool { return r.st.PromptPasted }

// SetPromptLine records the pane's line the prompt goes in at (nil:
// unknown), and saves.
func (r *Record) SetPromptLine(line *int) {
	r.st.PromptLine, r.st.PromptUntyped = line, false
	r.Save()
}

// SetPromptPending records whether a prompt is being typed (a watcher
// stopped meanwhile leaves it for the next to finish), and saves.
func (r *Record) SetPromptPending(pending bool) {
	r.st.PromptPending, r.st.PromptPasted = pending, false
	if pending { // typing began: the next watcher finishes it, never types it afresh
		r.st.PromptUntyped = false
	}
	r.Save()
}

// SetPromptPasted records that tmux took the pending prompt's paste, and saves.
func (r *Record) SetPromptPasted() {
	r.st.PromptPasted = true
	r.Save()
}

// TakeDoneMatch is the done match a paused loop's agent printed before the
// pause, cleared from the record.
func (r *Record) TakeDoneMatch() string {
	m := r.st.DoneMatch
	r.st.DoneMatch = ""
	return m
}

// Heartbeat saves the state when its heartbeat is old.
func (r *Record) Heartbeat() {
	if r.clock.Now().Sub(r.lastSave) >= heartbeatEvery {
		r.Save()
	}
}
