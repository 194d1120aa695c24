package report

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// A goal loop's page puts the judge's verdicts on the timeline, under the
// iterations they followed, and lists them with the goal: each one's
// iteration, met or not, what was missing or why not, and its evidence.
func TestAReportOfAGoalLoopPutsTheVerdictsOnTheTimeline(t *testing.T) {
	root := recordedRun(t, "goal", 3, 1)
	store := &state.Store{Dir: filepath.Join(root, "goal")}
	st, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	st.Goal = "a CSV parser <with> tests\n"
	st.Verdicts = []state.Verdict{
		{Iteration: 1, Missing: []string{"tests for empty input", "the error message"}, Reason: "tests for empty input; the error message"},
		{Iteration: 2, Reason: "no JSON"},
		{Iteration: 3, Met: true, Evidence: []string{"parser_test.go covers empty input", "go test passed"}},
	}
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	_ = store.Log(time.Now(), "JUDGE", "iteration 3 met")
	_, page := pageOf(t, root, "goal")
	for _, want := range []string{
		`<text x="2" y="185">judge</text>`,
		`<a href="#verdict-1"><rect class="notmet"`, `<title>iteration 1: goal not met: tests for empty input; the error message</title>`,
		`<a href="#verdict-2"><rect class="notmet"`, `<title>iteration 2: goal not met: no JSON</title>`,
		`<a href="#verdict-3"><rect class="met"`, `<title>iteration 3: goal met</title>`,
		"checks 2/2, goal met", // the bar's tooltip too
		"judge: goal met", "judge: not met",
		`<dt>judge</dt><dd><a href="#goal">goal met</a> after iteration 3 (3 verdicts)</dd>`,
		`<section id="goal">`, `<blockquote class="goal">a CSV parser &lt;with&gt; tests</blockquote>`,
		`<tr id="verdict-1" class="notmet"><td><a href="#it-1">1</a></td><td>not met</td><td><ul><li>tests for empty input</li><li>the error message</li></ul></td><td>-</td></tr>`,
		`<tr id="verdict-2" class="notmet"><td><a href="#it-2">2</a></td><td>not met</td><td>no JSON</td><td>-</td></tr>`,
		`<tr id="verdict-3" class="met"><td><a href="#it-3">3</a></td><td>met</td><td>-</td><td><ul><li>parser_test.go covers empty input</li><li>go test passed</li></ul></td></tr>`,
		"[JUDGE] iteration 3 met",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// A run without a goal has no judge's row, no goal section, and its
// timeline is drawn as before.
func TestAReportWithoutAGoalHasNoJudgesRow(t *testing.T) {
	_, page := pageOf(t, recordedRun(t, "plain", 2, 1), "plain")
	for _, never := range []string{`id="goal"`, ">judge<", "verdict-", "judge: goal met"} {
		if strings.Contains(page, never) {
			t.Errorf("the page has %q", never)
		}
	}
	if !strings.Contains(page, `viewBox="0 0 1000 314"`) {
		t.Errorf("the timeline's size changed without a judge: %s", page[strings.Index(page, "<svg"):][:120])
	}
}
