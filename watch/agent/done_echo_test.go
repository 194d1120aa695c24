package agent

import "testing"

// Echoes that once fooled the scanner, each followed by the agent's own token.

// wantEchoThenAgent feeds an echo (which must not match, flushed or not) and
// then the agent's own token line (which must).
func wantEchoThenAgent(t *testing.T, s *DoneScanner, echo string) {
	t.Helper()
	if m, found, _ := feed(s, echo); found {
		t.Errorf("echo %q matched %q, want no match", echo, m)
		return
	}
	if m, found, _ := feed(s, "RALPH_DONE_7\n"); !found || m != "RALPH_DONE_7" {
		t.Errorf("agent's token after echo %q: got %q %v, want RALPH_DONE_7", echo, m, found)
	}
}

func TestDoneScannerEchoTokenLineStaysAnEchoWhenMoreLinesFollow(t *testing.T) {
	s := NewDoneScanner(donePattern, donePrompt)
	m, found, at := feed(s,
		"> Do the work. When finished print\n  RALPH_DONE_7\n",
		"Reading TODO.md\n",
		"Editing main.go\n", // here the echo row "  RALPH_DONE_7" is re-scanned with no line before it
	)
	if found {
		t.Errorf("matched %q at chunk %d, want no match (only the echo contains the token)", m, at)
	}
}

func TestDoneScannerEchoRedrawnLineByLineIsNotDone(t *testing.T) {
	s := NewDoneScanner(donePattern, donePrompt)
	var chunks []string
	for i := 0; i < 3; i++ {
		chunks = append(chunks, "> Do the work. When finished print\n", "  RALPH_DONE_7\n")
	}
	if m, found, at := feed(s, chunks...); found {
		t.Errorf("matched %q at chunk %d, want no match", m, at)
	}
}

func TestDoneScannerEchoWithAQuoteMarkOnABlankRowIsNotDone(t *testing.T) {
	prompt := "Work through TODO.md, one item per iteration.\n\nRALPH_DONE_7\n"
	for _, echo := range []string{
		"> Work through TODO.md, one item per iteration.\n>\n> RALPH_DONE_7\n",
		"│ Work through TODO.md, one item per iteration. │\n│                                               │\n│ RALPH_DONE_7                                  │\n",
	} {
		wantEchoThenAgent(t, NewDoneScanner(donePattern, prompt), echo)
	}
}

func TestDoneScannerIgnoresTheEchoWordWrappedNarrow(t *testing.T) {
	for width := 10; width < 19; width++ {
		drawn := wordWrap("Do the work. When finished print RALPH_DONE_7", width, "> ", "  ")
		wantEchoThenAgent(t, NewDoneScanner(donePattern, donePrompt), drawn+"\n")
	}
}

func TestDoneScannerWaitsForTheRestOfAnEchoLine(t *testing.T) {
	prompt := "Print RALPH_DONE_7 when all the tasks in TODO.md are complete"
	s := NewDoneScanner(donePattern, prompt)
	m, found, at := feed(s, "> Print RALPH_DONE_7", " when all the tasks in TODO.md are complete\n")
	if found {
		t.Errorf("matched %q at chunk %d, want no match (the two chunks are one echo)", m, at)
	}
}

func TestDoneScannerEchoAfterAShortPromptLineIsNotDone(t *testing.T) {
	prompt := "Fix the failing tests in pkg/.\nThen print:\nRALPH_DONE_7"
	wantEchoThenAgent(t, NewDoneScanner(donePattern, prompt), "> Fix the failing tests in pkg/.\n  Then print:\n  RALPH_DONE_7\n")
}
