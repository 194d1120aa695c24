package fan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/plan"
)

// Runner is a fan at work: it claims tasks for free loops, starts them,
// offers what they finish to the queue and lands it, one at a time.
type Runner struct {
	Dir           string   // the fan's folder
	State         *State   // saved at every step
	Checks        []string // run on each candidate before it lands
	MergeAttempts int      // landings a task gets before it needs review
	TaskAttempts  int      // failed loops a task gets before it is skipped
	Out           io.Writer

	// Start starts a loop on task t in its slot's window and worktree,
	// with a note for its first prompt (why it was sent back), the
	// person's notes (t.Notes) and the fan's limits (State.Set); the
	// channel gets the loop's exit status once it ends. base is the commit
	// the loop measures its first iteration's change from, the work its
	// worktree holds for the task counted (a lost loop's); "" from its own
	// start (a loop given the task sent back: its change is the fix).
	Start func(t Task, note, base string) (<-chan int, error)
	// Adopt takes up the loop a fan killed before had started on t: the
	// channel gets its exit status (0 done) once it ends; false when it
	// is gone unfinished and must start again.
	Adopt func(t Task) (<-chan int, bool)
	// Inspect tells how task t's loop ended with a non-zero exit status:
	// its watcher lost, its pane closed, its tries spent.
	Inspect func(t Task, code int) End
	// Shown is told the record each time it is saved (the status line).
	Shown func(s *State)
	// Gone reports whether the fan's tmux session went away (its server
	// killed, the machine going down): the fan then stops where it is.
	Gone func() bool
}

// ErrGone is a fan stopped because its tmux session went away: its record
// holds every task where it stood, for restore to take up.
var ErrGone = errors.New("its tmux session is gone")

type ended struct {
	id   string
	code int
}

// Run works the plan until no task can start and none is held; it returns
// the fan's record as it ended.
func (r *Runner) Run(ctx context.Context) error {
	s := r.State
	done := make(chan ended)
	running := 0
	free := s.Windows()
	r.steer()
	steering := time.NewTicker(250 * time.Millisecond) // the person's notes and limits reach the loops at work
	defer steering.Stop()
	start := func(t *Task, note string, sentBack bool) error {
		slot := FreeSlot(free, t.Slot)
		if slot == 0 { // every window taken (a fan taken up again): the task waits for the next free loop
			s.Begin(t, 0, note)
			return r.save()
		}
		if t.Worktree == "" {
			tip, err := Rev(s.Repo, "refs/heads/"+s.Into)
			if err != nil {
				return fmt.Errorf("read branch %s: %w", s.Into, err)
			}
			t.Worktree, t.Branch, t.Base = TaskWorktree(s.Repo, s.Name, t.ID), TaskBranch(s.Name, t.ID), tip
			if _, err := os.Stat(t.Worktree); err == nil { // an earlier fan's, kept for the person: this try starts afresh beside it
				suffix := fmt.Sprintf("-%d", t.Tries+1)
				t.Worktree, t.Branch = t.Worktree+suffix, t.Branch+suffix
			}
			if err := EnsureWorktree(s.Repo, t.Worktree, t.Branch, tip); err != nil {
				return fmt.Errorf("create the worktree of task %s: %w", t.ID, err)
			}
		}
		r.steer() // what the person asked until now is the new loop's
		s.Begin(t, slot, note)
		if err := r.save(); err != nil {
			return err
		}
		base := t.Base
		if sentBack {
			base = ""
		}
		ch, err := r.Start(*t, note, base)
		if err != nil && r.gone() {
			return ErrGone // the task stays held, its note kept: restore starts it
		}
		if err != nil {
			s.Lost(t, nil)
		}
		t.Note, t.Notes = "", nil
		if err != nil {
			verdict := s.StartFailed(t, err, r.attempts())
			_ = r.save()
			if verdict == Skipped {
				r.say("task %s skipped: %v", t.ID, err)
				_ = Log(r.Dir, Event{Task: t.ID, Event: "skipped", Why: t.Why})
			} else {
				r.say("task %s goes to a new loop: %v", t.ID, err)
			}
			return nil
		}
		free[slot] = false
		running++
		r.say("loop %s works task %s in window %d", t.Loop, t.ID, slot)
		go func(id string) { done <- ended{id, <-ch} }(t.ID)
		return nil
	}
	lost := s.TakeUp(func(t *Task) bool { // a fan taken up again: the loops it had started, in their windows
		ch, ok := r.adopt(*t)
		if !ok {
			s.Lost(t, Unsent(Root(r.Dir), t.Loop)) // the person's once-notes it did not carry go to the next loop
		}
		if ok {
			free[t.Slot] = false
			running++
			r.say("loop %s on task %s taken up", t.Loop, t.ID)
			go func(id string) { done <- ended{id, <-ch} }(t.ID)
		}
		return ok
	})
	for _, t := range lost { // then a new loop on each task whose loop is gone
		if err := start(t, t.Note, false); err != nil {
			return err
		}
	}
	for _, t := range s.Tasks { // and its queue
		if t.State == Queued {
			if err := r.land(ctx, t.ID, start); err != nil {
				return err
			}
		}
	}
	for {
		for running < s.Max {
			var claimed *Task
			if err := Locked(r.Dir, func() error {
				p, err := r.plan()
				if err != nil {
					return err
				}
				if pt := s.Next(p); pt != nil {
					claimed = s.Task(pt.ID)
					return start(claimed, claimed.Note, false)
				}
				return nil
			}); err != nil {
				return err
			}
			if claimed == nil {
				break
			}
		}
		if running == 0 {
			if p, err := r.plan(); err == nil {
				s.Finish(p)
			}
			s.Ended = true
			return r.save()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-steering.C:
			r.steer()
		case e := <-done:
			running--
			t := s.Task(e.id)
			free[t.Slot] = t.Slot <= s.Max // a window beyond --max (a run with more) is not given again
			if e.code != 0 && r.gone() {
				// its loop ended with the session: it is restore's to bring back
				return ErrGone
			}
			if !r.ended(t, e.code, func(ch <-chan int) {
				free[t.Slot] = false
				running++
				go func(id string) { done <- ended{id, <-ch} }(t.ID)
			}) {
				if err := r.save(); err != nil {
					return err
				}
				continue
			}
			commit, err := CommitWork(t.Worktree, s.Plan, fmt.Sprintf("Task %s: %s", t.ID, t.Title))
			if err != nil {
				t.State, t.Why = NeedsReview, fmt.Sprintf("commit its work: %v", err)
				_ = r.save()
				continue
			}
			s.Offer(t, commit)
			_ = Log(r.Dir, Event{Task: t.ID, Event: "offered", Commit: commit})
			if err := r.save(); err != nil {
				return err
			}
			if err := r.land(ctx, t.ID, start); err != nil {
				return err
			}
		}
	}
}

// steer takes the person's requests to the fan (steer.go).
func (r *Runner) steer() { TakeSteers(Root(r.Dir), r.Dir, r.State, r.save) }

// ended decides what becomes of task t whose loop ended with code, and
// reports whether its work goes to the queue; a loop followed on is given
// to follow.
func (r *Runner) ended(t *Task, code int, follow func(<-chan int)) bool {
	s := r.State
	e := End{Code: code}
	if code != 0 && r.Inspect != nil {
		e = r.Inspect(*t, code)
	}
	for {
		verdict := s.LoopEnded(t, e, r.attempts())
		if verdict != Follow {
			s.Unsent(Unsent(Root(r.Dir), t.Loop)) // the person's once-notes it did not carry go to the next loop
		}
		switch verdict {
		case Offer:
			return true
		case Follow:
			if e.Lost {
				r.say("loop %s on task %s lost its watcher: taken up in window %d", t.Loop, t.ID, t.Slot)
			}
			if ch, ok := r.adopt(*t); ok {
				follow(ch)
				return false
			}
			e.Followed = true
		case Skipped:
			r.say("task %s skipped: %s", t.ID, t.Why)
			_ = Log(r.Dir, Event{Task: t.ID, Event: "skipped", Why: t.Why})
			return false
		default:
			if e.Lost {
				r.say("task %s goes to a new loop: %s", t.ID, t.Why)
			} else {
				r.say("task %s goes to a new loop: %s (%d of %d tries failed)", t.ID, t.Why, t.Fails, r.attempts())
			}
			return false
		}
	}
}

func (r *Runner) attempts() int { return max(r.TaskAttempts, 1) }

func (r *Runner) gone() bool { return r.Gone != nil && r.Gone() }

func (r *Runner) adopt(t Task) (<-chan int, bool) {
	if r.Adopt == nil || t.Slot < 1 { // a loop in a window beyond --max (a fan started again with less) is followed too
		return nil, false
	}
	return r.Adopt(t)
}

// land tries to land task id: its work on the fan branch's tip, the
// checks, a fast-forward. What fails goes back to a loop on the task, or,
// after MergeAttempts, waits for review.
func (r *Runner) land(ctx context.Context, id string, start func(t *Task, note string, sentBack bool) error) error {
	s := r.State
	t := s.Task(id)
	queue := QueueWorktree(s)
	tip, err := Rev(s.Repo, "refs/heads/"+s.Into)
	if err != nil {
		return fmt.Errorf("read branch %s: %w", s.Into, err)
	}
	if err := EnsureWorktree(s.Repo, queue, "", tip); err != nil {
		return fmt.Errorf("create the queue's worktree: %w", err)
	}
	if t.Landed != "" && Contains(s.Repo, tip, t.Landed) { // landed by a fan killed before it said so
		s.Settle(t, "", t.Landed, r.MergeAttempts)
		if !Logged(r.Dir, Event{Task: t.ID, Event: "landed", Commit: t.Landed}) {
			_ = Log(r.Dir, Event{Task: t.ID, Event: "landed", Commit: t.Landed})
		}
		return r.save()
	}
	var try Try
	try.Cand, try.Conflicts, try.Err = Candidate(queue, tip, t.Base, t.Commit, s.Plan, t.ID, t.Title)
	if try.Err == nil && len(try.Conflicts) == 0 {
		try.Output, try.Failed = r.check(ctx, queue)
	}
	why := s.Verdict(t, try)
	cand := try.Cand
	if why == "" { // the record says it first: a fan killed after the advance finds it landed
		if t.Landed = cand; r.save() != nil {
			why = "Landing task " + t.ID + " failed: the fan's record cannot be written"
		} else if err := Advance(s.Repo, s.Into, cand, tip); err != nil {
			why = fmt.Sprintf("Landing task %s failed: %v", t.ID, err)
		}
	}
	verdict := s.Settle(t, why, cand, r.MergeAttempts)
	if verdict == Landed {
		r.say("task %s landed on %s (%s)", t.ID, s.Into, short(cand))
		_ = Log(r.Dir, Event{Task: t.ID, Event: "landed", Commit: cand})
		return r.save()
	}
	if verdict == NeedsReview {
		r.say("task %s needs review: it did not land after %d tries", t.ID, t.Merges)
		_ = Log(r.Dir, Event{Task: t.ID, Event: "needs-review", Why: why})
		return r.save()
	}
	r.say("task %s sent back to its loop: %s", t.ID, firstLine(why))
	_ = Log(r.Dir, Event{Task: t.ID, Event: SentBack, Why: why})
	if _, err := SendBack(t.Worktree, s.Plan, tip); err != nil {
		t.State, t.Why = NeedsReview, fmt.Sprintf("bring %s into its worktree: %v", s.Into, err)
		return r.save()
	}
	s.SentBackTo(t, tip)
	return start(t, why, true)
}

// SentBack is a task the queue gave back to a loop.
const SentBack = "sent-back"

// check runs the checks in dir; the first that fails and its output's end.
func (r *Runner) check(ctx context.Context, dir string) (out, failed string) {
	for _, c := range r.Checks {
		cmd := exec.CommandContext(ctx, "sh", "-c", c)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			if len(b) > 3000 {
				b = b[len(b)-3000:]
			}
			return strings.TrimSpace(string(b)), c
		}
	}
	return "", ""
}

// plan reads the plan as the fan's branch has it.
func (r *Runner) plan() (*plan.Plan, error) {
	s := r.State
	p, err := s.ReadPlan()
	if err != nil {
		return nil, err
	}
	s.Sync(p)
	return p, nil
}

// ReadPlan is the plan as the fan sees it: on its branch, where the queue ticks it.
func (s *State) ReadPlan() (*plan.Plan, error) {
	data, err := git(s.Repo, nil, "show", "refs/heads/"+s.Into+":"+s.Plan)
	if err != nil {
		return nil, fmt.Errorf("read the plan on %s: %w", s.Into, err)
	}
	p, err := plan.Parse(s.Plan, []byte(data+"\n"))
	if err != nil {
		return nil, fmt.Errorf("%s on %s %w", s.Plan, s.Into, err)
	}
	return p, nil
}

func (r *Runner) save() error {
	if r.Shown != nil {
		r.Shown(r.State)
	}
	return r.State.Save(r.Dir)
}

func (r *Runner) say(format string, args ...any) {
	fmt.Fprintf(r.Out, "[ralph] %s: %s\n", r.State.Name, fmt.Sprintf(format, args...))
}

// loopName is the loop on a task's try: fan-NAME-ID, then fan-NAME-ID-2, ….
func loopName(fan, id string, try int) string {
	name := "fan-" + fan + "-" + safe(id)
	if try > 1 {
		name += fmt.Sprintf("-%d", try)
	}
	return name
}

// safe is an id as a name and branch may hold it.
func safe(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, id)
}

// TaskBranch is the branch a task's loop works on.
func TaskBranch(fan, id string) string { return "ralph/" + loopName(fan, id, 1) }

// TaskWorktree is the worktree a task's loop works in.
func TaskWorktree(repo, fan, id string) string {
	return filepath.Join(repo, ".ralph", "worktrees", "fan-"+fan+"-"+safe(id))
}

func remove(ids []string, id string) []string {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

func short(commit string) string { return commit[:min(len(commit), 10)] }

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
