package progress

import (
	"fmt"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// taskText is what a prompt says of the iteration's task and how to say
// it is done.
type taskText struct {
	file    string      // the plan
	notes   string      // where a review writes what must change
	format  plan.Format // the plan's
	reviews bool        // implemented tasks get a review
}

// block is what a prompt that places no task placeholder gets appended:
// the task, and how to say it is done (done of total tasks done, attempts
// the tries a task gets).
func (x taskText) block(pt *plan.Task, mode string, item *state.TaskItem, done, total, attempts int) string {
	file := x.file
	mark := "tick its box (- [x])"
	if x.format != plan.FormatMarkdown {
		mark = `set its "passes" to true`
	}
	approve := "If it is right and complete, change nothing."
	if x.reviews && x.format != plan.FormatMarkdown {
		approve = fmt.Sprintf(`If it is right and complete, set its "passes" to true in %s (only a review may).`, file)
		mark = `stop: a review comes next (leave "passes" and "reviewStatus" as they are; only a review may set them)`
	}
	var b strings.Builder
	switch mode {
	case modeReview:
		fmt.Fprintf(&b, "Review task %s of the plan %s, implemented in the last iteration, in a fresh mind: read its changes (git diff, git log) against the task below. Change no code.\n\n%s\n\n", pt.ID, file, pt.Text)
		fmt.Fprintf(&b, "%s %s", approve, x.reviewLine())
	case modeFix:
		fmt.Fprintf(&b, "Task %s of the plan %s was reviewed and needs changes:\n\n%s\n\nThe task:\n\n%s\n\n", pt.ID, file, item.Notes, pt.Text)
		fmt.Fprintf(&b, "Make the changes; when they are done and checked, %s; change no other line of the plan %s.", mark, file)
	default:
		fmt.Fprintf(&b, "Work on one task of the plan %s this iteration (%d of %d done; attempt %d of %d):\n\n%s\n\n", file, done, total, item.Attempts, attempts, pt.Text)
		fmt.Fprintf(&b, "When it is done and checked, %s; change no other line of the plan %s. The loop counts it done only if the work changed and every check passes.", mark, file)
	}
	return b.String()
}

// reviewLine is how a review asks for changes: it names the notes file.
func (x taskText) reviewLine() string {
	return fmt.Sprintf("If not, write what must change into %s; the task then goes back for a fix.", x.notes)
}

// reviewAlone is the line a review's prompt that places the task itself
// gets: it may not say it is a review, so the line does, and how to
// approve, before how to ask for changes.
func (x taskText) reviewAlone(pt *plan.Task) string {
	approve := "If it is right and complete, change nothing."
	if x.format != plan.FormatMarkdown {
		approve = fmt.Sprintf(`If it is right and complete, set its "passes" to true in %s (only a review may).`, x.file)
	}
	return fmt.Sprintf("This iteration reviews task %s, implemented in the last one, in a fresh mind: change no code. %s %s", pt.ID, approve, x.reviewLine())
}
