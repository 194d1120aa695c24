package finish

import (
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// A goal loop's pull request quotes the goal and the judge's final
// verdict: met with its evidence, or not met with what is missing and why.
func TestAGoalLoopsPullRequestQuotesTheFinalVerdictsEvidence(t *testing.T) {
	met := &history.Run{Name: "g", State: &state.State{Goal: "a CSV parser\nwith tests\n", Verdicts: []state.Verdict{
		{Iteration: 1, Missing: []string{"tests"}, Reason: "tests"},
		{Iteration: 2, Met: true, Evidence: []string{"parser.go parses quoted fields", "go test ./... passed"}},
	}}}
	s := &Summary{Run: met, Place: Place{Branch: "ralph/g", Base: "main"}}
	body := s.Markdown()
	want := "### Goal: met (the judge's verdict after iteration 2)\n\n> a CSV parser\n> with tests\n\n" +
		"Evidence the judge named:\n\n- parser.go parses quoted fields\n- go test ./... passed\n\n### Iterations"
	if !strings.Contains(body, want) {
		t.Errorf("the body lacks\n%s\nin\n%s", want, body)
	}
	if strings.Contains(body, "Still missing") || strings.Contains(body, "- tests\n") {
		t.Errorf("the body quotes an earlier verdict:\n%s", body)
	}
	if got := s.Text(); !strings.Contains(got, "Goal: met (the judge, after iteration 2)\n") {
		t.Errorf("the terminal's summary:\n%s", got)
	}

	notMet := &history.Run{Name: "g", State: &state.State{Goal: "a CSV parser", Verdicts: []state.Verdict{
		{Iteration: 3, Missing: []string{"tests for empty input", "the error message"}, Reason: "tests for empty input; the error message",
			Evidence: []string{"parser.go exists"}},
	}}}
	s.Run = notMet
	body = s.Markdown()
	want = "### Goal: not met (the judge's verdict after iteration 3)\n\n> a CSV parser\n\nEvidence the judge named:\n\n- parser.go exists\n\n" +
		"Still missing:\n\n- tests for empty input\n- the error message\n\n### Iterations"
	if !strings.Contains(body, want) {
		t.Errorf("the body lacks\n%s\nin\n%s", want, body)
	}
	if got := s.Text(); !strings.Contains(got, "Goal: not met (the judge, after iteration 3): tests for empty input; the error message\n") {
		t.Errorf("the terminal's summary:\n%s", got)
	}

	s.Run = &history.Run{Name: "g", State: &state.State{Goal: "g", Verdicts: []state.Verdict{{Iteration: 1, Reason: "no JSON"}}}}
	if body = s.Markdown(); !strings.Contains(body, "### Goal: not met (the judge's verdict after iteration 1)\n\n> g\n\nNot met: no JSON.\n\n") {
		t.Errorf("a verdict the judge did not give:\n%s", body)
	}
	s.Run = &history.Run{Name: "g", State: &state.State{}}
	if body = s.Markdown(); strings.Contains(body, "Goal") {
		t.Errorf("a loop without a goal:\n%s", body)
	}
}
