package finish

import (
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

func TestAFansPullRequestGivesEveryTasksVerdictAndWhyTheOthersDidNotLand(t *testing.T) {
	cost := 0.25
	tasks := []fan.Task{
		{ID: "1", Title: "Parse a | b", State: fan.Landed, Landed: "0123456789abcdef", Merges: 1},
		{ID: "2", Title: "Add the command", State: fan.NeedsReview, Branch: "ralph/fan-web-2", Merges: 2, Why: "Your work on task 2 conflicts with work landed since on ralph/fan-web, in: go.mod."},
		{ID: "3", Title: "Write the docs", State: fan.Skipped, Why: "its loop fan-web-3 ended with exit 3"},
	}
	f := &fan.State{Name: "web", Plan: "PLAN.md", Into: "ralph/fan-web", Tasks: tasks}
	works := []fan.Work{
		{Task: tasks[0], Iterations: 2, Attempts: 2, Verdict: "done", Spent: receipt.Receipt{Source: "claude", CostUSD: &cost, Usage: receipt.Usage{Tokens: receipt.Tokens{Output: 1200}}}},
		{Task: tasks[1], Iterations: 3, Attempts: 1, Verdict: "done"},
		{Task: tasks[2], Iterations: 3, Attempts: 3, Verdict: "skipped", Reason: "not done after 3 attempts"},
	}
	s := &FanSummary{Fan: f, Works: works, Summary: &Summary{Place: Place{Branch: "ralph/fan-web", Base: "main"}, Commits: []string{"0123456 Task 1: Parse a | b"}}}
	if got := s.Title(); got != "ralph fan web: 1 of 3 tasks landed, 1 waiting for review, 1 skipped" {
		t.Errorf("title %q", got)
	}
	body := s.Markdown()
	for _, want := range []string{
		"| 1 | Parse a \\| b | landed | done | - | 2 | 2 | 1 | 0123456789ab | 1k tok $0.25 |\n",
		"| 2 | Add the command | needs-review | done | - | 3 | 1 | 2 | - | - |\n",
		"| 3 | Write the docs | skipped | skipped | - | 3 | 3 | 0 | - | - |\n",
		"**Task 2, needs-review** (its work: branch `ralph/fan-web-2`):\n\n````\nYour work on task 2 conflicts with work landed since on ralph/fan-web, in: go.mod.\n````\n",
		"**Task 3, skipped**:\n\n````\nits loop fan-web-3 ended with exit 3\n````\n",
		"- 0123456 Task 1: Parse a | b\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
}
