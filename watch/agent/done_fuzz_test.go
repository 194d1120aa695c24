package agent

import (
	"strings"
	"testing"
)

// contextLen is how many visible characters stand beside the token in the
// prompt within the lines the scanner compares (contextLines on each side,
// counting only lines with something visible on them).
func contextLen(prompt, token string) int {
	var lines []string
	for _, l := range strings.Split(prompt, "\n") {
		if squash(l) != "" {
			lines = append(lines, l)
		}
	}
	for i, l := range lines {
		at := strings.Index(l, token)
		if at < 0 {
			continue
		}
		n := len(squash(l)) - len(squash(token))
		for j := max(0, i-contextLines); j < i; j++ {
			n += len(squash(lines[j]))
		}
		for j := i + 1; j < len(lines) && j <= i+contextLines; j++ {
			n += len(squash(lines[j]))
		}
		return n
	}
	return 0
}

// FuzzDoneScanner feeds an echo of a fuzzed prompt and fuzzed agent text.
// It never may panic, and an echo of the prompt, hard-wrapped at a fuzzed
// width and cut anywhere, never may match, flushed or not, when the prompt
// has exactly one match, RALPH_DONE_1, with at least minEchoContext visible
// characters beside it within the lines compared. The prompt is tried as it
// is and with RALPH_DONE_1 put in its middle, so the property is checked often.
func FuzzDoneScanner(f *testing.F) {
	seeds := []struct {
		prompt, agent string
		width         uint8
	}{
		{donePrompt, "RALPH_DONE_7\n", 80},
		{"Do the work. When finished print RALPH_DONE_1", "All tasks complete: RALPH_DONE_1\n", 20},
		{"Print RALPH_DONE_1 when every task in TODO.md is complete.", "RALPH_DONE_1", 14},
		{"Work through TODO.md, one item per iteration.\n\nRALPH_DONE_1\n", "> RALPH_DONE_1\n", 30},
		{"Steps:\n1. test\n2. fix\nFinally print RALPH_DONE_1", "│ RALPH_DONE_1 │\n", 12},
		{"héllo ✓ wörld, then print RALPH_DONE_1 ⏺", "⏺ RALPH_DONE_1\n", 40},
		{"When everything is done print  and stop working", "RALPH_DONE_1", 10},
		{"˝0RALPH_DONE_1\n0\n0000000000000", "RALPH_DONE_1\n", 9},
		{"RALPH_DONE_1", "RALPH_DONE_1", 0},
		{"", "", 0},
		{"\xff\xfe RALPH_DONE_1 \xc3", "\xc3RALPH_DONE_1\n", 5},
	}
	for _, s := range seeds {
		f.Add(s.prompt, s.agent, s.width)
	}
	f.Fuzz(func(t *testing.T, prompt, agent string, width uint8) {
		// Never panics, whatever is fed and however it is cut.
		echo := "> " + strings.ReplaceAll(prompt, "\n", "\n  ") + "\n"
		s := NewDoneScanner(donePattern, prompt)
		s.Feed(echo[:len(echo)/2])
		s.Feed(echo[len(echo)/2:])
		s.Feed(agent)
		s.Flush()
		s.Feed(agent + "\n")
		MatchesOwnText(donePattern, prompt)

		w := 8 + int(width)%80
		half := len(prompt) / 2
		for _, p := range []string{prompt, prompt[:half] + "RALPH_DONE_1" + prompt[half:]} {
			matches := donePattern.FindAllString(p, -1)
			if len(matches) != 1 || matches[0] != "RALPH_DONE_1" || contextLen(p, "RALPH_DONE_1") < minEchoContext {
				continue
			}
			for _, e := range []string{
				"> " + strings.ReplaceAll(p, "\n", "\n  ") + "\n",
				wrapLines(p, w) + "\n",
			} {
				cut := int(width) % (len(e) + 1)
				if m, found, at := feed(NewDoneScanner(donePattern, p), e[:cut], e[cut:]); found {
					t.Fatalf("prompt %q: its echo %q cut at %d matched %q (chunk %d)", p, e, cut, m, at)
				}
			}
		}
	})
}

// wrapLines hard-wraps every line of text as a TUI echo would.
func wrapLines(text string, width int) string {
	var rows []string
	for _, l := range strings.Split(text, "\n") {
		rows = append(rows, hardWrap(l, width, "> ", "  "))
	}
	return strings.Join(rows, "\n")
}
