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
	wantFor(t, "hasBox", hasBox, map[bool][]string{
		true:  {"- [ ] a task", "| [x] | done |", "> * [/] quoted", "[X]"},
		false: {"a[x] = 1", "m[ ]", "see [2026-11-27]", "[x](https://x.org)", "tags: [x, y]", "xs := [/]int{}"},
	})
}

func TestSectionKindReadsTheHeadingsFirstWords(t *testing.T) {
	wantFor(t, "sectionKind", sectionKind, map[sectionKindT][]string{
		kindNever:    {"Future work", "**Notes**", "5. Out of scope", "🚀 Later", "Optional: nice to have"},
		kindCriteria: {"Acceptance Criteria (US-1)", "SUCCESS CRITERIA", "Definition of Done"},
		kindTasks:    {"Notebook support", "Optionally faster", "Tasks", "Phase 2: Ideas to build"},
	})
}

// wantFor checks that f gives each input the result it is listed under.
func wantFor[T comparable](t *testing.T, name string, f func(string) T, inputs map[T][]string) {
	t.Helper()
	for want, ins := range inputs {
		for _, in := range ins {
			if got := f(in); got != want {
				t.Errorf("%s(%q) = %v, want %v", name, in, got, want)
			}
		}
	}
}
