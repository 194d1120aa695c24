package report

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func TestAReportOfALoopWithAPlanHasARowPerTask(t *testing.T) {
	root := recordedRun(t, "plan", 3, 1)
	store := &state.Store{Dir: filepath.Join(root, "plan")}
	st, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	st.Tasks = &state.Tasks{File: "/work/PLAN.md", Total: 2, Done: 1, Skipped: 1, Items: []state.TaskItem{
		{ID: "1", Title: "Add <the> parser", State: "done", Attempts: 2, Iterations: []int{1, 2}},
		{ID: "2", Title: "Write the docs", State: "skipped", Attempts: 1, Iterations: []int{3},
			Verdicts: []state.TaskVerdict{{Iteration: 3, Verdict: "skipped", Reason: "not done after 1 attempts"}}},
	}}
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	_ = store.Log(time.Now(), "COMMIT", "iteration 2 committed")
	_, page := pageOf(t, root, "plan")
	for _, want := range []string{
		"<h2>Tasks</h2>", "<p>1 of 2 done, 0 open, 1 skipped: <code>/work/PLAN.md</code></p>",
		`<tr class="task-done"><td>1</td><td>Add &lt;the&gt; parser</td><td>done</td><td>2</td><td><a href="#it-1">1</a> <a href="#it-2">2</a></td>`,
		`<td>1</td></tr>`, // one commit
		`<tr class="task-skipped"><td>2</td><td>Write the docs</td><td><span title="not done after 1 attempts">skipped</span></td><td>1</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
