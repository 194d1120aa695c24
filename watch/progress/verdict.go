package progress

import (
	"fmt"
	"os"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/prompt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Ended is what the loop knows of an iteration that ended, for its task's
// verdict.
type Ended struct {
	N        int               // the iteration
	Attempts int               // the tries a task gets, as now in force
	Changed  bool              // the work changed, as noted before the loop wrote anything
	Runs     []checks.CheckRun // the checks after it
	Outcome  iteration.Outcome // how it ended
}

// Judge decides, after an iteration, what became of its task: the plan is
// read again, and a task marked done counts only when the work changed
// (e.Changed) and every check passed.
// A mark the loop rejects is reopened in the plan. It returns the verdict
// line for the progress file ("" without a task).
//
// A review counts only when it ran to its end; an implement or fix
// iteration the context guard ended that did not finish its task is no try
// (both go again as after a retry).
func (t *Plan) Judge(e Ended) string {
	r, n, it := t.record(), e.N, e.Outcome
	if !t.On() || r.Current == "" || t.plan == nil {
		return ""
	}
	id, mode := r.Current, r.Mode
	defer func() { r.Current, r.Mode, t.cut = "", "", "" }() // judged: no iteration works on it now
	t.feedback = ""
	if it.Ending == iteration.EndContext {
		t.cut = "the context guard ended it"
	}
	var readErr error
	if readErr = t.read(); readErr != nil {
		t.out.Warn(readErr.Error())
	}
	t.reopenOthers(n, id)
	pt := t.plan.Task(id)
	if r.Item(id) == nil || pt == nil {
		t.out.Log("TASK", fmt.Sprintf("iteration %d task %s gone from the plan", n, id))
		return fmt.Sprintf("task %s: gone from the plan", id)
	}
	if mode == modeReview {
		if why := unfinished(it); why != "" {
			return t.cutShort(e, id, mode, "the review did not run to its end ("+why+")", "a fresh agent reviews it again, not counted as a review")
		}
		return t.reviewed(n, id, pt, e.Runs)
	}
	if readErr != nil {
		return t.notDone(e, id, fmt.Sprintf("the plan cannot be read: %v", readErr))
	}
	if t.reviews() && t.plan.Format != plan.FormatMarkdown {
		return t.implemented(e, id, pt)
	}
	return t.marked(e, id, pt)
}

// marked judges an implement or fix iteration by the task's mark: done
// only when the iteration marked it, the work changed and every check
// passed; a mark it rejects is reopened.
func (t *Plan) marked(e Ended, id string, pt *plan.Task) string {
	n := e.N
	approved := t.revertApproval(n, pt)
	pt = t.plan.Task(id)
	if pt.State != plan.Done {
		if approved {
			return t.notDone(e, id, `it set "reviewStatus" to "approved", which only a review may do`)
		}
		return t.notDone(e, id, "it was not marked done")
	}
	why := ""
	switch failed := firstFailed(e.Runs); {
	case approved:
		why = `it set "reviewStatus" to "approved", which only a review may do`
	case !e.Changed:
		why = "nothing in the work tree changed"
	case failed != nil:
		why = fmt.Sprintf("%q failed%s", failed.Command, tailLine(failed.Tail))
	}
	if why != "" {
		t.reopen(n, id)
		t.feedback = prompt.JoinBlocks(t.feedback, fmt.Sprintf("Task %s was marked done, but %s. The loop reopened it.", id, why))
		return t.notDone(e, id, "marked done, but "+why)
	}
	if t.reviews() {
		t.setState(id, taskReview)
		return t.verdict(n, id, "review", "implemented; a review comes next")
	}
	t.setState(id, string(plan.Done))
	return t.verdict(n, id, "done", "")
}

// implemented judges an implement or fix iteration of a JSON plan under
// review: the work and the checks say the task is implemented, and only a
// review may set "passes" or approve; a passes or approval the iteration
// set is put back from the snapshot.
func (t *Plan) implemented(e Ended, id string, pt *plan.Task) string {
	n, passed := e.N, pt.State == plan.Done
	if was := t.before(id); was != nil && was.State == plan.Done {
		passed = false // it was so before: not this iteration's doing
	}
	approved := t.revertApproval(n, pt)
	if passed {
		t.reopen(n, id)
	}
	why := ""
	switch failed := firstFailed(e.Runs); {
	case passed || approved:
		why = `it set "passes" or "reviewStatus" itself, which only a review may do; the loop put them back`
	case !e.Changed:
		why = "nothing in the work tree changed"
	case failed != nil:
		why = fmt.Sprintf("%q failed%s", failed.Command, tailLine(failed.Tail))
	}
	if why != "" {
		t.feedback = prompt.JoinBlocks(t.feedback, fmt.Sprintf("Task %s was not accepted: %s.", id, why))
		return t.notDone(e, id, why)
	}
	t.setState(id, taskReview)
	return t.verdict(n, id, "review", "implemented; a review comes next")
}

// setState sets the loop's state of task id and counts the plan again.
func (t *Plan) setState(id, s string) {
	if item := t.record().Item(id); item != nil {
		item.State = s
	}
	t.sync()
}

// reopenOthers reopens every task but the iteration's own that the
// iteration marked done: one task an iteration, each judged by the loop.
func (t *Plan) reopenOthers(n int, id string) {
	before, err := t.parse(t.snapshot)
	if err != nil {
		return
	}
	var others []string
	for _, pt := range t.plan.Tasks {
		if was := before.Task(pt.ID); pt.ID != id && pt.State == plan.Done && was != nil && was.State != plan.Done {
			others = append(others, pt.ID)
		}
	}
	for _, other := range others {
		t.reopen(n, other)
		t.feedback = prompt.JoinBlocks(t.feedback, fmt.Sprintf("Task %s was marked done, but this iteration's task was %s: one task an iteration. The loop reopened it.", other, id))
	}
}

// reviews reports whether implemented tasks get a review: --review, or a
// tasks.json, whose fields carry one.
func (t *Plan) reviews() bool { return t.set.Review || t.plan.Format == plan.FormatTasksJSON }

// reviewed judges a review iteration: it approves when it leaves the task
// done, its notes file empty and the checks passing; else the task goes
// back for a fix, until the review cap, whose review approves with its
// notes kept.
func (t *Plan) reviewed(n int, id string, pt *plan.Task, runs []checks.CheckRun) string {
	notesPath := t.work.notes
	data, _ := os.ReadFile(notesPath)
	_ = os.Remove(notesPath)
	notes := strings.TrimSpace(string(data))
	if failed := firstFailed(runs); failed != nil && notes == "" {
		notes = fmt.Sprintf("%q failed%s", failed.Command, tailLine(failed.Tail))
	}
	if pt.State != plan.Done && notes == "" {
		notes = "the review did not mark it done"
	}
	if rs := pt.ReviewStatus; notes == "" && rs != "" && rs != "approved" && (t.before(pt.ID) == nil || rs != t.before(pt.ID).ReviewStatus) {
		notes = fmt.Sprintf("the review set reviewStatus to %q", rs)
	}
	item := t.record().Item(id)
	item.Notes = notes
	if notes == "" {
		t.setState(id, string(plan.Done))
		return t.verdict(n, id, "approved", "")
	}
	if item.Reviews >= t.set.ReviewCap {
		if pt.State != plan.Done { // the plan says open: the loop's record says approved
			t.setState(id, taskPassed)
		} else {
			t.setState(id, string(plan.Done))
		}
		return t.verdict(n, id, "approved", fmt.Sprintf("review cap (%d) reached; its notes are kept", t.set.ReviewCap))
	}
	if pt.State == plan.Done {
		t.reopen(n, id)
	}
	t.setState(id, taskFix)
	return t.verdict(n, id, "changes", shorten(firstLine(notes), 200))
}

// notDone records a try that did not finish the task: after the last try
// the task is skipped.
func (t *Plan) notDone(e Ended, id, why string) string {
	n := e.N
	if t.cut != "" { // the loop cut the try short: it was not the agent's
		return t.cutShort(e, id, t.record().Mode, fmt.Sprintf("%s before the task was done (%s)", t.cut, why), "not counted as a try")
	}
	item := t.record().Item(id)
	if item.Attempts >= e.Attempts {
		t.setState(id, taskSkipped)
		t.out.Say(fmt.Sprintf("task %s skipped after %d attempts", id, item.Attempts))
		return t.verdict(n, id, "skipped", fmt.Sprintf("not done after %d attempts: %s", item.Attempts, why))
	}
	return t.verdict(n, id, "rejected", why)
}

// cutShort settles an iteration of the agent's on task id that did not
// run to its end (a review that hung or crashed, a try the context guard
// ended): it goes again, uncounted, but not forever: after as many in a
// row as the task's tries, the task is skipped.
func (t *Plan) cutShort(e Ended, id, mode, what, again string) string {
	item := t.record().Item(id)
	k := item.Unfinished + 1
	if k < max(e.Attempts, 1) {
		line := t.again(e.N, id, mode, what+"; "+again)
		t.record().Item(id).Unfinished = k // after again: its verdict starts a new count
		return line
	}
	if mode == modeReview {
		item.Reviews = max(0, item.Reviews-1)
	} else {
		item.Attempts = max(0, item.Attempts-1)
	}
	if pt := t.plan.Task(id); pt != nil && pt.State == plan.Done {
		t.reopen(e.N, id)
	}
	t.setState(id, taskSkipped)
	t.out.Say(fmt.Sprintf("task %s skipped: %d of its iterations in a row did not run to their end", id, k))
	return t.verdict(e.N, id, "skipped", fmt.Sprintf("%s, %d iterations in a row", what, k))
}

// verdict records and logs what the loop decided, and returns the line
// for the progress file.
func (t *Plan) verdict(n int, id, verdict, why string) string {
	item := t.record().Item(id)
	item.Unfinished = 0
	t.lastID = id
	item.Verdicts = append(item.Verdicts, state.TaskVerdict{Iteration: n, Verdict: verdict, Reason: why})
	line := fmt.Sprintf("task %s %s", item.ID, verdict)
	if why != "" {
		line += ": " + why
	}
	t.out.Log("TASK", fmt.Sprintf("iteration %d %s", n, line))
	if verdict != "skipped" {
		t.out.Say(line)
	}
	return line
}

// reopen puts the task's mark back to open in the plan file: the one edit
// plan.Reopen makes, and no other byte.
func (t *Plan) reopen(n int, id string) { t.mark(n, id, "reopen", "reopened", plan.Reopen) }

// mark makes the one edit of task id's mark that edit makes in the plan
// file, no other byte, and logs it as done.
func (t *Plan) mark(n int, id, verb, done string, edit func([]byte, *plan.Plan, string) ([]byte, error)) {
	data, err := edit(t.data, t.plan, id)
	if err == nil {
		err = os.WriteFile(t.set.File, data, 0o644)
	}
	if err != nil {
		t.out.Warn(fmt.Sprintf("%s task %s in %s: %v", verb, id, t.set.File, err))
		return
	}
	t.edited = true
	t.out.Log("TASK", fmt.Sprintf("iteration %d task %s %s in %s", n, id, done, t.set.File))
	if err := t.read(); err != nil {
		t.out.Warn(err.Error())
	}
}

// again gives back the try of an iteration that did not count (the
// person's retry, a try the loop cut short, a review that did not run to
// its end): the task's mark is put back as the iteration found it, and the
// next iteration takes the task in the same mode, in a fresh agent.
func (t *Plan) again(n int, id, mode, why string) string {
	item := t.record().Item(id)
	if mode == modeReview {
		item.Reviews = max(0, item.Reviews-1)
		_ = os.Remove(t.work.notes) // an unfinished review's notes are not its verdict
	} else {
		item.Attempts = max(0, item.Attempts-1)
	}
	was, pt := t.before(id), t.plan.Task(id)
	switch {
	case was == nil || pt == nil:
	case pt.State == plan.Done && was.State != plan.Done:
		t.reopen(n, id) // marked done in the iteration that does not count
	case pt.State != plan.Done && was.State == plan.Done:
		t.mark(n, id, "tick", "ticked again", plan.Tick) // a review's untick in it
	}
	return t.verdict(n, id, "retry", why)
}

// CutShort takes up the task of an iteration whose end was never judged:
// the loop ended with it (its budget, a stop, its server gone). The task
// goes on as after a retry: not a try. reason is how the loop ended, n
// its iteration.
func (t *Plan) CutShort(n int, reason string) {
	r := t.record()
	if !t.On() || r.Current == "" || t.plan == nil {
		return
	}
	id, mode := r.Current, r.Mode
	item := r.Item(id)
	if item != nil && len(item.Iterations) > 0 && item.Iterations[len(item.Iterations)-1] > n {
		return // a usage limit gave the iteration back: its new start takes the task up
	}
	r.Current, r.Mode = "", ""
	if item == nil || t.plan.Task(id) == nil {
		return
	}
	t.feedback = ""
	what := "a try"
	if mode == modeReview {
		what = "a review"
	}
	t.again(n, id, mode, fmt.Sprintf("the loop ended (%s) before iteration %d was over; not counted as %s", reason, n, what))
}

// unfinished says why an iteration did not run to its end, "" when it
// did: its agent exited 0 (or 42), finished its turn, or gave the done signal.
// How it ended decides, not a done token it printed before it hung.
func unfinished(it iteration.Outcome) string {
	switch e := it.Ending; {
	case e == iteration.EndExit && iteration.Failed(it):
		_, logged := iteration.FailureText(it)
		return logged
	case e == iteration.EndExit || e == iteration.EndDoneFile || e == iteration.EndTurn || e == iteration.EndDone:
		return ""
	case e.Progress() != "":
		return e.Progress()
	}
	return fmt.Sprintf("ending %d", it.Ending)
}

// before is task id as the plan had it before the iteration; nil if none.
func (t *Plan) before(id string) *plan.Task {
	p, err := t.parse(t.snapshot)
	if err != nil {
		return nil
	}
	return p.Task(id)
}

// revertApproval puts back, from the snapshot, a reviewStatus an implement
// iteration set to "approved" (only the review fields' bytes), and reports
// whether the iteration set it.
func (t *Plan) revertApproval(n int, pt *plan.Task) bool {
	was := t.before(pt.ID)
	if t.plan.Format == plan.FormatMarkdown || pt.ReviewStatus != "approved" || was != nil && was.ReviewStatus == "approved" {
		return false
	}
	if was == nil || was.ReviewStatus == "" { // no value to put back: the record says it is not approved
		return true
	}
	data, err := plan.SetReview(t.data, t.plan, pt.ID, was.ReviewStatus, was.ReviewCount)
	if err == nil {
		err = os.WriteFile(t.set.File, data, 0o644)
	}
	if err != nil {
		t.out.Warn(fmt.Sprintf("put back reviewStatus of task %s in %s: %v", pt.ID, t.set.File, err))
		return true
	}
	t.edited = true
	t.out.Log("TASK", fmt.Sprintf("iteration %d task %s reviewStatus put back: only a review approves", n, pt.ID))
	if err := t.read(); err != nil {
		t.out.Warn(err.Error())
	}
	return true
}

// firstFailed is the first check that failed, nil when all passed.
func firstFailed(runs []checks.CheckRun) *checks.CheckRun {
	for i := range runs {
		if !runs[i].Passed() {
			return &runs[i]
		}
	}
	return nil
}

// tailLine is the last line a failed check printed, as ": LINE"; "" if none.
func tailLine(tail string) string {
	lines := strings.Split(strings.TrimSpace(tail), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return ": " + shorten(last, 200)
	}
	return ""
}

// firstLine is text's first line.
func firstLine(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	return line
}

// Steered settles the task of iteration n, which the person ended (skip,
// retry), instead of judging it: a skip sets the task aside, a retry gives
// its try back (reopening a mark the agent made) so the next iteration
// takes it again. The work is left in the tree as it is. ok is false for
// any other ending, or without a task.
func (t *Plan) Steered(n int, end iteration.Ending) (line string, ok bool) {
	r := t.record()
	if end != iteration.EndSkipped && end != iteration.EndRetried || !t.On() || r.Current == "" || t.plan == nil {
		return "", false
	}
	id := r.Current
	defer func() { r.Current, r.Mode = "", "" }()
	t.feedback = ""
	if err := t.read(); err != nil {
		t.out.Warn(err.Error())
	}
	item := r.Item(id)
	if item == nil {
		return "", false
	}
	if end == iteration.EndSkipped {
		if r.Mode == modeReview {
			item.Reviews = max(0, item.Reviews-1) // a review cut short is no review
		}
		if pt := t.plan.Task(id); pt != nil && pt.State == plan.Done {
			t.reopen(n, id) // skipped is not done: the plan says so too
		}
		t.setState(id, taskSkipped)
		return t.verdict(n, id, "skipped", "the person skipped it"), true
	}
	return t.again(n, id, r.Mode, "the person asked for it again in a fresh agent; not counted as a try"), true
}
