package doctor

// The agent releases ralph.tmux is checked against, from the one file that
// pins them (watch/doctor/versions, embedded: the binary knows them too).

import (
	_ "embed"
	"strings"
)

//go:embed versions
var versionsFile string

// Release is one pinned agent release.
type Release struct {
	Agent   string // the profile, which is also its program's name
	Package string // on the npm registry
	Version string
}

// Pinned returns the pinned releases, in the file's order.
func Pinned() []Release {
	return parseVersions(versionsFile)
}

// PinnedRelease returns the pinned release of an agent.
func PinnedRelease(agent string) (Release, bool) {
	for _, r := range Pinned() {
		if r.Agent == agent {
			return r, true
		}
	}
	return Release{}, false
}

// parseVersions reads "PROFILE PACKAGE VERSION" lines; # starts a comment.
func parseVersions(text string) []Release {
	var out []Release
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if f := strings.Fields(line); len(f) == 3 {
			out = append(out, Release{Agent: f[0], Package: f[1], Version: f[2]})
		}
	}
	return out
}
