package agent

import (
	"regexp"
	"strings"
)

// ReadyMatch reports whether the ready pattern matches the screen's lines
// (trimmed, blank ones dropped). A prompt is often one line with a space
// where the cursor waits, and the pattern is written as such ('^> '): so
// it is also tried on each line alone, where ^ and $ are the line's ends,
// and on each line with its trailing space put back.
func ReadyMatch(re *regexp.Regexp, lines []string) bool {
	if re.MatchString(strings.Join(lines, "\n")) {
		return true
	}
	for _, line := range lines {
		if re.MatchString(line) || re.MatchString(line+" ") {
			return true
		}
	}
	return false
}
