package iteration

import "testing"

// The cursor's rules, as a watcher that takes an iteration up relies on them.
func TestCursorTypingAtAndPasteTakenKeepThePromptToOneDelivery(t *testing.T) {
	line := 7
	start := Cursor{Untyped: true, DoneMatch: "DONE"}
	typing := start.Typing(true)
	if typing.Untyped || !typing.Pending || typing.Pasted {
		t.Errorf("typing = %+v: once typing began, the next watcher finishes it, never types it afresh", typing)
	}
	if c := typing.PasteTaken(); !c.Pasted || !c.Pending {
		t.Errorf("paste taken = %+v, want pasted and still pending", c)
	}
	if c := typing.PasteTaken().Typing(false); c.Pending || c.Pasted {
		t.Errorf("typed = %+v, want neither pending nor pasted", c)
	}
	if c := start.At(&line); c.Untyped || c.Line == nil || *c.Line != 7 || c.DoneMatch != "DONE" {
		t.Errorf("at line 7 = %+v, want typed at 7, the done match kept", c)
	}
	if c := start.Typing(false); !c.Untyped {
		t.Errorf("not typing = %+v: a prompt never typed stays untyped", c)
	}
}
