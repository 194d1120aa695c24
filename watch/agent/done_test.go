package agent

import (
	"regexp"
	"strings"
	"testing"
)

var donePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)

// donePrompt is the prompt most stories below send to the agent.
const donePrompt = "Do the work. When finished print RALPH_DONE_7"

// hardWrap draws text as a TUI does at width columns: the first row starts
// with first, the others with cont, and rows break at any character (inside a
// word or a token too).
func hardWrap(text string, width int, first, cont string) string {
	var rows []string
	row, room := first, width-len(first)
	for _, r := range text {
		if room == 0 {
			rows = append(rows, row)
			row, room = cont, width-len(cont)
		}
		row += string(r)
		room--
	}
	return strings.Join(append(rows, row), "\n")
}

// wordWrap breaks text between words, as most TUIs do when they can.
func wordWrap(text string, width int, first, cont string) string {
	var rows []string
	row := first
	for _, w := range strings.Fields(text) {
		if row != first && row != cont && len(row)+1+len(w) > width {
			rows = append(rows, row)
			row = cont
		}
		if row != first && row != cont {
			row += " "
		}
		row += w
	}
	return strings.Join(append(rows, row), "\n")
}

// feed gives chunks to s in order, then flushes as the loop does when the
// output goes quiet, and returns the first match found (at len(chunks) when
// the flush found it).
func feed(s *DoneScanner, chunks ...string) (match string, found bool, at int) {
	for i, c := range chunks {
		if m, ok := s.Feed(c); ok {
			return m, true, i
		}
	}
	if m, ok := s.Flush(); ok {
		return m, true, len(chunks)
	}
	return "", false, -1
}

func TestDoneScannerTellsTheEchoFromTheAgentsOwnWords(t *testing.T) {
	tests := []struct {
		name      string
		prompt    string
		chunks    []string
		wantMatch string // "" for no match
	}{
		{"(a) the echo of the prompt is not the agent's done",
			donePrompt,
			[]string{"> Do the work. When finished print RALPH_DONE_7\n"}, ""},
		{"(a) after the echo, the agent printing the token alone is done",
			donePrompt,
			[]string{"> Do the work. When finished print RALPH_DONE_7\n", "\n", "RALPH_DONE_7\n"}, "RALPH_DONE_7"},
		{"(a) the agent's token still being written (no newline yet) is done",
			donePrompt,
			[]string{"> Do the work. When finished print RALPH_DONE_7\n", "● RALPH_DONE_7"}, "RALPH_DONE_7"},
		{"(c) an echo behind a label is not the agent's done",
			donePrompt,
			[]string{"got: Do the work. When finished print RALPH_DONE_7\n"}, ""},
		{"(c) an echo behind a label and a quote bar is not the agent's done",
			donePrompt,
			[]string{"User said: | Do the work. When finished print RALPH_DONE_7\n"}, ""},
		{"(e) the token inside the agent's own sentence is done",
			donePrompt,
			[]string{"> Do the work. When finished print RALPH_DONE_7\n", "All tasks complete: RALPH_DONE_7\n"}, "RALPH_DONE_7"},
		{"(e) the token inside a sentence with no echo at all is done",
			donePrompt,
			[]string{"All tasks complete: RALPH_DONE_7\n"}, "RALPH_DONE_7"},
		{"(f) a token alone on its own prompt line, echoed with '> ' on the first row, is not done",
			"Work through TODO.md, one item per iteration.\n\nRALPH_DONE_7\n",
			[]string{"> Work through TODO.md, one item per iteration.\n  \n  RALPH_DONE_7\n"}, ""},
		{"(f) a token alone on its own prompt line, echoed with '> ' on every non-blank row, is not done",
			"Work through TODO.md, one item per iteration.\n\nRALPH_DONE_7\n",
			[]string{"> Work through TODO.md, one item per iteration.\n\n> RALPH_DONE_7\n"}, ""},
		{"(f) after that echo, the agent's bare token is done",
			"Work through TODO.md, one item per iteration.\n\nRALPH_DONE_7\n",
			[]string{"> Work through TODO.md, one item per iteration.\n  \n  RALPH_DONE_7\n", "RALPH_DONE_7\n"}, "RALPH_DONE_7"},
		{"(f) a short prompt whose only context is one line before the token is still an echo",
			"Do the work.\n\nRALPH_DONE_7",
			[]string{"> Do the work.\n  \n  RALPH_DONE_7\n"}, ""},
		{"(h) when the pattern is not in the prompt, the first occurrence matches",
			"Work through TODO.md.",
			[]string{"> Work through TODO.md.\n", "RALPH_DONE_3\n"}, "RALPH_DONE_3"},
		{"(h) a token the prompt does not contain matches even in the prompt's words",
			donePrompt,
			[]string{"> Do the work. When finished print RALPH_DONE_8\n"}, "RALPH_DONE_8"},
		{"(h) with an empty prompt anything matching is done",
			"",
			[]string{"RALPH_DONE_1\n"}, "RALPH_DONE_1"},
		{"(j) a box-drawn echo is not the agent's done",
			donePrompt,
			[]string{
				"╭──────────────────────────────────────────────────╮\n",
				"│ > Do the work. When finished print RALPH_DONE_7  │\n",
				"╰──────────────────────────────────────────────────╯\n",
			}, ""},
		{"(j) a box-drawn echo wrapped inside the box is not the agent's done",
			donePrompt,
			[]string{"╭────────────────────────────────╮\n│ > Do the work. When finished   │\n│   print RALPH_DONE_7           │\n╰────────────────────────────────╯\n"}, ""},
		{"(j) after a box-drawn echo the agent's bullet line is done",
			donePrompt,
			[]string{
				"╭──────────────────────────────────────────────────╮\n│ > Do the work. When finished print RALPH_DONE_7  │\n╰──────────────────────────────────────────────────╯\n",
				"⏺ RALPH_DONE_7\n",
			}, "RALPH_DONE_7"},
		{"an echo with Claude-style markers (❯ and ⎿) is not the agent's done",
			donePrompt,
			[]string{"❯ Do the work. When finished print RALPH_DONE_7\n  ⎿  Interrupted\n"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewDoneScanner(donePattern, tt.prompt)
			m, found, at := feed(s, tt.chunks...)
			switch {
			case tt.wantMatch == "" && found:
				t.Errorf("matched %q at chunk %d of %q, want no match", m, at, tt.chunks)
			case tt.wantMatch != "" && !found:
				t.Errorf("no match, want %q", tt.wantMatch)
			case found && m != tt.wantMatch:
				t.Errorf("matched %q, want %q", m, tt.wantMatch)
			}
		})
	}
}

func TestDoneScannerIgnoresTheEchoWrappedAtAnyWidth(t *testing.T) {
	// (b) The echo is drawn at every width from 10 to 80 columns, breaking
	// anywhere (so also right before, inside or right after the token), with
	// a two-space continuation indent. No width may count as done; the
	// agent's own line afterwards must.
	echo := "Do the work. When finished print RALPH_DONE_7"
	// Word wrap starts at 19 columns: below that the row before the token
	// holds only "print" (see TestDoneScannerIgnoresTheEchoWordWrappedNarrow).
	wraps := []struct {
		name      string
		wrap      func(string, int, string, string) string
		narrowest int
	}{
		{"hard wrap", hardWrap, 10},
		{"word wrap", wordWrap, 19},
	}
	for _, w := range wraps {
		for width := w.narrowest; width <= 80; width++ {
			drawn := w.wrap(echo, width, "> ", "  ")
			s := NewDoneScanner(donePattern, donePrompt)
			if m, ok := s.Feed(drawn + "\n"); ok {
				t.Errorf("%s at width %d: echo %q matched %q, want no match", w.name, width, drawn, m)
				continue
			}
			if m, ok := s.Feed("RALPH_DONE_7\n"); !ok || m != "RALPH_DONE_7" {
				t.Errorf("%s at width %d: agent's line after echo %q: got %q %v, want RALPH_DONE_7", w.name, width, drawn, m, ok)
			}
		}
	}
}

func TestDoneScannerIgnoresTheEchoCutIntoTwoChunksAnywhere(t *testing.T) {
	// (d) The pane stream can be cut at any byte: every cut of the echo, fed
	// as two Feeds, is still an echo.
	echoes := []string{
		"> Do the work. When finished print RALPH_DONE_7\n",
		hardWrap("Do the work. When finished print RALPH_DONE_7", 30, "> ", "  ") + "\n",
		"│ > Do the work. When finished print RALPH_DONE_7 │\n",
	}
	for _, echo := range echoes {
		for k := 0; k <= len(echo); k++ {
			s := NewDoneScanner(donePattern, donePrompt)
			if m, found, at := feed(s, echo[:k], echo[k:]); found {
				t.Errorf("echo cut at %d (%q | %q): chunk %d matched %q, want no match", k, echo[:k], echo[k:], at, m)
			}
		}
	}
}

func TestDoneScannerIgnoresAnEchoRedrawnSeveralTimes(t *testing.T) {
	// (g) A TUI redraws its input box: the screen is cleared and the echo
	// drawn again. The raw pane bytes go through the Normalizer first, as in
	// the loop.
	redraw := "\x1b[H\x1b[2J\x1b[1;1H\x1b[36m>\x1b[0m Do the work. When finished print RALPH_DONE_7\x1b[K\x1b[2;1H\x1b[2m? for shortcuts\x1b[0m"
	var n Normalizer
	s := NewDoneScanner(donePattern, donePrompt)
	for i := 0; i < 5; i++ {
		text, _ := n.Write([]byte(redraw))
		if m, ok := s.Feed(string(text)); ok {
			t.Fatalf("redraw %d (%q) matched %q, want no match", i, text, m)
		}
	}
	text, _ := n.Write([]byte("\x1b[3;1H\x1b[1mRALPH_DONE_7\x1b[0m\r\n"))
	if m, ok := s.Feed(string(text)); !ok || m != "RALPH_DONE_7" {
		t.Errorf("agent's token after the redraws: got %q %v, want RALPH_DONE_7", m, ok)
	}
}

func TestDoneScannerWithoutAPatternNeverMatches(t *testing.T) {
	// (i)
	s := NewDoneScanner(nil, donePrompt)
	for _, chunk := range []string{"RALPH_DONE_7\n", "All tasks complete: RALPH_DONE_7\n", "anything at all"} {
		if m, ok := s.Feed(chunk); ok {
			t.Errorf("nil pattern matched %q in %q", m, chunk)
		}
	}
	if MatchesOwnText(nil, donePrompt) {
		t.Errorf("MatchesOwnText(nil, prompt) = true, want false")
	}
}

func TestDoneScannerFindsATokenSplitAcrossChunks(t *testing.T) {
	s := NewDoneScanner(donePattern, donePrompt)
	m, found, at := feed(s, "> Do the work. When finished print RALPH_DONE_7\n", "All done: RALPH_", "DONE_7\n")
	if !found || m != "RALPH_DONE_7" || at != 2 {
		t.Errorf("got %q %v at chunk %d, want RALPH_DONE_7 at chunk 2", m, found, at)
	}
}

func TestMatchesOwnTextWarnsWhenThePromptItselfMatches(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		want   bool
	}{
		{"the prompt names the token", donePrompt, true},
		{"the prompt does not name the token", "Work through TODO.md.", false},
		{"an empty prompt", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchesOwnText(donePattern, tt.prompt); got != tt.want {
				t.Errorf("MatchesOwnText(%q) = %v, want %v", tt.prompt, got, tt.want)
			}
		})
	}
}
