package watch

import (
	"regexp"
	"strings"
	"unicode"
)

// DoneScanner finds the done pattern in the output that follows the prompt,
// fed in chunks of normalized text. A match that is part of an echo of the
// prompt (the agent showing what it was sent, at any width, with any
// decoration) does not count; the same token printed by the agent does.
type DoneScanner struct {
	re      *regexp.Regexp
	prompt  string   // the prompt, squashed
	recent  []string // the last complete non-blank lines, kept as context
	partial string   // the line still being written
}

// NewDoneScanner matches re on output that is not an echo of prompt.
func NewDoneScanner(re *regexp.Regexp, prompt string) *DoneScanner {
	return &DoneScanner{re: re, prompt: squash(prompt)}
}

// Feed adds text and returns the first match that is not an echo of the prompt.
func (s *DoneScanner) Feed(text string) (match string, found bool) {
	if s.re == nil {
		return "", false
	}
	parts := strings.Split(s.partial+text, "\n")
	s.partial = parts[len(parts)-1]
	lines := s.recent
	for _, line := range parts[:len(parts)-1] {
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	complete := len(lines)
	if strings.TrimSpace(s.partial) != "" {
		lines = append(lines, s.partial)
	}
	match, found = s.find(lines)
	// Keep two lines: a line's verdict depends on its neighbours.
	if complete > 2 {
		s.recent = append([]string(nil), lines[complete-2:complete]...)
	} else {
		s.recent = append([]string(nil), lines[:complete]...)
	}
	return match, found
}

func (s *DoneScanner) find(lines []string) (string, bool) {
	for i, line := range lines {
		for _, loc := range s.re.FindAllStringIndex(line, -1) {
			if !s.isEcho(lines, i, loc[0], loc[1]) {
				return line[loc[0]:loc[1]], true
			}
		}
	}
	return "", false
}

// minEchoContext is how many characters around a match must agree with the
// prompt around the same token for the match to count as an echo.
const minEchoContext = 12

// isEcho reports whether the match lines[i][start:end] belongs to an echo of the
// prompt: the text around it (the neighbouring lines included, as a TUI may
// wrap anywhere) agrees with the text around the same token in the prompt.
func (s *DoneScanner) isEcho(lines []string, i, start, end int) bool {
	token := squash(lines[i][start:end])
	if token == "" || !strings.Contains(s.prompt, token) {
		return false
	}
	before, after := squash(lines[i][:start]), squash(lines[i][end:])
	if i > 0 {
		before = squash(lines[i-1]) + before
	}
	if i+1 < len(lines) {
		after += squash(lines[i+1])
	}
	for off := 0; ; {
		k := strings.Index(s.prompt[off:], token)
		if k < 0 {
			return false
		}
		p := off + k
		pBefore, pAfter := s.prompt[:p], s.prompt[p+len(token):]
		agree := commonSuffix(before, pBefore) + commonPrefix(after, pAfter)
		if agree >= max(1, min(minEchoContext, len(pBefore)+len(pAfter))) {
			return true
		}
		off = p + 1
	}
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// squash drops white space and the decoration TUIs draw around echoed input
// (quote bars, prompt marks, bullets, box lines, ellipses), so a prompt and its
// echo compare equal whatever the wrapping width and frame.
func squash(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsSpace(r) || isDecoration(r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isDecoration(r rune) bool {
	switch {
	case r == '>' || r == '|' || r == '…' || r == '›' || r == '»' || r == '·':
		return true
	case r >= 0x2300 && r <= 0x23ff: // misc technical: ⏺ ⎿
		return true
	case r >= 0x2500 && r <= 0x27bf: // box drawing, blocks, shapes, dingbats: │ ● ❯ ✻
		return true
	case r == unicode.ReplacementChar:
		return true
	}
	return false
}

// MatchesOwnText reports whether re matches the prompt text itself, which
// deserves a warning: only the agent's output after the prompt is checked.
func MatchesOwnText(re *regexp.Regexp, prompt string) bool {
	return re != nil && re.MatchString(prompt)
}
