package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tasks FILE prints what the loop sees, so a person can check a plan
// before a night's run: each task, each part that is not one and why, the counts.
func TestTasksPrintsWhatTheLoopSeesOfAPlan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "PLAN.md")
	plan := "# Plan\n\n- [x] T1: Read the config\n- [ ] Add the flag\n  - [ ] a sub-step\n\n```\n- [ ] an example\n```\n\n## Future\n\n- [ ] plugins\n"
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runInProcess("tasks", path)
	want := path + ": markdown plan\n\n" +
		"ID  STATE  LINE  TITLE\n" +
		"T1  done   3     Read the config\n" +
		"2   open   4     Add the flag\n" +
		"\nNot tasks:\n" +
		"LINE  WHY                     TEXT\n" +
		"8     in a fenced code block  - [ ] an example\n" +
		"13    under \"Future\"          - [ ] plugins\n" +
		"\n2 tasks: 1 done, 1 open; next: 2\n"
	if code != 0 || stderr != "" || stdout != want {
		t.Errorf("tasks: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}

	code, stdout, _ = runInProcess("tasks", path, "--json")
	var got struct {
		Format            string
		Total, Done, Open int
		Next              string
		Items             []struct {
			ID, Title, State string
			Line             int
		}
		Ignored []struct {
			Line      int
			Why, Text string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
		t.Fatalf("tasks --json: exit %d, %v:\n%s", code, err, stdout)
	}
	if got.Format != "markdown" || got.Total != 2 || got.Done != 1 || got.Open != 1 || got.Next != "2" ||
		len(got.Items) != 2 || got.Items[1].ID != "2" || got.Items[1].State != "open" || got.Items[1].Line != 4 ||
		len(got.Ignored) != 2 || got.Ignored[1].Why != `under "Future"` || got.Ignored[1].Line != 13 {
		t.Errorf("tasks --json: %+v", got)
	}
}

// A file that cannot be read as a plan is refused with exit 2, its path,
// line and why.
func TestTasksRefusesAFileThatIsNoPlan(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, data, want string }{
		{"fenced.md", "# Plan\n```\n- [ ] x\n```\n", "line 3: no tasks: every box is ignored (1, the first in a fenced code block)"},
		{"tasks.json", "{\n  \"userStories\": [\n    {\"id\": 1,}\n  ]\n}\n", "line 3: not JSON: invalid character '}' looking for beginning of object key string"},
		{"prd.json", "{\"project\": \"x\"}\n", `line 1: no "userStories" in the JSON object`},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runInProcess("tasks", path)
		if want := "ralph-watch: error: " + path + " " + tc.want + "\n"; code != 2 || stdout != "" || stderr != want {
			t.Errorf("tasks %s: exit %d, stdout %q, stderr %q, want %q", tc.name, code, stdout, stderr, want)
		}
	}
	code, _, stderr := runInProcess("tasks", dir)
	if want := "ralph-watch: error: read plan " + dir + ": is a directory\n"; code != 2 || stderr != want {
		t.Errorf("tasks DIR: exit %d, stderr %q, want %q", code, stderr, want)
	}
	code, _, stderr = runInProcess("tasks")
	if code != 2 || !strings.Contains(stderr, "tasks takes one plan file or loop name, got 0 arguments") {
		t.Errorf("tasks with no argument: exit %d, stderr %q", code, stderr)
	}
}

// A tasks.json shows each story's priority, dependencies and review, and
// its verify commands.
func TestTasksShowsAStoryPlansPriorityDependenciesAndReview(t *testing.T) {
	path := filepath.Join("..", "..", "watch", "plan", "testdata", "tasks.json")
	code, stdout, stderr := runInProcess("tasks", path)
	want := path + ": tasks.json plan\n\n" +
		"ID      STATE  LINE  PRIORITY  AFTER   REVIEW      TITLE\n" +
		"US-001  done   6     2         -       approved 1  Add the priority field\n" +
		"US-002  open   17    1         US-003  pending 0   Show the priority\n" +
		"US-003  open   28    3         US-001  -           Sort by priority\n" +
		"\nVerify commands (run as checks):\n  go vet ./...\n  go test ./...\n" +
		"\n3 tasks: 1 done, 2 open; next: US-003\n"
	if code != 0 || stderr != "" || stdout != want {
		t.Errorf("tasks: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
}
