package report

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// An iteration interrupted before its agent wrote a turn has a receipt that
// reports nothing: the loop's cost stays known, and the header, the
// timeline and the table say the same.
func TestAnInterruptedIterationLeavesTheCostKnownAndTheReportAgrees(t *testing.T) {
	root := recordedRun(t, "cut", 3, 1)
	store := &state.Store{Dir: filepath.Join(root, "cut")}
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.Local)
	_ = store.Log(at, "START", "iteration 4/13")
	_ = store.Log(at.Add(time.Minute), "DONE", "loop complete after 4 iterations reason=stopped")
	if err := receipt.Append(store.Path(state.ReceiptsFile), receipt.Receipt{Iteration: 4, Agent: "claude", Started: at, Ended: at.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	run, page := pageOf(t, root, "cut")
	total := run.Total()
	if total.CostUSD == nil {
		t.Fatal("the total's cost is unknown")
	}
	sum := receipt.Dollars(*total.CostUSD)
	if strings.Contains(page, "cost unknown") || !strings.Contains(page, ", "+sum) {
		t.Errorf("the header does not say the total %s", sum)
	}
	if !strings.Contains(page, "cost so far: "+sum) {
		t.Errorf("the timeline does not say the cost so far is %s", sum)
	}
	row := regexp.MustCompile(`(?s)<tr id="it-4".*?</tr>`).FindString(page)
	if !strings.Contains(row, "<td>"+sum+"</td>") {
		t.Errorf("the table's last row does not carry the cost so far %s:\n%s", sum, row)
	}
}
