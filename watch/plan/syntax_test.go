package plan

import "testing"

// An id is what a plan's writer put first to name the task, never a word
// of its title.
func TestExplicitIDTakesIDsAndLeavesWords(t *testing.T) {
	for _, tc := range []struct{ text, id, title string }{
		{"US-001: Add login", "US-001", "Add login"},
		{"**US-002:** Add logout", "US-002", "Add logout"},
		{"**US-003**: Bold id", "US-003", "Bold id"},
		{"T3: Write the migration", "T3", "Write the migration"},
		{"T001 [P] Create the folders", "T001", "[P] Create the folders"},
		{"1.2 Implement the graph", "1.2", "Implement the graph"},
		{"1.2. Dotted with a dot", "1.2", "Dotted with a dot"},
		{"3: Numbered with a colon", "3", "Numbered with a colon"},
		{"TASK-12 Dash id", "TASK-12", "Dash id"},
		{"HTTP2: a word id before a colon", "HTTP2", "a word id before a colon"},
		{"HTTP2 support", "", "HTTP2 support"},
		{"3. Numbered without a colon", "", "3. Numbered without a colon"},
		{"2024 roadmap review", "", "2024 roadmap review"},
		{"OAuth2 login", "", "OAuth2 login"},
		{"Add login", "", "Add login"},
		{"US-004:", "US-004", "US-004:"},
	} {
		id, title := explicitID(tc.text)
		if id != tc.id || title != tc.title {
			t.Errorf("explicitID(%q) = %q, %q, want %q, %q", tc.text, id, title, tc.id, tc.title)
		}
	}
}

func TestHasBoxFindsBoxesAsWordsOnly(t *testing.T) {
	for s, want := range map[string]bool{
		"- [ ] a task":       true,
		"| [x] | done |":     true,
		"> * [/] quoted":     true,
		"[X]":                true,
		"a[x] = 1":           false,
		"m[ ]":               false,
		"see [2026-11-27]":   false,
		"[x](https://x.org)": false,
		"tags: [x, y]":       false,
		"xs := [/]int{}":     false,
	} {
		if got := hasBox(s); got != want {
			t.Errorf("hasBox(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestSectionKindReadsTheHeadingsFirstWords(t *testing.T) {
	for title, want := range map[string]sectionKindT{
		"Future work":                kindNever,
		"**Notes**":                  kindNever,
		"5. Out of scope":            kindNever,
		"🚀 Later":                    kindNever,
		"Optional: nice to have":     kindNever,
		"Acceptance Criteria (US-1)": kindCriteria,
		"SUCCESS CRITERIA":           kindCriteria,
		"Definition of Done":         kindCriteria,
		"Notebook support":           kindTasks,
		"Optionally faster":          kindTasks,
		"Tasks":                      kindTasks,
		"Phase 2: Ideas to build":    kindTasks,
	} {
		if got := sectionKind(title); got != want {
			t.Errorf("sectionKind(%q) = %v, want %v", title, got, want)
		}
	}
}
