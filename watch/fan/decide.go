package fan

import (
	"fmt"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
)

// The fan's decisions, on its record alone: the Runner does the git and
// tmux around them, the simulation (sim_test.go) drives them as they are.

// restartNote is the note of a loop started again on a task whose loop the
// fan lost while it was down.
const restartNote = "The fan was restarted: go on with this task where the work stands."

// FreeSlot is the window a task's next loop takes: its own when free, else
// the first free one; 0 when every one is taken. free[slot], from 1.
func FreeSlot(free []bool, want int) int {
	if want > 0 && want < len(free) && free[want] {
		return want
	}
	for slot := 1; slot < len(free); slot++ {
		if free[slot] {
			return slot
		}
	}
	return 0
}

// Windows are the fan's windows, free[slot] from 1: --max of them, and
// beyond those the windows where loops of a run with a larger --max work
// on (not free: a loop taken up there keeps its own).
func (s *State) Windows() []bool {
	n := s.Max
	for _, t := range s.Tasks {
		if t.State == Working && t.Slot > n {
			n = t.Slot
		}
	}
	free := make([]bool, n+1)
	for i := 1; i <= s.Max; i++ {
		free[i] = true
	}
	return free
}

// TakeUp is a fan started again: each task held at work goes on in its
// loop when follow takes that loop up, else it is reopened for a new
// loop, in the plan's order, which it returns.
func (s *State) TakeUp(follow func(*Task) bool) []*Task {
	var lost []*Task
	for i := range s.Tasks {
		if t := &s.Tasks[i]; t.State == Working && !follow(t) {
			s.Reopen(t)
			lost = append(lost, t)
		}
	}
	return lost
}

// Begin records a loop started on task t in slot, with the note for its
// first prompt and the person's notes (the fan's sticky ones, the once
// ones waiting); with no slot free the task waits, open, its note kept for
// the loop that takes it next.
func (s *State) Begin(t *Task, slot int, note string) bool {
	if slot == 0 {
		t.State, t.Note = Open, note
		return false
	}
	t.Slot, t.State, t.Tries, t.Note = slot, Working, t.Tries+1, note
	t.Loop = loopName(s.Name, t.ID, t.Tries)
	t.Notes = s.startNotes(t)
	return true
}

// Skip records a task its loop did not get done, and why.
func (s *State) Skip(t *Task, why string) {
	t.State, t.Why, t.Note = Skipped, why, ""
	s.Queue = remove(s.Queue, t.ID)
}

// End is how a task's loop ended, as the Runner found it.
type End struct {
	Code     int  // its watcher's exit status: 0 its task done
	Lost     bool // its watcher died (kill -9) with the loop at work in its pane
	Closed   bool // its pane was closed under it
	Spent    bool // it skipped its task after the task's tries (--task-attempts)
	Followed bool // the fan tried to follow it on where it is, and could not
}

// What becomes of a task whose loop ended (LoopEnded): besides Skipped
// and Open (a new loop takes it).
const (
	Offer  = "offer"  // its work goes to the queue
	Follow = "follow" // its loop goes on where it is: taken up in its window
)

// revivals is how many times in a row a loop's lost watcher is taken up
// before the task goes to a new loop instead.
const revivals = 3

// LoopEnded records the end of task t's loop and says what the fan does:
// offer its work; follow the loop on (its watcher lost, or paused); or,
// the loop failed, reopen the task for a new loop, or skip it once its
// loops failed attempts times. A lost watcher is no failed try.
func (s *State) LoopEnded(t *Task, e End, attempts int) string {
	switch {
	case e.Code == 0:
		t.Revived = 0
		return Offer
	case e.Lost && !e.Followed && t.Revived < revivals:
		t.Revived++
		return Follow
	case !e.Lost && !e.Closed && !e.Followed && (e.Code == contract.ExitInterrupted || e.Code == contract.ExitFailed):
		return Follow // left paused, or stopped: followed until it ends
	case e.Lost: // it cannot be taken up: a new loop goes on where the work stands
		t.State, t.Revived = Open, 0
		t.Why = fmt.Sprintf("the watcher of its loop %s was lost and cannot be taken up", t.Loop)
		t.Note = "The watcher of the last loop on this task was lost: go on with the task where the work stands."
		return Open
	}
	t.Fails++
	why := fmt.Sprintf("its loop %s ended with exit %d", t.Loop, e.Code)
	if e.Closed {
		why = fmt.Sprintf("the pane of its loop %s was closed", t.Loop)
	}
	if e.Spent {
		t.Fails = max(t.Fails, attempts) // its loop gave the task all its tries
	}
	if t.Fails >= attempts {
		if t.Fails > 1 {
			why += fmt.Sprintf(" (%d loops on it failed)", t.Fails)
		}
		s.Skip(t, why)
		return Skipped
	}
	t.State, t.Why, t.Revived = Open, why, 0
	t.Note = fmt.Sprintf("The last loop on this task stopped short: %s. Go on with the task where the work stands.", why)
	return Open
}

// StartFailed records a loop that could not be started on task t: a
// failed try, the task skipped once its loops failed attempts times.
func (s *State) StartFailed(t *Task, err error, attempts int) string {
	t.Fails++
	if t.Fails >= attempts {
		s.Skip(t, err.Error())
		return Skipped
	}
	t.State, t.Why = Open, err.Error()
	return Open
}

// Offer puts task t's work, commit, in the queue.
func (s *State) Offer(t *Task, commit string) {
	t.State, t.Commit = Queued, commit
	if !containsID(s.Queue, t.ID) {
		s.Queue = append(s.Queue, t.ID)
	}
}

// Reopen gives a task whose loop the fan lost back to the next loop, its
// note and the restart's for that loop's first prompt.
func (s *State) Reopen(t *Task) {
	note := restartNote
	if t.Note != "" { // the note its loop was to start with
		note = t.Note + "\n\n" + note
	}
	t.State, t.Note = Open, note
}

// Try is what a landing try of a task found: the candidate (the branch's
// tip with the task's work) or why none was made, and the checks run on it.
type Try struct {
	Cand      string   // the candidate commit
	Err       error    // making it failed
	Conflicts []string // the files the work could not be applied to
	Failed    string   // the check that failed on the candidate
	Output    string   // that check's output's end
}

// Verdict counts a landing try of task t and says why it does not land,
// "" when the branch may advance to the candidate: made with no conflict,
// every check passed.
func (s *State) Verdict(t *Task, try Try) string {
	t.Merges++
	switch {
	case try.Err != nil:
		return fmt.Sprintf("Landing task %s failed: %v", t.ID, try.Err)
	case len(try.Conflicts) > 0:
		return fmt.Sprintf("Your work on task %s conflicts with work landed since on %s, in: %s. Those files now hold the conflict marked (<<<<<<< ======= >>>>>>>): keep both changes, remove the markers, check, and tick the task again.",
			t.ID, s.Into, strings.Join(try.Conflicts, ", "))
	case try.Failed != "":
		return fmt.Sprintf("Your work on task %s, put on the tip of %s, fails the check %s:\n\n%s\n\nPut it right and tick the task again.", t.ID, s.Into, try.Failed, try.Output)
	case try.Cand == "":
		return fmt.Sprintf("Landing task %s failed: no candidate was made", t.ID)
	}
	return ""
}

// Settle records the end of a landing try of task t: landed as cand (why
// ""), sent back to a loop with why, or, its --merge-attempts spent,
// waiting for review. It returns which.
func (s *State) Settle(t *Task, why, cand string, attempts int) string {
	s.Queue = remove(s.Queue, t.ID)
	verdict := next(why, t.Merges, attempts)
	switch verdict {
	case Landed:
		t.State, t.Landed, t.Why = Landed, cand, ""
	case NeedsReview:
		t.State, t.Landed, t.Why = NeedsReview, "", why
	default:
		t.Landed = ""
	}
	return verdict
}

// SentBackTo records the branch's tip brought into the worktree of task t,
// sent back: its next loop's work is measured from there.
func (s *State) SentBackTo(t *Task, tip string) { t.Base = tip }

// Finish records, as the fan ends, why each task still open did not
// start: a task it waits for did not land.
func (s *State) Finish(p *plan.Plan) {
	for i := range s.Tasks {
		t := &s.Tasks[i]
		pt := p.Task(t.ID)
		if t.State != Open || pt == nil {
			continue
		}
		var waits []string
		for _, id := range pt.DependsOn {
			if d := s.Task(id); d != nil && d.State != Landed {
				waits = append(waits, fmt.Sprintf("%s (%s)", id, d.State))
			}
		}
		if len(waits) > 0 {
			t.Why = "it waits for task " + strings.Join(waits, ", ") + ", which did not land"
		}
	}
}

// next is what becomes of a task after a landing try: landed, sent back
// to a loop, or, its tries spent, waiting for review.
func next(why string, merges, attempts int) string {
	switch {
	case why == "":
		return Landed
	case merges >= attempts:
		return NeedsReview
	}
	return SentBack
}

func containsID(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
