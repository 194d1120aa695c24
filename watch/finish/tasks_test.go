package finish

import (
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func TestAPullRequestListsTheTasksDoneAndSkipped(t *testing.T) {
	run := &history.Run{Name: "plan", State: &state.State{Tasks: &state.Tasks{Total: 3, Done: 1, Open: 1, Skipped: 1, Items: []state.TaskItem{
		{ID: "1", Title: "Add the parser", State: "done"},
		{ID: "2", Title: "Add the command", State: "skipped", Verdicts: []state.TaskVerdict{{Verdict: "skipped", Reason: "not done after 3 attempts"}}},
		{ID: "3", Title: "Write the docs", State: "open"},
	}}}}
	s := &Summary{Run: run, Place: Place{Branch: "ralph/plan", Base: "main"}}
	body := s.Markdown()
	want := "### Tasks: 1 of 3 done\n\nDone:\n\n- 1 Add the parser\n\nSkipped:\n\n- 2 Add the command (not done after 3 attempts)\n\nOpen:\n\n- 3 Write the docs\n\n### Iterations"
	if !strings.Contains(body, want) {
		t.Errorf("body lacks\n%s\nbody:\n%s", want, body)
	}
	if text := s.Text(); !strings.Contains(text, "Tasks: 1 of 3 done, 1 open, 1 skipped\n") {
		t.Errorf("text:\n%s", text)
	}
}
