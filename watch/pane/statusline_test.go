package pane

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// The status line shows what the loop's record says (the facts it is
// given: the iteration, the limit, the tasks, the cost, the error) with its
// own words (reason, note, failures), each where its status has room for
// it; the reason it gives the record is the one it shows.
func TestALinesStatusShowsTheRecordsFactsWithItsOwnWords(t *testing.T) {
	t.Parallel()
	facts := Facts{Now: time.Unix(1e9, 0), Iteration: 3, Max: 9, Cost: "58k tok", Tasks: "2/5", Error: "the agent crashed"}
	for _, tc := range []struct {
		status                     contract.Status
		reason, note, failures     string
		wantReason, wantRecorded   string
		wantStatusHas, wantEndedAt string
	}{
		{status: contract.StatusRunning, reason: "left from before", wantReason: "", wantRecorded: ""},
		{status: contract.StatusWaiting, note: "waiting for limit reset (15:04)", wantReason: "limit reset (15:04)", wantRecorded: "limit reset (15:04)", wantStatusHas: "limit reset (15:04)"},
		{status: contract.StatusPaused, reason: "the person paused it", note: "a note", wantReason: "the person paused it", wantRecorded: "the person paused it", wantStatusHas: "a note"},
		{status: contract.StatusNeedsInput, reason: "left from before", wantReason: "an answer in the pane (the agent is asking a question)", wantRecorded: "an answer in the pane (the agent is asking a question)"},
		{status: contract.StatusFailed, reason: "consecutive_failures", failures: "3 failed", wantReason: "consecutive_failures: the agent crashed", wantRecorded: "consecutive_failures", wantStatusHas: "3 failed", wantEndedAt: "1000000000"},
		{status: contract.StatusLimit, reason: "max_iterations", failures: "1 failed", wantReason: "max_iterations", wantRecorded: "max_iterations", wantStatusHas: "1 failed", wantEndedAt: "1000000000"},
	} {
		t.Run(tc.status.String(), func(t *testing.T) {
			t.Parallel()
			client := tmuxfake.New(nil)
			id, err := client.NewWindow(tmux.NewWindowRequest{Session: "s"})
			if err != nil {
				t.Fatal(err)
			}
			line := NewLine(Given{Tmux: client, Warnf: t.Logf}, LineSettings{Name: "loop", Pane: id})
			line.SetReason(tc.reason)
			line.SetNote(tc.note)
			line.SetFailures(tc.failures)
			if got := line.Reason(tc.status); got != tc.wantRecorded {
				t.Errorf("reason recorded %q, want %q", got, tc.wantRecorded)
			}
			line.Show(tc.status, facts)
			option := func(name string) string {
				v, _, _ := client.PaneOption(id, name)
				return v
			}
			for name, want := range map[string]string{
				contract.OptionName: "loop", contract.OptionState: tc.status.String(), contract.OptionReason: tc.wantReason,
				contract.OptionTasks: "2/5", contract.OptionCost: "58k tok", contract.OptionMax: "9", contract.OptionEnded: tc.wantEndedAt,
			} {
				if got := option(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if status := option(contract.OptionStatus); tc.wantStatusHas != "" && !strings.Contains(status, tc.wantStatusHas) {
				t.Errorf("%s = %q, want it to say %q", contract.OptionStatus, status, tc.wantStatusHas)
			}
			if line.Showing() != tc.status {
				t.Errorf("showing %v, want %v", line.Showing(), tc.status)
			}
		})
	}
}

// A live status is shown again once the limit to show changes; an ended
// one keeps its end.
func TestALineShowsALiveStatusAgainWhenItsLimitChanges(t *testing.T) {
	t.Parallel()
	client := tmuxfake.New(nil)
	id, err := client.NewWindow(tmux.NewWindowRequest{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	line := NewLine(Given{Tmux: client, Warnf: t.Logf}, LineSettings{Name: "loop", Pane: id})
	line.Show(contract.StatusRunning, Facts{Iteration: 1, Max: 5})
	if _, again := line.Again(5); again {
		t.Error("the same limit shown again")
	}
	if status, again := line.Again(8); !again || status != contract.StatusRunning {
		t.Errorf("a raised limit: again %v (%v), want running shown again", again, status)
	}
	line.Show(contract.StatusDone, Facts{Iteration: 1, Max: 5})
	if _, again := line.Again(8); again {
		t.Error("an ended loop's status shown again for a new limit")
	}
}
