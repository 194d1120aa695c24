package config

import (
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/control"
)

func TestQuoteCommandShowsControlCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"touch /tmp/x":    "'touch /tmp/x'",
		"echo it's":       `'echo it'\''s'`,
		"rm -rf ~\x1b[2K": `"rm -rf ~\x1b[2K"`,
		"true\rrm -rf ~":  `"true\rrm -rf ~"`,
		"echo \u202eevil": `"echo \u202eevil"`,
	} {
		if got := control.QuoteCommand(in); got != want {
			t.Errorf("QuoteCommand(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"/home/me/src/p": "/home/me/src/p", "/home/me/my proj": "'/home/me/my proj'", "/tmp/$(x)": "'/tmp/$(x)'", "": "''"} {
		if got := QuoteWord(in); got != want {
			t.Errorf("QuoteWord(%q) = %s, want %s", in, got, want)
		}
	}
}
