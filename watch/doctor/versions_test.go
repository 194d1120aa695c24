package doctor

import (
	"os"
	"strings"
	"testing"
)

func TestParseVersionsReadsThreeWordLinesAndSkipsComments(t *testing.T) {
	got := parseVersions("# PROFILE PACKAGE VERSION\n\nclaude @a/claude-code 1.2.3 # pinned\nbroken line\n")
	if len(got) != 1 || got[0] != (Release{"claude", "@a/claude-code", "1.2.3"}) {
		t.Errorf("parseVersions = %+v", got)
	}
	if len(Pinned()) < 3 {
		t.Errorf("the versions file pins %+v, want claude, codex and gemini", Pinned())
	}
	if _, ok := PinnedRelease("codex"); !ok {
		t.Errorf("no pinned codex")
	}
}

// docs/agents.md's compatibility table shows each pinned release: the table is
// made on the pinned versions, and a pin moved without it would say nothing.
func TestTheDocsCompatibilityTableNamesEachPinnedRelease(t *testing.T) {
	page, err := os.ReadFile("../../docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(page), "## Compatibility")
	if !ok {
		t.Fatal("docs/agents.md has no Compatibility section")
	}
	rows := map[string][]string{} // agent: the Version cells of its rows
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break // the table's end
			}
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) > 3 {
			agent := strings.TrimSpace(cells[1])
			rows[agent] = append(rows[agent], strings.TrimSpace(cells[2]))
		}
	}
	for _, r := range Pinned() {
		found := false
		for _, v := range rows[r.Agent] {
			found = found || strings.Contains(v, r.Version)
		}
		if !found {
			t.Errorf("docs/agents.md's compatibility table has no %s %s row (it has %q); run ralph-watch doctor --markdown on it",
				r.Agent, r.Version, rows[r.Agent])
		}
	}
}

// A release other than the pinned one is named as such; the pinned one is not.
func TestTheReportSaysWhenTheReleaseIsNotThePinnedOne(t *testing.T) {
	for version, want := range map[string]bool{"2.1.197 (Claude Code)": true, "2.1.330 (Claude Code)": false} {
		var b strings.Builder
		(&Report{Agent: "claude", Version: version, Pinned: "2.1.330"}).WriteText(&b)
		if got := strings.Contains(b.String(), "checked against claude 2.1.330"); got != want {
			t.Errorf("version %s: note %v, want %v:\n%s", version, got, want, b.String())
		}
	}
}
