package plan

import (
	"reflect"
	"strings"
	"testing"
)

// A task written "#12 title" is GitHub issue 12's: its id is gh-12.
func TestATaskWrittenWithAnIssueNumberHasTheIssuesID(t *testing.T) {
	p, err := Parse("plan.md", []byte("- [ ] #12 Fix the login\n- [x] #3: Add a flag\n- [ ] #012 Leading zero\n- [ ] #0 no issue\n- [ ] #x not a number\n- [ ] T4: #5 an id first\n- [ ] #7\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, task := range p.Tasks {
		got = append(got, task.ID+" "+string(task.State)+" "+task.Title+" "+IssueID(task.Issue))
	}
	want := []string{"gh-12 open Fix the login gh-12", "gh-3 done Add a flag gh-3", "gh-12-2 open Leading zero gh-12", "4 open #0 no issue gh-0", "5 open #x not a number gh-0", "T4 open #5 an id first gh-0", "gh-7 open #7 gh-7"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tasks\n%q\nwant\n%q", got, want)
	}
	if got := p.Named(); !reflect.DeepEqual(got, []int{3, 7, 12}) {
		t.Errorf("named %v", got)
	}
	for id, n := range map[string]int{"gh-12": 12, "gh-1": 1, "gh-012": 0, "gh-": 0, "gh-12-2": 0, "GH-12": 0, "12": 0} {
		if got := IssueOf(id); got != n {
			t.Errorf("IssueOf(%q) = %d, want %d", id, got, n)
		}
	}
	j, err := Parse("prd.json", []byte(`{"userStories": [{"id": "gh-4", "title": "x"}, {"id": "US-1", "title": "y"}]}`))
	if err != nil || j.Tasks[0].Issue != 4 || j.Tasks[1].Issue != 0 {
		t.Errorf("a JSON story of id gh-4: %v %+v", err, j)
	}
}

func TestIssuesMakeANewPlanInNumberOrderWithTheirCriteria(t *testing.T) {
	issues := []Issue{
		{Number: 14, Title: "Add the --json flag"},
		{Number: 9, Title: "Fix the login", Criteria: []string{"a wrong password says so", "the form keeps the email"}},
		{Number: 11, Title: "Closed already", Closed: true},
	}
	out, edit, err := WriteIssues(nil, issues, "# Plan\n\nFrom GitHub.\n\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Plan\n\nFrom GitHub.\n\n" +
		"- [ ] #9 Fix the login\n  Acceptance criteria:\n  - a wrong password says so\n  - the form keeps the email\n" +
		"- [ ] #14 Add the --json flag\n"
	if string(out) != want {
		t.Errorf("plan\n%s\nwant\n%s", out, want)
	}
	if !reflect.DeepEqual(edit, IssueEdit{Added: []int{9, 14}}) {
		t.Errorf("edit %+v", edit)
	}
	p, err := Parse("plan.md", out)
	if err != nil || len(p.Tasks) != 2 || p.Tasks[0].ID != "gh-9" || p.Tasks[1].ID != "gh-14" ||
		!reflect.DeepEqual(p.Tasks[0].Criteria, []string{"a wrong password says so", "the form keeps the email"}) || p.Tasks[1].Criteria != nil {
		t.Errorf("the plan reads as %v %+v", err, p)
	}
}

// An update ticks the closed issues' tasks, appends the new issues after
// the last task, and keeps every other byte of the person's.
func TestIssuesUpdateAPlanKeepingThePersonsLines(t *testing.T) {
	mine := "# Release 2\r\n\r\nMy words, *kept*.\r\n\r\n## Tasks\r\n\r\n- [ ] Write the notes <!-- mine -->\r\n- [ ] #3 Old issue, retitled by me\r\n  - my sub-step\r\n- [/] #5 Half done\r\n\r\n## Notes\r\n\r\n- [ ] not a task\r\n"
	issues := []Issue{
		{Number: 3, Title: "Old issue", Closed: true},
		{Number: 5, Title: "Half done"},
		{Number: 8, Title: "New one", Criteria: []string{"it works"}},
		{Number: 6, Title: "Another"},
		{Number: 2, Title: "Closed, never in the plan", Closed: true},
	}
	out, edit, err := WriteIssues([]byte(mine), issues, "unused")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Release 2\r\n\r\nMy words, *kept*.\r\n\r\n## Tasks\r\n\r\n- [ ] Write the notes <!-- mine -->\r\n- [x] #3 Old issue, retitled by me\r\n  - my sub-step\r\n- [/] #5 Half done\r\n" +
		"- [ ] #6 Another\r\n- [ ] #8 New one\r\n  Acceptance criteria:\r\n  - it works\r\n" +
		"\r\n## Notes\r\n\r\n- [ ] not a task\r\n"
	if string(out) != want {
		t.Errorf("plan\n%q\nwant\n%q", out, want)
	}
	if !reflect.DeepEqual(edit, IssueEdit{Added: []int{6, 8}, Ticked: []int{3}}) {
		t.Errorf("edit %+v", edit)
	}
	again, edit, err := WriteIssues(out, issues, "unused")
	if err != nil || string(again) != string(out) || len(edit.Added)+len(edit.Ticked) != 0 {
		t.Errorf("a second update changed the plan: %v %+v\n%q", err, edit, again)
	}
}

// Where the plan's last task is followed by its criteria section, new
// tasks there would be criteria: they go under a heading of their own.
func TestIssuesAfterACriteriaSectionGoUnderAHeading(t *testing.T) {
	mine := "## Task\n\n- [ ] the one task\n\n### Acceptance criteria\n\n- it holds"
	out, _, err := WriteIssues([]byte(mine), []Issue{{Number: 4, Title: "four"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := mine + "\n\n## Issues\n\n- [ ] #4 four\n"; string(out) != want {
		t.Errorf("plan\n%q\nwant\n%q", out, want)
	}
	if _, _, err := WriteIssues([]byte(`{"userStories": []}`), nil, ""); err == nil || !strings.Contains(err.Error(), "JSON plan") {
		t.Errorf("a JSON plan: %v", err)
	}
	// A file of prose alone takes the tasks at its end.
	out, _, err = WriteIssues([]byte("# Plan\n\nNothing yet."), []Issue{{Number: 1, Title: "one"}}, "")
	if err != nil || string(out) != "# Plan\n\nNothing yet.\n\n- [ ] #1 one\n" {
		t.Errorf("%v %q", err, out)
	}
}

// Titles are data: written as they are, one line, starting no comment.
func TestIssueTitlesAreWrittenLiterally(t *testing.T) {
	titles := []string{"Run $(touch pwned) now", "Use `rm -rf /` never", "Show #{pane_id} and #(date)", "Two\nlines\r\there", "Hide <!-- this", "**US-9:** [x] bold"}
	var issues []Issue
	for i, title := range titles {
		issues = append(issues, Issue{Number: i + 1, Title: title, Criteria: []string{title}})
	}
	out, _, err := WriteIssues(nil, issues, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse("plan.md", out)
	if err != nil || len(p.Tasks) != len(titles) {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []string{"Run $(touch pwned) now", "Use `rm -rf /` never", "Show #{pane_id} and #(date)", "Two lines  here", `Hide <\!-- this`, "**US-9:** [x] bold"}
	for i, task := range p.Tasks {
		if task.Title != want[i] || task.ID != IssueID(i+1) {
			t.Errorf("task %d: %s %q, want %q", i+1, task.ID, task.Title, want[i])
		}
	}
	if !strings.Contains(string(out), "- [ ] #1 Run $(touch pwned) now\n") {
		t.Errorf("plan:\n%s", out)
	}
}

func TestIssueCriteriaAreTheChecklistAndTheAcceptanceLines(t *testing.T) {
	body := "The login fails.\r\n\r\n<!-- Describe the bug:\r\n- [ ] a template hint\r\n-->\r\n" +
		"Steps:\n- [ ] reproduce it\n- [x] find the cause\n\n```\n- [ ] code, not a step\n```\n\n" +
		"## Acceptance\n\n- a wrong password says so\n* [ ] reproduce it\nThe form keeps the email.\n\n### Detail\nstill acceptance\n\n## Notes\nnot a criterion\n" +
		"**Definition of done:**\n1. docs updated\n"
	want := []string{"reproduce it", "find the cause", "a wrong password says so", "The form keeps the email.", "still acceptance", "docs updated"}
	if got := IssueCriteria(body); !reflect.DeepEqual(got, want) {
		t.Errorf("criteria\n%q\nwant\n%q", got, want)
	}
	if got := IssueCriteria("Just words.\n"); got != nil {
		t.Errorf("criteria of a body without any: %q", got)
	}
}
