package plan

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseTasksJSONAndPRDJSON(t *testing.T) {
	p, _ := parseFile(t, "tasks.json")
	if p.Format != FormatTasksJSON {
		t.Errorf("tasks.json format %s", p.Format)
	}
	tasks, ignored := summary(p)
	want := []string{"US-001 done 6 Add the priority field", "US-002 open 17 Show the priority", "US-003 open 28 Sort by priority"}
	if !reflect.DeepEqual(tasks, want) || ignored != nil {
		t.Errorf("tasks.json: %q %q, want %q", tasks, ignored, want)
	}
	if want := []string{"go vet ./...", "go test ./..."}; !reflect.DeepEqual(p.VerifyCommands, want) {
		t.Errorf("verifyCommands %q, want %q", p.VerifyCommands, want)
	}
	us1, us2 := p.Task("US-001"), p.Task("US-002")
	if !us1.Passes || us1.Priority != 2 || us1.ReviewStatus != "approved" || us1.ReviewCount != 1 ||
		!reflect.DeepEqual(us1.Criteria, []string{"A priority column exists", "go test passes"}) {
		t.Errorf("US-001 read as %+v", us1)
	}
	if us2.Passes || !reflect.DeepEqual(us2.DependsOn, []string{"US-003"}) || us2.ReviewStatus != "pending" {
		t.Errorf("US-002 read as %+v", us2)
	}
	wantText := "US-002: Show the priority\n\nAs a user, I see each task's priority.\n\nAcceptance criteria:\n- A badge on each card"
	if us2.Text != wantText {
		t.Errorf("US-002 text %q, want %q", us2.Text, wantText)
	}

	p, _ = parseFile(t, "prd.json")
	tasks, _ = summary(p)
	if want := []string{"US-001 done 6 Login form", "US-002 open 7 Logout"}; p.Format != FormatPRD || !reflect.DeepEqual(tasks, want) {
		t.Errorf("prd.json: %s %q, want %q", p.Format, tasks, want)
	}
	if !strings.HasSuffix(p.Task("US-002").Text, "\n\nNotes: Reuse the header") {
		t.Errorf("prd.json story text %q lacks its notes", p.Task("US-002").Text)
	}

	// A byte order mark, as some editors write: read, and kept by Reopen.
	withBOM := []byte("\xef\xbb\xbf{\"userStories\": [{\"id\": \"a\", \"passes\": true}]}")
	p, err := Parse("prd.json", withBOM)
	if err != nil {
		t.Fatalf("a JSON plan with a byte order mark: %v", err)
	}
	if out, err := Reopen(withBOM, p, "a"); err != nil || string(out) != "\xef\xbb\xbf{\"userStories\": [{\"id\": \"a\", \"passes\": false}]}" {
		t.Errorf("reopen with a byte order mark: %q, %v", out, err)
	}
}

// The next task: open, its dependencies done, not skipped; stories by
// priority (none last), then order.
func TestNextTakesPriorityDependenciesAndSkipsIntoAccount(t *testing.T) {
	p, _ := parseFile(t, "tasks.json")
	// US-002 has the first priority but waits for US-003.
	if n := p.Next(nil); n == nil || n.ID != "US-003" {
		t.Errorf("next %v, want US-003", n)
	}
	if n := p.Next(func(id string) bool { return id == "US-003" }); n != nil {
		t.Errorf("next with US-003 skipped %v, want none (US-002 waits for it)", n.ID)
	}
	p.Task("US-003").State = Done
	if n := p.Next(nil); n == nil || n.ID != "US-002" {
		t.Errorf("next %v, want US-002 (priority 1)", n)
	}
	p, err := Parse("prd.json", []byte(`{"userStories": [{"id": "a"}, {"id": "b", "priority": 5}, {"id": "c", "priority": 5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Next(nil); n == nil || n.ID != "b" {
		t.Errorf("next %v, want b (a has no priority: last)", n)
	}
	md, _ := parseFile(t, "tricky.md")
	if n := md.Next(nil); n == nil || n.ID != "US-002" {
		t.Errorf("markdown next %v, want US-002", n)
	}
	if n := md.Next(func(id string) bool { return id != "6" }); n == nil || n.ID != "6" {
		t.Errorf("markdown next with all but 6 skipped %v, want 6", n)
	}
	if total, done, open := md.Counts(); total != 8 || done != 2 || open != 6 {
		t.Errorf("counts %d %d %d, want 8 2 6", total, done, open)
	}
}

// A JSON plan that cannot be worked through is refused with its line.
func TestParseRefusesBadJSONPlansWithTheirLine(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"{\n  \"userStories\": [\n    {\"id\": 1,}\n  ]\n}", "line 3: not JSON: invalid character '}' looking for beginning of object key string"},
		{"{\n  \"userStories\": [\n", "line 3: not JSON: the file ends inside a value"},
		{`{"project": "x"}`, `line 1: no "userStories" in the JSON object`},
		{"\n[{\"id\": \"US-001\", \"passes\": false}]", `line 2: not a plan: a JSON plan is an object with "userStories"`},
		{"{\"userStories\": []}", "line 1: no tasks: userStories is empty"},
		{"{\"userStories\": {}}", "line 1: userStories is not a list"},
		{"{\"userStories\": [\n 3\n]}", "line 2: user story 1 is not an object"},
		{"{\"userStories\": [\n {\"id\": \"a\",\n  \"passes\": \"yes\"}]}", `line 3: user story 1: passes is "yes", want true or false`},
		{"{\"userStories\": [{\"id\": \"a\", \"priority\": \"high\"}]}", `line 1: user story 1: priority is "high", want a whole number, 1 first`},
		{"{\"userStories\": [{\"id\": \"a\"},\n {\"id\": \"a\"}]}", "line 2: story id a is also the id of the story at line 1"},
		{"{\"userStories\": [{\"id\": \"a\", \"dependsOn\": [\"z\"]}]}", "line 1: story a depends on z, which is not in the plan"},
		{"{\"userStories\": [{\"id\": \"a\", \"dependsOn\": [\"a\"]}]}", "line 1: story a depends on itself"},
		{"{\"userStories\": [{\"id\": \"a\", \"dependsOn\": [\"c\"]},\n {\"id\": \"b\", \"dependsOn\": [\"a\"]},\n {\"id\": \"c\", \"dependsOn\": [\"b\"]}]}", "line 1: stories wait for each other: a → c → b → a"},
		{"{\"userStories\": [{\"id\": \"a\"}]}\n{}", "line 2: more after the JSON object"},
		{"{\"verifyCommands\": \"make\", \"userStories\": [{\"id\": \"a\"}]}", "line 1: verifyCommands is not a list of strings"},
	} {
		_, err := Parse("tasks.json", []byte(tc.data))
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q) = %v, want %q", tc.data, err, tc.want)
		}
	}
}
