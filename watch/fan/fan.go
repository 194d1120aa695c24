// Package fan runs several loops on one plan (ralph-watch fan): each loop
// works one task in its own git worktree and branch, a task claimed under
// the fan's lock so that no two loops hold it, and a merge queue lands the
// finished tasks one at a time onto the fan's branch. Its state is a folder
// (fan.json, queue.jsonl) that a restarted fan takes up: no task is lost or
// landed twice.
package fan

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Where a task stands in the fan.
const (
	Open        = "open"         // nobody holds it
	Working     = "working"      // a loop works on it
	Queued      = "queued"       // done by its loop, waiting to land
	Landed      = "landed"       // on the fan's branch
	NeedsReview = "needs-review" // it did not land after --merge-attempts
	Skipped     = "skipped"      // its loop did not get it done
)

// Task is what the fan knows of one task of the plan.
type Task struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	State    string `json:"state"`
	Loop     string `json:"loop,omitempty"`     // the loop that works it now or last did
	Slot     int    `json:"slot,omitempty"`     // the window it works in (1-based)
	Branch   string `json:"branch,omitempty"`   // its branch, ralph/fan-NAME/ID
	Worktree string `json:"worktree,omitempty"` // its worktree
	Base     string `json:"base,omitempty"`     // the commit its work is measured from
	Commit   string `json:"commit,omitempty"`   // its work as offered to the queue
	Tries    int    `json:"tries,omitempty"`    // loops started on it
	Fails    int    `json:"fails,omitempty"`    // loops on it that failed (a lost watcher is no failure)
	Revived  int    `json:"revived,omitempty"`  // its loop's lost watchers taken up in a row
	Merges   int    `json:"merges,omitempty"`   // landings tried
	Landed   string `json:"landed,omitempty"`   // the fan branch's commit that landed it
	Why      string `json:"why,omitempty"`      // why it was sent back, skipped or needs review
	Note     string `json:"note,omitempty"`     // for its next loop's first prompt, kept until that loop starts
	// The person's notes for its loop that starts (see steer.go), kept until it started.
	Notes []state.Note `json:"notes,omitempty"`
}

// State is the fan's record, fan.json.
type State struct {
	Name  string   `json:"name"`
	Repo  string   `json:"repo"`          // the main working tree
	Plan  string   `json:"plan"`          // the plan, relative to Repo
	Into  string   `json:"into"`          // the branch tasks land on
	Base  string   `json:"base"`          // the commit the fan started from
	Max   int      `json:"max"`           // loops at once
	Tasks []Task   `json:"tasks"`         // in the plan's order
	Queue []string `json:"queue"`         // ids offered to the queue, first first
	PID   int      `json:"pid,omitempty"` // the fan's process while it runs
	Ended bool     `json:"ended,omitempty"`

	// How restore starts the fan again after its tmux server went away.
	Socket  string   `json:"socket,omitempty"`  // the tmux server its windows are on
	Dir     string   `json:"dir,omitempty"`     // where it was started
	Args    []string `json:"args,omitempty"`    // ralph-watch's arguments that start it again
	Stopped bool     `json:"stopped,omitempty"` // by the person (stop FAN): restore leaves it be

	// What the person steered (note, set given the fan's name; steer.go):
	// the sticky notes for every loop it starts and the once ones for the
	// next, the once ones its loops at work were given, the limits set (for
	// the loops it starts, over its flags), its loops' limits as its flags
	// gave them, and the requests taken whose files may still be there.
	Notes   []state.Note  `json:"notes,omitempty"`
	Given   []state.Note  `json:"given,omitempty"`
	Set     *state.Limits `json:"set,omitempty"`
	Flags   state.Limits  `json:"flags"`
	Steered []string      `json:"steered,omitempty"`
}

// Dir is the fan's folder under the loops' state root.
func Dir(root, name string) string { return filepath.Join(root, "fans", name) }

// Task is the task of that id, or nil.
func (s *State) Task(id string) *Task {
	for i := range s.Tasks {
		if s.Tasks[i].ID == id {
			return &s.Tasks[i]
		}
	}
	return nil
}

// Counts is how many tasks there are, how many landed, how many wait for review.
func (s *State) Counts() (total, landed, review, working int) {
	for _, t := range s.Tasks {
		switch t.State {
		case Landed:
			landed++
		case NeedsReview:
			review++
		case Working:
			working++
		}
	}
	return len(s.Tasks), landed, review, working
}

// Line is the fan on the status line, short enough for its cells (24):
// "⟳ 3 loops · 5/12 landed" while it runs; once it ended "✓ 12/12 landed"
// (every task landed) or "■ 9/12 landed · 2 review".
func (s *State) Line() string {
	total, landed, review, working := s.Counts()
	if s.Ended {
		line := fmt.Sprintf("%s %d/%d landed", map[bool]string{true: "✓", false: "■"}[landed == total], landed, total)
		if review > 0 {
			line += fmt.Sprintf(" · %d review", review)
		}
		return line
	}
	loops := "loops"
	if working == 1 {
		loops = "loop"
	}
	return fmt.Sprintf("⟳ %d %s · %d/%d landed", working, loops, landed, total)
}

// Sync brings the record up to the plan: a new task is open; a task the
// plan has done (ticked on the fan's branch) and the fan never worked is
// landed already.
func (s *State) Sync(p *plan.Plan) {
	known := make(map[string]Task, len(s.Tasks))
	for _, t := range s.Tasks {
		known[t.ID] = t
	}
	tasks := make([]Task, 0, len(p.Tasks))
	for _, pt := range p.Tasks {
		t, ok := known[pt.ID]
		if !ok {
			t = Task{ID: pt.ID, State: Open}
		}
		t.Title = pt.Title
		if pt.State == plan.Done && t.State == Open {
			t.State = Landed
		}
		tasks = append(tasks, t)
	}
	s.Tasks = tasks
}

// Next is the task a free loop takes: the first open one (the plan's
// Next order) whose dependencies landed and whose touches meet no held
// task's; nil when none can start now.
func (s *State) Next(p *plan.Plan) *plan.Task {
	var held [][]string
	for _, t := range s.Tasks {
		if t.State == Working || t.State == Queued {
			if pt := p.Task(t.ID); pt != nil {
				held = append(held, pt.Touches)
			}
		}
	}
	free := func(id string) bool {
		t, pt := s.Task(id), p.Task(id)
		if t == nil || pt == nil || t.State != Open {
			return false
		}
		for _, h := range held {
			if Overlap(pt.Touches, h) {
				return false
			}
		}
		return true
	}
	landed := *p
	landed.Tasks = make([]plan.Task, len(p.Tasks))
	for i, pt := range p.Tasks { // a dependency counts once it landed, not when a loop ticked it
		if t := s.Task(pt.ID); t != nil {
			pt.State = plan.Open
			if t.State == Landed {
				pt.State = plan.Done
			}
		}
		landed.Tasks[i] = pt
	}
	pt := landed.Next(func(id string) bool { return !free(id) })
	if pt == nil {
		return nil
	}
	return p.Task(pt.ID)
}

// Overlap reports whether two tasks' touches meet: a path one glob
// matches could match the other. A task that names none meets none.
func Overlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if globsMeet(strings.Split(path.Clean(x), "/"), strings.Split(path.Clean(y), "/")) {
				return true
			}
		}
	}
	return false
}

// globsMeet compares two globs a path segment at a time: "**" meets
// whatever follows; two segments meet when equal or when one matches the
// other.
func globsMeet(a, b []string) bool {
	for len(a) > 0 && len(b) > 0 {
		if a[0] == "**" || b[0] == "**" {
			return true
		}
		if !segmentsMeet(a[0], b[0]) {
			return false
		}
		a, b = a[1:], b[1:]
	}
	return len(a) == len(b) || len(a) > 0 && a[0] == "**" || len(b) > 0 && b[0] == "**"
}

func segmentsMeet(a, b string) bool {
	if a == b {
		return true
	}
	if ok, _ := path.Match(a, b); ok {
		return true
	}
	ok, _ := path.Match(b, a)
	return ok || strings.ContainsAny(a, "*?[") && strings.ContainsAny(b, "*?[") // two wildcards: they may meet
}

// ErrNoFan is a fan with no folder.
var ErrNoFan = errors.New("no such fan")

// Load reads the fan's record.
func Load(dir string) (*State, error) {
	data, err := os.ReadFile(filepath.Join(dir, "fan.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoFan, filepath.Base(dir))
	}
	if err != nil {
		return nil, fmt.Errorf("read fan: %w", err)
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("read fan %s: %w", dir, err)
	}
	return &s, nil
}

// Save writes the fan's record whole or not at all.
func (s *State) Save(dir string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".fan.json.tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write fan: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, "fan.json"))
}

// Event is a line of queue.jsonl: what the queue did with a task.
type Event struct {
	At     string `json:"at"`
	Task   string `json:"task"`
	Event  string `json:"event"` // offered, landed, sent-back, needs-review, skipped
	Commit string `json:"commit,omitempty"`
	Why    string `json:"why,omitempty"`
}

// Log appends an event to the queue's history.
func Log(dir string, e Event) error {
	e.At = time.Now().UTC().Format(time.RFC3339)
	data, _ := json.Marshal(e)
	f, err := os.OpenFile(filepath.Join(dir, "queue.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("write queue: %w", err)
	}
	defer f.Close()
	_, err = f.Write(append(data, '\n'))
	return err
}

// Logged reports whether the queue's history has e (its task, event and commit).
func Logged(dir string, e Event) bool {
	data, err := os.ReadFile(filepath.Join(dir, "queue.jsonl"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		var got Event
		if json.Unmarshal([]byte(line), &got) == nil && got.Task == e.Task && got.Event == e.Event && got.Commit == e.Commit {
			return true
		}
	}
	return false
}

// Locked runs fn under the fan's claim lock: a task is claimed, offered
// and landed in it, so no two loops ever take one task.
func Locked(dir string, fn func() error) error {
	f, err := os.OpenFile(filepath.Join(dir, "claim.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open claim lock: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock claims: %w", err)
	}
	defer func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }()
	return fn()
}
