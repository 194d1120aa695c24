package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// summary is a plan in short: "ID state line title" a task, "line: why" a
// part ignored.
func summary(p *Plan) (tasks, ignored []string) {
	for _, t := range p.Tasks {
		tasks = append(tasks, fmt.Sprintf("%s %s %d %s", t.ID, t.State, t.Line, t.Title))
	}
	for _, ig := range p.Ignored {
		ignored = append(ignored, fmt.Sprintf("%d: %s", ig.Line, ig.Why))
	}
	return tasks, ignored
}

func parseFile(t testing.TB, name string) (*Plan, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(name, data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return p, data
}

// The traps other loops fell into (boxes counted in code blocks and
// criteria sections, dates taken for boxes), each in a plan as people write them.
func TestParseMarkdownPlansAsWrittenInTheWild(t *testing.T) {
	for _, tc := range []struct {
		file           string
		tasks, ignored []string
	}{{
		file: "tricky.md",
		tasks: []string{
			"US-001 done 7 Parse the config file",
			"US-002 open 10 Add the `--verbose` flag",
			"T3 in-progress 14 Write the migration",
			"4 open 15 Log each request",
			"1.5 done 17 Cache the results",
			"6 open 18 Document the flags [2026-12-01]",
			"7 open 19 Strip `<!--` from titles (a comment in code is no comment)",
			"8 open 20 Handle tabs",
		},
		ignored: []string{
			`22: "[-]" is not a box the loop reads ([ ], [x], [/])`,
			"23: an empty box, with no task",
			`26: under "Notes"`,
			`30: under "Acceptance criteria"`,
			"35: in a fenced code block",
			"39: in a fenced code block",
			"42: in an indented code block",
			"44: in an HTML comment",
			"46: in an HTML comment",
			"49: in a block quote",
			"53: in a table",
			`57: under "Success criteria"`,
			`58: under "Success criteria"`,
			`61: under "Done Criteria"`,
			`65: under "Optional"`,
			`69: under "Future work"`,
			`73: under "Future work"`,
			`78: under "Notes"`,
			`82: under "Out of scope"`,
		},
	}, {
		file:  "fences.md",
		tasks: []string{"1 open 3 Write the parser", "2 done 4 Write the tests", "3 open 24 Ship it"},
		ignored: []string{
			"9: in a fenced code block", "10: in a fenced code block", "15: in a fenced code block",
			"21: in a fenced code block", "27: in a fenced code block",
		},
	}, {
		file:    "crlf_tabs.md",
		tasks:   []string{"1 open 3 First, with CRLF", "2 done 5 Second"},
		ignored: []string{"11: in an indented code block"},
	}, {
		file: "nested.md",
		tasks: []string{
			"P1.1 done 4 Read the config",
			"P1.2 open 7 Validate the config",
			"P2.1 open 9 Add the command",
			"P2.2 in-progress 10 Add the completions",
		},
	}, {
		file: "comments_quotes_tables.md",
		tasks: []string{
			"1 open 8 Real task one", "2 open 9 Real task two", "3 open 12 Real task three",
			"4 open 28 Strip `<!--` comments from titles", "5 open 29 The task after it is still a task",
		},
		ignored: []string{
			"5: in an HTML comment", "10: in an HTML comment", "15: in a block quote", "17: in a block quote",
			"21: in a table", "22: in a table", "26: in a table",
		},
	}, {
		file:    "setext.md",
		tasks:   []string{"1 open 4 Write the code", "2 open 6 Write the tests", "3 done 18 Write the docs"},
		ignored: []string{`13: under "Success criteria"`},
	}, {
		file: "labels.md",
		tasks: []string{
			"1 open 3 Add the login form",
			"2 open 8 Add the logout button",
			"3 done 11 Add the session store",
			"4 open 23 Write the docs",
		},
		ignored: []string{`10: under "Notes"`, `18: under "Success criteria"`, `19: under "Success criteria"`},
	}, {
		file: "speckit.md",
		tasks: []string{
			"T001 done 15 Create the `plugins/` folder",
			"T002 done 16 [P] Initialize `package.json`",
			"T003 open 24 [P] [US1] Contract test for `review` in `tests/review.test.ts`",
			"T004 open 28 [US1] Implement the review command",
		},
		ignored: []string{`29: "[ ]*" marks an optional task`, "40: in a fenced code block"},
	}, {
		file: "criteria.md",
		tasks: []string{
			"1 done 5 Read `.ralph/config`",
			"2 open 14 Add `--tasks FILE`",
			"3 open 22 Write the docs",
			"4 open 23 Write the changelog",
		},
		ignored: []string{
			`26: under "Optional"`,
			`30: under "Success criteria"`,
			`34: under "Definition of Done"`,
			`37: under "Out of scope"`,
			`41: under "Later"`,
		},
	}} {
		t.Run(tc.file, func(t *testing.T) {
			p, _ := parseFile(t, tc.file)
			if p.Format != FormatMarkdown {
				t.Errorf("format %s, want markdown", p.Format)
			}
			tasks, ignored := summary(p)
			if !reflect.DeepEqual(tasks, tc.tasks) {
				t.Errorf("tasks:\n%s\nwant:\n%s", strings.Join(tasks, "\n"), strings.Join(tc.tasks, "\n"))
			}
			if !reflect.DeepEqual(ignored, tc.ignored) {
				t.Errorf("ignored:\n%s\nwant:\n%s", strings.Join(ignored, "\n"), strings.Join(tc.ignored, "\n"))
			}
		})
	}
}

// A task's text is what the agent is given: the item with its sub-items,
// and a criteria sub-section after it; a labelled line's items are criteria.
func TestMarkdownTaskTextHasItsSubItemsAndCriteria(t *testing.T) {
	p, _ := parseFile(t, "criteria.md")
	first, second := p.Task("1"), p.Task("2")
	wantText := "- [x] Read `.ralph/config`\n\n### Acceptance criteria\n\n- [x] a bad key names its line\n- `ralph-watch run` reads it"
	if first.Text != wantText {
		t.Errorf("task 1 text %q, want %q", first.Text, wantText)
	}
	if want := []string{"a bad key names its line", "`ralph-watch run` reads it"}; !reflect.DeepEqual(first.Criteria, want) {
		t.Errorf("task 1 criteria %q, want %q", first.Criteria, want)
	}
	if want := []string{"the flag is in `--help`", "the man page has it", "the completions offer it"}; !reflect.DeepEqual(second.Criteria, want) {
		t.Errorf("task 2 criteria %q, want %q", second.Criteria, want)
	}
	if !strings.HasPrefix(second.Text, "- [ ] Add `--tasks FILE`\n  Done when:\n  - [ ] the flag") {
		t.Errorf("task 2 text %q lost its criteria", second.Text)
	}
	p, _ = parseFile(t, "labels.md")
	for id, want := range map[string][]string{"1": {"the form validates", "a bad password says so"}, "3": {"sessions expire"}} {
		if got := p.Task(id).Criteria; !reflect.DeepEqual(got, want) {
			t.Errorf("labels.md task %s criteria %q, want %q", id, got, want)
		}
	}
	p, _ = parseFile(t, "setext.md")
	if want := "- [ ] Write the code\nlazy continuation of the first task"; p.Tasks[0].Text != want {
		t.Errorf("task with a lazy line: text %q, want %q", p.Tasks[0].Text, want)
	}
	if want := "- [ ] Write the tests"; p.Tasks[1].Text != want {
		t.Errorf("task before a rule: text %q, want %q (a rule ends it)", p.Tasks[1].Text, want)
	}
	p, _ = parseFile(t, "tricky.md")
	if want := "- [ ] Handle tabs\n\t- [ ] a tab-indented step, part of its task"; p.Task("8").Text != want {
		t.Errorf("tab-indented task text %q, want %q", p.Task("8").Text, want)
	}
	p, _ = parseFile(t, "crlf_tabs.md")
	if want := "- [ ] First, with CRLF\n\t- [x] a nested step, tab-indented"; p.Tasks[0].Text != want {
		t.Errorf("CRLF task text %q, want %q (no carriage returns)", p.Tasks[0].Text, want)
	}
	p, _ = parseFile(t, "nested.md")
	if want := "2. [/] P2.2 Add the completions\n   * [ ] bash\n   * [ ] zsh"; p.Task("P2.2").Text != want {
		t.Errorf("nested task text %q, want %q", p.Task("P2.2").Text, want)
	}
}

// A file with no task is refused with the line to look at and why.
func TestParseRefusesAPlanWithNoTasks(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"empty.md", "", "line 1: no tasks: the file is empty"},
		{"prose.md", "# Plan\n\nJust words.\n", `line 1: no tasks: no "- [ ]" item in the file`},
		{"prd.md", mustRead(t, "prd.md"), `line 9: no tasks: every box is ignored (3, the first under "Acceptance Criteria")`},
		{"fenced.md", "# Plan\n```\n- [ ] x\n```\n", "line 3: no tasks: every box is ignored (1, the first in a fenced code block)"},
	} {
		_, err := Parse(tc.name, []byte(tc.data))
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%s) = %v, want %q", tc.name, err, tc.want)
		}
		if pe, ok := err.(*ParseError); !ok || pe.Name != tc.name {
			t.Errorf("Parse(%s): %#v is no ParseError naming the file", tc.name, err)
		}
	}
}

func mustRead(t testing.TB, name string) string {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// bigPlan is a plan of n tasks with sub-items, code and a notes section.
func bigPlan(n int) []byte {
	var b strings.Builder
	b.WriteString("# A long plan\n\n")
	for i := 1; i <= n; i++ {
		if i%500 == 1 {
			fmt.Fprintf(&b, "## Phase %d\n\n```\n- [ ] an example\n```\n\n", i/500+1)
		}
		mark := " "
		if i%3 == 0 {
			mark = "x"
		}
		fmt.Fprintf(&b, "- [%s] T%d: do step %d\n  - [ ] a sub-step\n  - detail\n", mark, i, i)
	}
	b.WriteString("\n## Notes\n\n- [ ] not a task\n")
	return []byte(b.String())
}

func TestParseFiveThousandTasksIsFast(t *testing.T) {
	data := bigPlan(5000)
	start := time.Now()
	p, err := Parse("big.md", data)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("parsing 5,000 tasks took %s", took)
	}
	if total, done, open := p.Counts(); total != 5000 || done != 1666 || open != 3334 {
		t.Errorf("counts %d %d %d, want 5000 1666 3334", total, done, open)
	}
	if len(p.Ignored) != 11 {
		t.Errorf("%d ignored, want 11 (10 fenced examples, 1 note)", len(p.Ignored))
	}
	if last := p.Tasks[4999]; last.ID != "T5000" || last.Text != "- [ ] T5000: do step 5000\n  - [ ] a sub-step\n  - detail" {
		t.Errorf("last task %q %q", last.ID, last.Text)
	}
}

func BenchmarkParseFiveThousandTasks(b *testing.B) {
	data := bigPlan(5000)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := Parse("big.md", data); err != nil {
			b.Fatal(err)
		}
	}
}

// An id names one task: a second task of an id already taken gets a suffix.
func TestTaskIDsAreUnique(t *testing.T) {
	p, err := Parse("plan.md", []byte("## Phase 1\n- [ ] T1: set up\n- [ ] build\n## Phase 2\n- [ ] T1: set up again\n- [ ] 2: explicit two\n"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, task := range p.Tasks {
		ids = append(ids, task.ID)
	}
	if want := []string{"T1", "2", "T1-2", "2-2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %q, want %q", ids, want)
	}
}

// A task renamed because an earlier task has its id is said, so that
// ralph-watch tasks can warn of it.
func TestRenamedTaskIDsAreSaid(t *testing.T) {
	p, err := Parse("plan.md", []byte("- [ ] T3: one\n- [ ] two\n- [ ] T3: three\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Renamed{{Line: 3, ID: "T3-2", Was: "T3", FirstAt: 1}}
	if !reflect.DeepEqual(p.Renamed, want) {
		t.Errorf("renamed %+v, want %+v", p.Renamed, want)
	}
	if p, _ := Parse("plan.md", []byte("- [ ] T1: one\n- [ ] two\n")); len(p.Renamed) != 0 {
		t.Errorf("a plan of unique ids renamed %+v", p.Renamed)
	}
}
