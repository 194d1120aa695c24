package finish

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// scriptedGh is testdata/gh/issues as gh in a folder of the test's own,
// issue N answering in the state given; it returns gh's path.
func scriptedGh(t *testing.T, states map[int]string) string {
	t.Helper()
	dir := t.TempDir()
	script, err := os.ReadFile("../../testdata/gh/issues")
	if err != nil {
		t.Fatal(err)
	}
	gh := filepath.Join(dir, "gh")
	if err := os.WriteFile(gh, script, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, st := range states {
		json := `{"number": ` + strconv.Itoa(n) + `, "title": "issue", "state": "` + st + `"}`
		if err := os.WriteFile(filepath.Join(dir, "issue-"+strconv.Itoa(n)+".json"), []byte(json), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return gh
}

// A loop's pull request closes the issues whose tasks it did, says which
// it did not and why, and names no issue a person closed meanwhile.
func TestAPullRequestClosesTheIssuesDoneAndSaysWhichAreNot(t *testing.T) {
	run := &history.Run{Name: "gh", State: &state.State{Tasks: &state.Tasks{Total: 6, Items: []state.TaskItem{
		{ID: "gh-1", Title: "Fix the login", State: "done", Attempts: 1},
		{ID: "gh-2", Title: "Add the flag", State: "skipped", Attempts: 3, Verdicts: []state.TaskVerdict{{Verdict: "skipped", Reason: "not done after 3 attempts"}}},
		{ID: "gh-3", Title: "Closed by a person", State: "open"},
		{ID: "gh-4", Title: "Never reached", State: "open"},
		{ID: "gh-5", Title: "Reviewed", State: "approved"},
		{ID: "6", Title: "A task of the person's own", State: "done"},
	}}}}
	gh := scriptedGh(t, map[int]string{1: "OPEN", 2: "OPEN", 3: "CLOSED", 4: "OPEN", 5: "OPEN"})
	s := &Summary{Run: run, Place: Place{Branch: "ralph/gh", Base: "main"}}
	s.Closed = closedOnGitHub(loopIssues(run), filepath.Dir(gh), Options{Gh: gh})
	body := s.Markdown()
	want := "### Issues\n\nCloses #1\nCloses #5\n\n- #2 Add the flag: not done (not done after 3 attempts)\n- #4 Never reached: not done (not started)\n\n### Iterations"
	if !strings.Contains(body, want) {
		t.Errorf("body lacks\n%s\nbody:\n%s", want, body)
	}
	for _, not := range []string{"Closes #3", "#3 Closed by a person:", "Closes #6"} {
		if strings.Contains(body, not) {
			t.Errorf("body has %q:\n%s", not, body)
		}
	}
	calls, _ := os.ReadFile(filepath.Join(filepath.Dir(gh), "calls"))
	if got := strings.Count(string(calls), "issue\nview\n"); got != 5 {
		t.Errorf("gh issue view ran %d times, want once for each of the 5 issues:\n%s", got, calls)
	}
	// A loop without issues asks gh nothing and its body has no such part.
	plain := &history.Run{Name: "p", State: &state.State{Tasks: &state.Tasks{Items: []state.TaskItem{{ID: "1", Title: "x", State: "done"}}}}}
	if closed := closedOnGitHub(loopIssues(plain), "", Options{Gh: "/nonexistent/gh"}); closed != nil {
		t.Errorf("closed %v", closed)
	}
	if body := (&Summary{Run: plain}).Markdown(); strings.Contains(body, "### Issues") {
		t.Errorf("a plan without issues has an issues part:\n%s", body)
	}
}

func TestAFansPullRequestClosesTheIssuesLanded(t *testing.T) {
	tasks := []fan.Task{
		{ID: "gh-7", Title: "Seven", State: fan.Landed, Landed: "0123456789abcdef"},
		{ID: "gh-8", Title: "Eight", State: fan.NeedsReview, Why: "Your work conflicts, in: go.mod.\nmore"},
		{ID: "gh-9", Title: "Nine", State: fan.Landed},
		{ID: "gh-10", Title: "Ten", State: fan.Open},
	}
	works := []fan.Work{{Task: tasks[0]}, {Task: tasks[1]}, {Task: tasks[2]}, {Task: tasks[3]}}
	gh := scriptedGh(t, map[int]string{7: "OPEN", 8: "OPEN", 9: "CLOSED", 10: "OPEN"})
	s := &FanSummary{Fan: &fan.State{Name: "web", Into: "ralph/fan-web", Tasks: tasks}, Works: works, Summary: &Summary{Place: Place{Branch: "ralph/fan-web", Base: "main"}}}
	s.Closed = closedOnGitHub(fanIssues(works), filepath.Dir(gh), Options{Gh: gh})
	body := s.Markdown()
	want := "### Issues\n\nCloses #7\n\n- #8 Eight: not done (Your work conflicts, in: go.mod.)\n- #10 Ten: not done (not started)\n"
	if !strings.Contains(body, want) || strings.Contains(body, "#9") {
		t.Errorf("body lacks\n%s\nor names #9; body:\n%s", want, body)
	}
}
