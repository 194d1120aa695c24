package iteration

import "testing"

func TestNextAfterPastePastesAgainOnlyOnEvidence(t *testing.T) {
	for _, c := range []struct {
		name string
		seen pasteSeen
		want pasteNext
	}{
		{"the paste showed", pasteSeen{Shown: true, Pastes: 1, Queued: 0}, pasteLanded},
		{"it showed though the queue is unknown", pasteSeen{Shown: true, Pastes: 1, Queued: -1}, pasteLanded},
		{"still in the terminal's queue: the agent has not read it", pasteSeen{Pastes: 1, Queued: 64}, pasteWait},
		{"read and not shown: Enter tells", pasteSeen{Pastes: 1, Queued: 0}, pasteProbe},
		{"queue unknown and not shown: Enter tells", pasteSeen{Pastes: 1, Queued: -1}, pasteProbe},
		{"a non-echoing agent worked on the Enter", pasteSeen{Pastes: 1, Probed: true, ProbeShown: true, ProbeSent: true}, pasteSubmitted},
		{"the Enter showed the text as a new line: Enter again", pasteSeen{Pastes: 1, Probed: true, ProbeShown: true}, pasteLanded},
		{"nothing of the paste nor of the Enter: dropped", pasteSeen{Pastes: 1, Probed: true}, pasteAgain},
		{"dropped again", pasteSeen{Pastes: 2, Probed: true}, pasteAgain},
		{"out of tries: Enter as if it landed", pasteSeen{Pastes: pasteTries, Probed: true}, pasteLanded},
		{"a queued paste is never pasted again", pasteSeen{Pastes: 1, Probed: true, Queued: 10}, pasteWait},
	} {
		if got := nextAfterPaste(c.seen); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestTooEarlyHoldsAMultiLinePasteForAnAgentNotYetReadingKeys(t *testing.T) {
	for _, c := range []struct {
		name      string
		text      string
		canonical int
		want      bool
	}{
		{"line mode, two lines", "a\nb", 1, true},
		{"one line is safe in line mode", "a b", 1, false},
		{"raw terminal: the agent reads keys", "a\nb", 0, false},
		{"unknown terminal", "a\nb", -1, false},
	} {
		if got := tooEarly(c.text, c.canonical); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
