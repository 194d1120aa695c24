package fan

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Names are the fans under the loops' state root.
func Names(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, "fans"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(root, "fans", e.Name(), "fan.json")); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// Loops are the names of the loops started on t, one per try, first first.
func (s *State) Loops(t Task) []string {
	var names []string
	for try := 1; try <= t.Tries; try++ {
		names = append(names, loopName(s.Name, t.ID, try))
	}
	return names
}

// Events are the queue's history, queue.jsonl, oldest first; a line that
// cannot be read is left out.
func Events(dir string) ([]Event, error) {
	data, err := os.ReadFile(filepath.Join(dir, "queue.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var events []Event
	for _, line := range strings.Split(string(data), "\n") {
		var e Event
		if json.Unmarshal([]byte(line), &e) == nil && e.Task != "" {
			events = append(events, e)
		}
	}
	return events, nil
}

// Work is a task as the fan and the loops that worked it recorded it.
type Work struct {
	Task
	Runs       []*history.Run // its loops' records, first try first; a loop whose folder is gone is left out
	Iterations int            // the iterations its loops spent on it
	Attempts   int            // its implement and fix iterations, as its loops counted them
	Verdict    string         // its last loop's verdict on it (done, skipped, approved…); "" when none gave one
	Reason     string         // why, when that loop said
	Spent      receipt.Receipt
}

// Works reads the records of the fan's loops under root: what each task
// took, one Work a task in the plan's order.
func (s *State) Works(root string) []Work {
	works := make([]Work, 0, len(s.Tasks))
	for _, t := range s.Tasks {
		w := Work{Task: t}
		var receipts []receipt.Receipt
		for _, name := range s.Loops(t) {
			if !state.Exists(root, name) {
				continue
			}
			run, err := history.Load(root, name)
			if err != nil {
				continue
			}
			w.Runs = append(w.Runs, run)
			receipts = append(receipts, run.Receipts...)
			item := taskItem(run, t.ID)
			if item == nil {
				w.Iterations += len(run.Iterations)
				continue
			}
			w.Iterations += len(item.Iterations)
			w.Attempts += item.Attempts
			if item.State != "open" && item.State != "" {
				w.Verdict, w.Reason = item.State, ""
				if n := len(item.Verdicts); n > 0 {
					w.Reason = item.Verdicts[n-1].Reason
				}
			}
		}
		w.Spent = receipt.Total(receipts)
		works = append(works, w)
	}
	return works
}

// taskItem is the loop's record of task id, nil when it has none.
func taskItem(run *history.Run, id string) *state.TaskItem {
	if run.State.Tasks == nil {
		return nil
	}
	for i := range run.State.Tasks.Items {
		if run.State.Tasks.Items[i].ID == id {
			return &run.State.Tasks.Items[i]
		}
	}
	return nil
}

// Spent is what all the fan's loops spent.
func Spent(works []Work) receipt.Receipt {
	totals := make([]receipt.Receipt, 0, len(works))
	for _, w := range works {
		totals = append(totals, w.Spent)
	}
	return receipt.Total(totals)
}
