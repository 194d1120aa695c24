package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reopen undoes a tick by one byte and keeps every other one.
func TestReopenChangesOneByteOfAMarkdownPlan(t *testing.T) {
	for _, name := range []string{"tricky.md", "crlf_tabs.md", "nested.md", "criteria.md"} {
		p, data := parseFile(t, name)
		for _, task := range p.Tasks {
			if task.State != Done {
				if _, err := Reopen(data, p, task.ID); err == nil {
					t.Errorf("%s: reopening task %s, which is %s, did not fail", name, task.ID, task.State)
				}
				continue
			}
			out, err := Reopen(data, p, task.ID)
			if err != nil {
				t.Fatalf("%s: reopen %s: %v", name, task.ID, err)
			}
			if len(out) != len(data) {
				t.Fatalf("%s: reopen %s: %d bytes, was %d", name, task.ID, len(out), len(data))
			}
			var changed []int
			for i := range data {
				if data[i] != out[i] {
					changed = append(changed, i)
				}
			}
			if len(changed) != 1 || out[changed[0]] != ' ' || !bytes.EqualFold(data[changed[0]:changed[0]+1], []byte("x")) {
				t.Errorf("%s: reopen %s changed bytes %v", name, task.ID, changed)
			}
			checkReopened(t, name, p, out, task.ID)
		}
	}
}

func TestReopenSetsPassesFalseAndKeepsTheRestOfTheJSON(t *testing.T) {
	for _, name := range []string{"tasks.json", "prd.json"} {
		p, data := parseFile(t, name)
		out, err := Reopen(data, p, "US-001")
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(data, []byte(`"passes": true`)) + len(`"passes": `)
		want := string(data[:i]) + "false" + string(data[i+len("true"):])
		if string(out) != want {
			t.Errorf("%s: reopened:\n%s\nwant:\n%s", name, out, want)
		}
		checkReopened(t, name, p, out, "US-001")
		if _, err := Reopen(data, p, "US-002"); err == nil || err.Error() != "reopen task US-002: it is open, not done" {
			t.Errorf("%s: reopening an open story: %v", name, err)
		}
	}
}

// Reopen refuses a plan changed since it was read rather than edit a byte
// that is no longer the box.
func TestReopenRefusesAPlanThatChanged(t *testing.T) {
	p, data := parseFile(t, "tricky.md")
	changed := append([]byte("# A new first line\n"), data...)
	if _, err := Reopen(changed, p, "US-001"); err == nil || !strings.Contains(err.Error(), "the plan changed since it was read") {
		t.Errorf("reopen in a changed plan: %v", err)
	}
	if _, err := Reopen(data, p, "nope"); err == nil || err.Error() != "reopen task nope: no such task" {
		t.Errorf("reopen of no task: %v", err)
	}
}

// checkReopened parses the reopened plan: the task is open, every other
// task is as it was.
func checkReopened(t *testing.T, name string, before *Plan, out []byte, id string) {
	t.Helper()
	after, err := Parse(name, out)
	if err != nil {
		t.Fatalf("%s: the plan with %s reopened does not parse: %v", name, id, err)
	}
	if len(after.Tasks) != len(before.Tasks) || len(after.Ignored) != len(before.Ignored) {
		t.Fatalf("%s: reopening %s made %d tasks and %d ignored of %d and %d", name, id, len(after.Tasks), len(after.Ignored), len(before.Tasks), len(before.Ignored))
	}
	for i, a := range after.Tasks {
		b := before.Tasks[i]
		if a.ID == id {
			if a.State != Open || a.Title != b.Title || a.Line != b.Line {
				t.Errorf("%s: reopened %s is %+v", name, id, a)
			}
			continue
		}
		if a.ID != b.ID || a.State != b.State || a.Title != b.Title || a.Line != b.Line || a.Text != b.Text {
			t.Errorf("%s: reopening %s changed task %s: %+v, was %+v", name, id, b.ID, a, b)
		}
	}
}

// Any input: Parse never panics, and reopening each done task gives a plan
// where it is open and the others are as they were.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("- [x] a\r\n\t- [X] b\r\n* [/] c <!--\n- [ ] d\n-->\n> - [ ] e\n"))
	f.Add([]byte(`{"userStories": [{"id": "a", "passes": true, "dependsOn": []}, {"id": 2, "passes": false}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("plan", data)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T %v is no ParseError", err, err)
			}
			return
		}
		for _, task := range p.Tasks {
			if task.State != Done {
				continue
			}
			out, err := Reopen(data, p, task.ID)
			if err != nil {
				t.Fatalf("reopen %s: %v", task.ID, err)
			}
			checkReopened(t, "plan", p, out, task.ID)
		}
		if p.Format != FormatMarkdown {
			out, err := SetReview(data, p, p.Tasks[0].ID, "fix \"this\"", 7)
			if err != nil {
				t.Fatalf("set review: %v", err)
			}
			checkReview(t, p, out, p.Tasks[0].ID, "fix \"this\"", 7)
		}
	})
}

// SetReview edits a story's review values in place, or adds the fields a
// story lacks, and keeps every other byte.
func TestSetReviewEditsTheValuesInPlace(t *testing.T) {
	p, data := parseFile(t, "tasks.json")
	out, err := SetReview(data, p, "US-002", `needs "fix"`, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(string(data),
		`"reviewStatus": "pending",`, `"reviewStatus": "needs \"fix\"",`, 1),
		`"reviewCount": 0
    },
    {
      "id": "US-003"`, `"reviewCount": 2
    },
    {
      "id": "US-003"`, 1)
	if string(out) != want {
		t.Errorf("set review:\n%s\nwant:\n%s", out, want)
	}
	checkReview(t, p, out, "US-002", `needs "fix"`, 2)

	p, data = parseFile(t, "prd.json")
	out, err = SetReview(data, p, "US-001", "approved", 1)
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(string(data), `"passes": true, "notes": ""}`, `"passes": true, "notes": "", "reviewStatus": "approved", "reviewCount": 1}`, 1)
	if string(out) != want {
		t.Errorf("set review where there was none:\n%s\nwant:\n%s", out, want)
	}
	checkReview(t, p, out, "US-001", "approved", 1)

	empty := []byte(`{"userStories": [ {  } ]}`)
	p, err = Parse("tasks.json", empty)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = SetReview(empty, p, "1", "pending", 0); err != nil || string(out) != `{"userStories": [ {"reviewStatus": "pending", "reviewCount": 0  } ]}` {
		t.Errorf("set review of an empty story: %s, %v", out, err)
	}
	md, mdData := parseFile(t, "tricky.md")
	if _, err := SetReview(mdData, md, "US-001", "approved", 1); err == nil || err.Error() != "set review of task US-001: a markdown plan has no review fields" {
		t.Errorf("set review in Markdown: %v", err)
	}
}

// checkReview parses a plan whose review values were set: that story has
// them, every other task is as it was.
func checkReview(t *testing.T, before *Plan, out []byte, id, status string, count int) {
	t.Helper()
	after, err := Parse("plan.json", out)
	if err != nil {
		t.Fatalf("the plan with %s's review set does not parse: %v", id, err)
	}
	if len(after.Tasks) != len(before.Tasks) {
		t.Fatalf("setting %s's review made %d tasks of %d", id, len(after.Tasks), len(before.Tasks))
	}
	for i, a := range after.Tasks {
		b := before.Tasks[i]
		if a.ID == id {
			b.ReviewStatus, b.ReviewCount = status, count
		}
		if a.ID != b.ID || a.State != b.State || a.Title != b.Title || a.Line != b.Line || a.Text != b.Text ||
			a.ReviewStatus != b.ReviewStatus || a.ReviewCount != b.ReviewCount || a.Priority != b.Priority {
			t.Errorf("setting %s's review: task %+v, want %+v", id, a, b)
		}
	}
}
