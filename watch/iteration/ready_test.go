package iteration

import (
	"regexp"
	"testing"
	"time"
)

// An agent that turned on bracketed paste before is ready by its pattern
// only once it turns it on again, or after PatternWithoutPaste; one that
// never did is ready as soon as the pattern matches.
func TestThePatternWaitsForPasteOnWhereTheAgentTurnedItOnBefore(t *testing.T) {
	lines := []string{"> Type your message"}
	start := time.Unix(1700000000, 0)
	for _, c := range []struct {
		name       string
		awaitPaste bool
		pasteOn    bool
		after      time.Duration
		want       ReadyBy
	}{
		{"never turned it on", false, false, 0, ByPattern},
		{"turned it on before, not yet now", true, false, time.Second, NotReady},
		{"turned it on before, and now", true, true, 0, ByPattern},
		{"turned it on before, not for 3 s", true, false, PatternWithoutPaste, ByPattern},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Readiness{Pattern: regexp.MustCompile(`Type your message`), AwaitPaste: c.awaitPaste}
			r.Observe("screen", start)
			got := r.Judge(lines, false)
			if c.after > 0 || c.pasteOn {
				r.Observe("screen", start.Add(c.after))
				got = r.Judge(lines, c.pasteOn)
			}
			if got != c.want {
				t.Errorf("ready by %d, want %d", got, c.want)
			}
		})
	}
}
