package receipt

import (
	"regexp"
	"strconv"
	"strings"
)

// DiffStat is what changed in the work tree: the numbers of
// `git diff --shortstat`.
type DiffStat struct {
	Files      int `json:"files"`
	Insertions int `json:"insertions"`
	Deletions  int `json:"deletions"`
}

// Add returns the sum of d and o.
func (d DiffStat) Add(o DiffStat) DiffStat {
	return DiffStat{d.Files + o.Files, d.Insertions + o.Insertions, d.Deletions + o.Deletions}
}

var shortstatPart = regexp.MustCompile(`(\d+) (files? changed|insertions?\(\+\)|deletions?\(-\))`)

// ParseShortstat reads the output of `git diff --shortstat`, such as
// " 3 files changed, 40 insertions(+), 12 deletions(-)". No output (no
// change) is a zero DiffStat; ok is false when the text has none of its parts.
func ParseShortstat(out string) (d DiffStat, ok bool) {
	parts := shortstatPart.FindAllStringSubmatch(out, -1)
	for _, p := range parts {
		n, err := strconv.Atoi(p[1])
		if err != nil {
			return DiffStat{}, false
		}
		switch p[2][0] {
		case 'f':
			d.Files = n
		case 'i':
			d.Insertions = n
		case 'd':
			d.Deletions = n
		}
	}
	return d, len(parts) > 0 || strings.TrimSpace(out) == ""
}
