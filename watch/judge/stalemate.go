package judge

import (
	"slices"
	"strings"
	"unicode"
)

// DefaultPatience is how many not-met verdicts in a row, the same and the
// work unchanged, end the loop (--judge-patience).
const DefaultPatience = 3

// Judged is one verdict in the loop's run, with the work it judged.
type Judged struct {
	Iteration int
	Verdict   Verdict
	Work      string // the work tree's fingerprint when judged ("": unknown)
}

// Stalemate reports whether the last patience verdicts (patience <= 0:
// never) are all not met, name the same missing parts (case and spaces
// aside, in any order), and judged the same work: the loop can only go
// round. It is the missing parts that stayed, for the loop's last word.
func Stalemate(history []Judged, patience int) ([]string, bool) {
	if patience <= 0 || len(history) < patience {
		return nil, false
	}
	last := history[len(history)-patience:]
	first := last[0]
	for _, j := range last {
		if j.Verdict.Met || j.Work == "" || j.Work != first.Work || !sameMissing(j.Verdict, first.Verdict) {
			return nil, false
		}
	}
	missing := first.Verdict.Missing
	if len(missing) == 0 && first.Verdict.Reason != "" {
		missing = []string{first.Verdict.Reason}
	}
	return missing, true
}

// sameMissing reports whether two verdicts name the same missing parts
// (or, naming none, fail for the same reason).
func sameMissing(a, b Verdict) bool {
	return slices.Equal(folded(a), folded(b))
}

// folded is a verdict's missing parts (else its reason) lower-cased,
// without spaces, sorted.
func folded(v Verdict) []string {
	items := v.Missing
	if len(items) == 0 {
		items = []string{v.Reason}
	}
	out := make([]string, 0, len(items))
	for _, s := range items {
		out = append(out, strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return unicode.ToLower(r)
		}, s))
	}
	slices.Sort(out)
	return out
}
