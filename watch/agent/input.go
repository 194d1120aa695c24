package agent

import (
	"regexp"
	"strings"
)

// pastedMark is how an agent shows a long paste it collapsed (Claude Code).
var pastedMark = regexp.MustCompile(`\[Pasted text #\d+`)

// ShowsInput reports whether screen shows the end of text waiting in the
// agent's input box (any wrapping or frame), or a collapsed paste: what a
// paste that landed and was not submitted leaves.
func ShowsInput(screen, text string) bool {
	if pastedMark.MatchString(screen) {
		return true
	}
	tail := []rune(squash(text))
	if len(tail) == 0 {
		return false
	}
	tail = tail[max(0, len(tail)-40):]
	return strings.Contains(squash(screen), string(tail))
}
