package agent

import (
	"regexp"
	"strings"
	"unicode"
)

// DoneScanner finds the done pattern in the output that follows the prompt,
// fed in chunks of normalized text. A match that is part of an echo of the
// prompt (the agent showing what it was sent, at any width, with any
// decoration) does not count; the same token printed by the agent does.
//
// A line is judged once enough text follows it to tell an echo wrapped after
// the token from the agent's own line, or when Flush says no more is coming.
type DoneScanner struct {
	re      *regexp.Regexp
	prompt  string // the prompt, squashed
	lines   []line // recent complete lines: judged ones kept as context, then the rest
	partial string // the line still being written
}

type line struct {
	text, squashed string
	judged         bool
}

// contextLines is how many lines around a match are compared with the prompt.
const contextLines = 4

// maxPartial bounds a line that never ends; longer ones are judged in pieces.
const maxPartial = 64 << 10

// NewDoneScanner matches re on output that is not an echo of prompt.
func NewDoneScanner(re *regexp.Regexp, prompt string) *DoneScanner {
	return &DoneScanner{re: re, prompt: squash(prompt)}
}

// Feed adds text and returns the first match, among the lines it can judge
// yet, that is not an echo of the prompt.
func (s *DoneScanner) Feed(text string) (match string, found bool) {
	if s.re == nil {
		return "", false
	}
	parts := strings.Split(s.partial+text, "\n")
	s.partial = parts[len(parts)-1]
	for _, p := range parts[:len(parts)-1] {
		s.add(p)
	}
	for len(s.partial) > maxPartial {
		s.add(s.partial[:maxPartial])
		s.partial = s.partial[maxPartial-256:] // overlap: a token cut in two is still seen
	}
	match, found = s.judge(false)
	s.trim()
	return match, found
}

// Flush judges every line with the context there is, the unfinished line
// too; call it when the output has gone quiet or the iteration ended.
func (s *DoneScanner) Flush() (match string, found bool) {
	if s.re == nil {
		return "", false
	}
	n := len(s.lines)
	if sq := squash(s.partial); sq != "" {
		s.lines = append(s.lines, line{text: s.partial, squashed: sq})
	}
	match, found = s.judge(true)
	s.lines = s.lines[:n] // the unfinished line will be judged again when it ends
	s.trim()
	return match, found
}

// add keeps a complete line unless it holds nothing but decoration.
func (s *DoneScanner) add(text string) {
	if sq := squash(text); sq != "" {
		s.lines = append(s.lines, line{text: text, squashed: sq})
	}
}

// trim drops judged lines beyond the context the next ones need.
func (s *DoneScanner) trim() {
	first := len(s.lines)
	for i, l := range s.lines {
		if !l.judged {
			first = i
			break
		}
	}
	if cut := first - contextLines; cut > 0 {
		s.lines = append(s.lines[:0], s.lines[cut:]...)
	}
}

func (s *DoneScanner) judge(final bool) (string, bool) {
	for i := range s.lines {
		l := &s.lines[i]
		if l.judged {
			continue
		}
		waiting := false
		for _, loc := range s.re.FindAllStringIndex(l.text, -1) {
			switch s.verdict(i, loc[0], loc[1], final) {
			case agent:
				l.judged = true
				return l.text[loc[0]:loc[1]], true
			case undecided:
				waiting = true
			}
		}
		if !waiting {
			l.judged = true
		}
	}
	return "", false
}

type verdict int

const (
	echo verdict = iota
	agent
	undecided
)

// minEchoContext is how many characters around a match must agree with the
// prompt around the same token for the match to count as an echo.
const minEchoContext = 12

// verdict tells whether the match lines[i].text[start:end] belongs to an echo
// of the prompt: the text around it (neighbouring lines included, as a TUI may
// wrap anywhere) agrees with the text around the same token in the prompt.
// Until enough text follows it, a match that might still turn out to be an
// echo is undecided, unless final.
func (s *DoneScanner) verdict(i, start, end int, final bool) verdict {
	l := s.lines[i]
	token := squash(l.text[start:end])
	if token == "" || !strings.Contains(s.prompt, token) {
		return agent
	}
	before := squash(l.text[:start])
	for j := i - 1; j >= 0 && j >= i-contextLines; j-- {
		before = s.lines[j].squashed + before
	}
	after := squash(l.text[end:])
	following := 0
	for j := i + 1; j < len(s.lines) && j <= i+contextLines; j++ {
		after += s.lines[j].squashed
		following++
	}
	settled := final || following >= contextLines || len(after) >= 4*minEchoContext
	for off := 0; ; {
		k := strings.Index(s.prompt[off:], token)
		if k < 0 {
			break
		}
		p := off + k
		pBefore, pAfter := s.prompt[:p], s.prompt[p+len(token):]
		b := commonPrefix(after, pAfter)
		if commonSuffix(before, pBefore)+b >= max(1, min(minEchoContext, len(pBefore)+len(pAfter))) {
			return echo
		}
		// All that follows agrees so far: more may make it an echo.
		if !settled && b == len(after) && b < len(pAfter) {
			return undecided
		}
		off = p + 1
	}
	return agent
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
