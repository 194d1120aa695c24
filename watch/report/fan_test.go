package report

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// A fan's page links each loop's own page by a relative address, escaped,
// and holds what the plan and the queue said as text, never as markup.
func TestAFansPageLinksEachLoopsPageAndEscapesWhatItQuotes(t *testing.T) {
	tasks := []fan.Task{
		{ID: "1", Title: "Parse <script>", State: fan.Landed, Landed: "0123456789abcdef", Merges: 1, Tries: 1},
		{ID: "2", Title: "Add the command", State: fan.NeedsReview, Branch: "ralph/fan-web-2", Merges: 2, Why: "conflict in <a.go>\nmore"},
	}
	s := &fan.State{Name: "web", Plan: "PLAN.md", Into: "ralph/fan-web", Base: "abcdef0123456789", Max: 2, Tasks: tasks}
	run := &history.Run{Name: "fan-web-1", State: &state.State{Status: "stopped"}}
	var b strings.Builder
	if _, err := WriteFan(&b, Fan{State: s, Status: "ended", Now: time.Unix(0, 0).UTC(),
		Works:   []fan.Work{{Task: tasks[0], Runs: []*history.Run{run}, Iterations: 2, Verdict: "done"}, {Task: tasks[1]}},
		Events:  []fan.Event{{At: "2026-01-01T00:00:00Z", Task: "2", Event: "needs-review", Why: "conflict in <a.go>"}},
		Reports: map[string]string{"fan-web-1": "../../fan web 1/report.html"}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<tr id="task-1" class="task-landed"><td>1</td><td>Parse &lt;script&gt;</td><td>landed</td><td>done</td><td><a href="../../fan%20web%201/report.html"><code>fan-web-1</code></a></td><td>2</td>`,
		"<code>0123456789</code>",
		`<tr id="task-2" class="task-needs-review">`, "<summary>conflict in &lt;a.go&gt;</summary><pre>conflict in &lt;a.go&gt;\nmore</pre>",
		"<td>needs-review</td><td><code>-</code></td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<script") {
		t.Errorf("the page has a script")
	}
}
