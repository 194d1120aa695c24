package control

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func taskedLoop() *Loop {
	return &Loop{Name: "plan", State: &state.State{Status: state.Running, CurrentIteration: 6, MaxIterations: 50, Tasks: &state.Tasks{
		File: "/w/PLAN.md", Total: 3, Done: 1, Open: 1, Skipped: 1, Current: "3", Mode: "implement", BeforeTree: "abc",
		Items: []state.TaskItem{
			{ID: "1", Title: "Add the parser", State: "done", Attempts: 1, Iterations: []int{1}},
			{ID: "2", Title: "Add the command", State: "skipped", Attempts: 3, Iterations: []int{2, 3, 4},
				Verdicts: []state.TaskVerdict{{Iteration: 4, Verdict: "skipped", Reason: "not done after 3 attempts: it was not marked done"}}},
			{ID: "3", Title: "Write the docs", State: "open", Attempts: 1, Iterations: []int{5}},
		}}}}
}

func TestStatusListsThePlansTasksWithTheirAttemptsAndIterations(t *testing.T) {
	var out strings.Builder
	WriteStatus(&out, taskedLoop(), time.Now())
	for _, want := range []string{
		"Tasks: 1 of 3 done, 1 open, 1 skipped (/w/PLAN.md)\n",
		"  done     1  Add the parser   attempts 1  iteration 1\n",
		"  skipped  2  Add the command  attempts 3  iterations 2, 3, 4 (not done after 3 attempts: it was not marked done)\n",
		"  open     3  Write the docs   attempts 1  iteration 5 ← implement\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
}

func TestStatusJSONAndListHaveTheTasks(t *testing.T) {
	l := taskedLoop()
	data, _ := json.Marshal(l.JSON())
	var got struct {
		Tasks map[string]json.RawMessage `json:"tasks"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"total", "done", "open", "skipped", "items"} {
		if _, ok := got.Tasks[k]; !ok {
			t.Errorf("status --json tasks lacks %q: %s", k, data)
		}
	}
	if _, ok := got.Tasks["before_tree"]; ok {
		t.Errorf("status --json tasks shows the loop's own notes: %s", data)
	}
	if !strings.Contains(string(got.Tasks["items"]), `{"attempts":3,"id":"2","iterations":[2,3,4],"state":"skipped","title":"Add the command"`) {
		t.Errorf("items = %s", got.Tasks["items"])
	}
	var out strings.Builder
	if err := WriteTable(&out, []*Loop{l}); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(out.String(), "\n"); !strings.Contains(lines[0], "ITERATION  TASKS") || !strings.Contains(lines[1], "6/50       1/3") {
		t.Errorf("list lacks the TASKS column:\n%s", out.String())
	}
}
