package watch

import (
	"os"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/progress"
	"github.com/ralph-tmux/ralph.tmux/watch/record"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// The loop's side of the plan's progress (package progress): the plan
// decides and keeps its part of the record; the loop gives it the
// iteration and the limits in force, keeps that part in its record, and
// does what the plan only decides (the done file's removal; the end is
// tasksGate's).

// newTasks is the plan's progress as the loop's settings now name it; rec
// is the tasks part of a record the loop goes on with (nil for none).
func newTasks(l *Loop, rec *state.Tasks) *progress.Plan {
	c := &l.Config
	return progress.New(progress.Settings{
		File: c.TasksFile, TaskID: c.TaskID, TaskBase: c.TaskBase, Dir: c.Dir, Worktree: c.Worktree,
		Review: c.Review, ReviewCap: c.ReviewCap, DiffChars: c.DiffChars,
		PromptFile: c.PromptFile, ProgressFile: c.ProgressFile, DoneFile: c.DoneFile, PauseFile: c.PauseFile,
		Store: l.Store,
	}, planOut{l.rec}, rec)
}

// planOut is where the plan's progress tells what it did: the loop's log
// and its lines to the person.
type planOut struct{ rec *record.Record }

func (o planOut) Log(event, message string) { o.rec.Log(event, message) }
func (o planOut) Say(line string)           { o.rec.Sayf("%s", line) }
func (o planOut) Warn(line string)          { o.rec.Warnf("%s", line) }

// keepTasks keeps the plan's part of the record in the loop's record, once
// the plan has made it.
func keepTasks(l *Loop) { l.rec.PlanProgress(l.tasks.Record()) }

// resumeTasks takes up a resumed loop's plan, in the places its record
// names, with the record's tasks part.
func resumeTasks(l *Loop) {
	l.tasks = newTasks(l, l.rec.State().Tasks)
	l.tasks.Resume()
	keepTasks(l)
}

// takeUpTasks takes up what the last run on the same plan left waiting
// for a review or a fix.
func takeUpTasks(l *Loop, last *state.State) {
	l.tasks.TakeUp(last)
	keepTasks(l)
}

// planVerify are the plan's verify commands as last read, run after the
// checks.
func planVerify(l *Loop) []checks.Check {
	var verify []checks.Check
	for _, c := range l.tasks.Verify() {
		verify = append(verify, checks.Check{Command: c})
	}
	return verify
}

// setDoneAside sets aside a done signal a plan's loop does not end on
// (progress.Plan.IgnoresDone): the log says so once; the done file is
// removed, or it would end every iteration at once.
func setDoneAside(l *Loop) {
	l.tasks.DoneIgnored(l.rec.Iteration())
	keepTasks(l)
	if l.DoneFile != "" {
		if err := os.Remove(l.DoneFile); err != nil && !os.IsNotExist(err) {
			l.rec.Warnf("remove done file: %v", err)
		}
	}
}

// tasksShown is the plan's progress for the status line (progress.Shown).
func tasksShown(tasks *state.Tasks, only string) string { return progress.Shown(tasks, only) }
