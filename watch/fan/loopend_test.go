package fan

import (
	"errors"
	"strings"
	"testing"
)

// What the fan does with a task once its loop ended: a lost watcher costs
// the task no try, a closed pane or a failed loop costs one, and the task
// is skipped only once its loops failed --task-attempts times.
func TestLoopEndedCountsOnlyRealFailuresTowardsTheTasksAttempts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fails     int
		revived   int
		end       End
		want      string
		wantFails int
		why       string // in the task's why
	}{
		{"done", 0, 0, End{Code: 0}, Offer, 0, ""},
		{"watcher killed", 0, 0, End{Code: -1, Lost: true}, Follow, 0, ""},
		{"watcher killed, two tries failed", 2, 0, End{Code: -1, Lost: true}, Follow, 2, ""},
		{"watcher killed, cannot be taken up", 2, 0, End{Code: -1, Lost: true, Followed: true}, Open, 2, "watcher of its loop fan-f-1 was lost"},
		{"watcher killed again and again", 0, revivals, End{Code: -1, Lost: true}, Open, 0, "watcher of its loop fan-f-1 was lost"},
		{"paused", 0, 0, End{Code: 130}, Follow, 0, ""},
		{"paused, then stopped", 0, 0, End{Code: 130, Followed: true}, Open, 1, "ended with exit 130"},
		{"pane closed", 0, 0, End{Code: 1, Closed: true}, Open, 1, "the pane of its loop fan-f-1 was closed"},
		{"pane closed, the last try", 2, 0, End{Code: 1, Closed: true}, Skipped, 3, "the pane of its loop fan-f-1 was closed (3 loops on it failed)"},
		{"failed", 0, 0, End{Code: 1, Followed: true}, Open, 1, "ended with exit 1"},
		{"its tries spent in the loop", 0, 0, End{Code: 3, Spent: true}, Skipped, 3, "ended with exit 3"},
		{"ran out of iterations", 0, 0, End{Code: 3}, Open, 1, "ended with exit 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &State{Name: "f", Tasks: []Task{{ID: "1", State: Working, Loop: "fan-f-1", Fails: tc.fails, Revived: tc.revived}}}
			task := &s.Tasks[0]
			if got := s.LoopEnded(task, tc.end, 3); got != tc.want {
				t.Errorf("LoopEnded = %q, want %q", got, tc.want)
			}
			if task.Fails != tc.wantFails || !strings.Contains(task.Why, tc.why) {
				t.Errorf("task %+v: want %d failed tries and why %q", task, tc.wantFails, tc.why)
			}
			if tc.want == Open && (task.State != Open || task.Note == "") {
				t.Errorf("a task for a new loop: %+v, want it open with a note for that loop", task)
			}
		})
	}
}

func TestALoopThatCannotStartIsAFailedTry(t *testing.T) {
	s := &State{Name: "f", Tasks: []Task{{ID: "1", State: Working}}}
	task := &s.Tasks[0]
	for i, want := range []string{Open, Open, Skipped} {
		if got := s.StartFailed(task, errors.New("start loop: no pane"), 3); got != want {
			t.Errorf("start %d failed: %q, want %q", i+1, got, want)
		}
	}
}
