package agent

import (
	"regexp"
	"testing"
)

func TestReadyPatternMatchesAPromptWithItsTrailingSpace(t *testing.T) {
	screen := []string{"loading plugins", "> "[:1], "status: ok"} // lines come trimmed: "> " is ">"
	for _, c := range []struct {
		pattern string
		want    bool
	}{
		{`^> `, true},
		{`^>`, true},
		{`> $`, true},
		{`status: ok`, true},
		{`plugins\n>`, true},
		{`^>  `, false},
		{`^status: ok `, true},
		{`READY>`, false},
	} {
		if got := ReadyMatch(regexp.MustCompile(c.pattern), screen); got != c.want {
			t.Errorf("%q: %v, want %v", c.pattern, got, c.want)
		}
	}
}
