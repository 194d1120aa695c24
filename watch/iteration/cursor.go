package iteration

// Cursor is where the delivery of an iteration's prompt stands, saved with
// the loop's record, so that a watcher that takes the iteration up goes on
// from there and the prompt reaches the agent once.
type Cursor struct {
	Line      *int   // the pane's line the prompt went in at; nil: unknown
	Untyped   bool   // not typed into the agent or given to it yet
	Pending   bool   // being typed: a watcher stopped meanwhile leaves it for the next to finish
	Pasted    bool   // tmux took the pending prompt's paste: it is never pasted again
	DoneMatch string // the done match the agent printed before a pause
}

// At is the cursor with the prompt going in at line (nil: unknown): it
// is typed, or about to be.
func (c Cursor) At(line *int) Cursor {
	c.Line, c.Untyped = line, false
	return c
}

// Typing is the cursor with the prompt being typed or not: once typing
// began, the next watcher finishes it and never types it afresh.
func (c Cursor) Typing(pending bool) Cursor {
	c.Pending, c.Pasted = pending, false
	if pending {
		c.Untyped = false
	}
	return c
}

// PasteTaken is the cursor once tmux took the pending prompt's paste.
func (c Cursor) PasteTaken() Cursor {
	c.Pasted = true
	return c
}
