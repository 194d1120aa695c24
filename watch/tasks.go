package watch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Modes of an iteration that works on a task.
const (
	modeImplement = "implement"
	modeReview    = "review"
	modeFix       = "fix"
)

// The loop's own states of a task, beside the plan's (open, done, in-progress).
const (
	taskSkipped = "skipped"  // not done after --task-attempts tries
	taskReview  = "review"   // implemented and verified, waiting for its review
	taskFix     = "fix"      // its review asked for changes
	taskPassed  = "approved" // approved by the review cap while the plan still says open: done for the loop
)

// taskPlan is the plan the loop works through (--tasks), one task an
// iteration. It reads the plan before and after each iteration, picks the
// iteration's task, and decides whether the task is done by what changed,
// not by the agent's word (taskverdict.go). Its record is the state's
// tasks field. It never edits the plan but to reopen a box it rejected
// (plan.Reopen) or to put back a review field an implement iteration set.
type taskPlan struct {
	cfg    *Config // read only
	rec    *recorder
	verify []checks.Check // the plan's verify commands, run after the checks

	plan     *plan.Plan // as last read
	data     []byte     // its bytes as last read
	snapshot []byte     // its bytes before the iteration
	feedback string     // why the last verdict rejected the task, for the next prompt
	cut      string     // while judging: why the loop cut the iteration short ("": it did not)
	edited   bool       // the loop edited the plan since the iteration began (a mark reopened or put back)
	lastID   string     // the task of the iteration judged last
	doneSaid bool       // the log said once that a done signal does not end the loop
	checkout checkoutPlan
}

// checkoutPlan is the person's checkout's copy of a worktree loop's plan,
// which the loop does not read: an edit to it is said once.
type checkoutPlan struct {
	seen, told bool
	was        []byte // its bytes when the watcher first read the plan
}

func (t *taskPlan) on() bool { return t.cfg.TasksFile != "" }

// record is the state's tasks field, made the first time; a loop without
// a plan keeps none (status would show an empty plan).
func (t *taskPlan) record() *state.Tasks {
	if !t.on() {
		return &state.Tasks{}
	}
	if t.rec.st.Tasks == nil {
		t.rec.st.Tasks = &state.Tasks{File: t.cfg.TasksFile, Items: []state.TaskItem{}}
	}
	return t.rec.st.Tasks
}

// ReadTasks reads a plan file as the loop does, for run to refuse one it
// cannot read before anything starts.
func ReadTasks(path string) (*plan.Plan, []byte, error) {
	p, data, err := plan.Load(path)
	if err != nil {
		return nil, nil, fmt.Errorf("tasks file: %w", err)
	}
	return p, data, nil
}

// read reads the plan afresh and brings the record up to it; on an error
// the last reading stays.
func (t *taskPlan) read() error {
	p, data, err := ReadTasks(t.cfg.TasksFile)
	if err != nil {
		return err
	}
	t.keepIDs(p)
	t.plan, t.data = p, data
	t.sync()
	t.watchCheckout()
	return nil
}

// watchCheckout says once, in the log and to the person, when the plan in
// their checkout changes under a worktree loop, which reads its worktree's
// copy: the edit would otherwise be ignored without a word.
func (t *taskPlan) watchCheckout() {
	c := &t.checkout
	path := gitwork.CheckoutCopy(t.cfg.Worktree, t.cfg.TasksFile)
	if c.told || path == "" {
		return
	}
	data, _ := os.ReadFile(path)
	if !c.seen {
		c.seen, c.was = true, data
		return
	}
	if bytes.Equal(data, c.was) {
		return
	}
	c.told = true
	msg := fmt.Sprintf("the plan in your checkout, %s, changed; this loop reads its worktree's copy, %s: edit that one", path, t.cfg.TasksFile)
	t.rec.log("TASK", msg)
	t.rec.warnf("%s", msg)
}

// parse reads the plan's bytes as they were at another moment (the
// snapshot), its tasks named as the loop knows them.
func (t *taskPlan) parse(data []byte) (*plan.Plan, error) {
	p, err := plan.Parse(t.cfg.TasksFile, data)
	if err == nil {
		t.keepIDs(p)
	}
	return p, err
}

// keepIDs names each task as the loop's record knows it (KeepTaskIDs).
func (t *taskPlan) keepIDs(p *plan.Plan) { KeepTaskIDs(p, t.record()) }

// KeepTaskIDs names a Markdown task that has no id of its own as a loop's
// record knows it, by its title: a task the agent inserted above it would
// otherwise take its place number, and with it its attempts and verdicts.
func KeepTaskIDs(p *plan.Plan, rec *state.Tasks) {
	known := make([]plan.Known, len(rec.Items))
	for i, item := range rec.Items {
		known[i] = plan.Known{ID: item.ID, Title: item.Title}
	}
	p.KeepIDs(known, recordedTitle)
}

// sync brings the record's tasks and counts up to the plan as last read,
// keeping what the loop knows of each (attempts, iterations, verdicts).
func (t *taskPlan) sync() {
	r := t.record()
	items := make([]state.TaskItem, 0, len(t.plan.Tasks))
	known := make(map[string]int, len(r.Items)) // a plan of thousands of tasks is read every iteration
	for i, item := range r.Items {
		known[item.ID] = i
	}
	r.Done, r.Open, r.Skipped = 0, 0, 0
	for _, pt := range t.plan.Tasks {
		item := state.TaskItem{ID: pt.ID}
		if i, ok := known[pt.ID]; ok {
			item = r.Items[i]
		}
		item.Title = recordedTitle(pt.Title)
		switch {
		case item.State == taskReview || item.State == taskFix || item.State == taskPassed:
		case item.State == taskSkipped && (pt.State != plan.Done || r.Current != ""): // skipped until a person ticks it between iterations: an iteration's tick of it is reopened
		default:
			item.State = string(pt.State)
		}
		switch item.State {
		case string(plan.Done), taskPassed:
			r.Done++
		case taskSkipped:
			r.Skipped++
		default:
			r.Open++
		}
		items = append(items, item)
	}
	r.Items, r.Total = items, len(items)
	var verify []checks.Check
	for _, c := range t.plan.VerifyCommands {
		verify = append(verify, checks.Check{Command: c})
	}
	t.verify = verify
}

// recordedTitle is a task's title as the record keeps it.
func recordedTitle(title string) string { return shorten(title, 120) }

// shorten cuts s to n characters, marking the cut.
func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// skipped reports whether the loop set the task aside, or works on it in
// another mode than implement.
func (t *taskPlan) skipped(id string) bool {
	item := t.record().Item(id)
	return item != nil && (item.State == taskSkipped || item.State == taskReview || item.State == taskFix || item.State == taskPassed)
}

// pick chooses the next iteration's task and mode: a review waiting, then
// a fix asked for, then the plan's next open task. With none, it sets aside
// the tasks that can never start (they wait on a skipped one) and returns
// nil.
func (t *taskPlan) pick() (*plan.Task, string) {
	r := t.record()
	for _, want := range []struct{ state, mode string }{{taskReview, modeReview}, {taskFix, modeFix}} {
		for _, item := range r.Items {
			if pt := t.plan.Task(item.ID); item.State == want.state && pt != nil {
				return pt, want.mode
			}
		}
	}
	if id := t.cfg.TaskID; id != "" { // the fan's task alone, whatever it waits on: the fan started it when it could
		if pt := t.plan.Task(id); pt != nil && pt.State != plan.Done && !t.skipped(id) {
			return pt, modeImplement
		}
		return nil, ""
	}
	if pt := t.plan.Next(t.skipped); pt != nil {
		return pt, modeImplement
	}
	for i := range r.Items {
		if item := &r.Items[i]; item.State != string(plan.Done) && item.State != taskSkipped && item.State != taskPassed {
			item.State = taskSkipped
			item.Verdicts = append(item.Verdicts, state.TaskVerdict{Iteration: t.rec.iteration(), Verdict: "skipped",
				Reason: "it waits on a task that is skipped or not in the plan"})
			t.rec.log("TASK", fmt.Sprintf("iteration %d task %s skipped: it waits on a task that is skipped or not in the plan", t.rec.iteration(), item.ID))
			r.Open--
			r.Skipped++
		}
	}
	return nil, ""
}

// begin starts iteration n on the task pick chooses: it notes the plan and
// the work as they are, records the task's try, and returns the prompt's
// task placeholders (the diff only when text asks for it).
func (t *taskPlan) begin(n int, text string) *TaskVars {
	if !t.on() || t.plan == nil {
		return nil
	}
	pt, mode := t.pick()
	if pt == nil { // tasksEnd saw one a moment ago; the plan is as it read it
		return nil
	}
	r := t.record()
	r.Current, r.Mode = pt.ID, mode
	item := r.Item(pt.ID)
	if k := len(item.Iterations); k == 0 || item.Iterations[k-1] != n { // a usage limit gives its iteration back: not a new try
		item.Iterations = append(item.Iterations, n)
		if mode == modeReview {
			item.Reviews++
		} else {
			item.Attempts++
		}
	}
	if mode == modeReview {
		_ = os.Remove(t.notesFile()) // a review's notes are its own
	}
	t.snapshot, t.edited = t.data, false
	if err := t.rec.store.WriteFile(state.PlanBefore, t.data); err != nil {
		t.rec.warnf("keep the plan before iteration %d: %v", n, err)
	}
	now := t.noteBefore(n)
	v := &TaskVars{ID: pt.ID, Text: pt.Text, Done: r.Done, Total: r.Total, Left: r.Total - r.Done, Attempt: item.Attempts, Mode: mode}
	if mode == modeFix || mode == modeReview {
		v.ReviewFeedback = item.Notes
	}
	if strings.Contains(text, "{{diff}}") {
		v.Diff = t.diff(now)
	}
	v.Block, v.ReviewFile = t.block(pt, mode, item), t.notesFile()
	if mode == modeReview {
		v.ReviewLine = t.reviewAlone(pt)
		if gitwork.InGitRepo(t.cfg.Dir) { // the review's notes file is nobody's file in the person's checkout
			gitwork.IgnoreOwn(t.cfg.Dir)
		}
	}
	try := fmt.Sprintf("attempt=%d/%d", item.Attempts, t.cfg.TaskAttempts)
	if mode == modeReview {
		try = fmt.Sprintf("review=%d/%d", item.Reviews, t.cfg.ReviewCap)
	}
	t.rec.log("TASK", fmt.Sprintf("iteration %d task %s %s %s", n, pt.ID, mode, try))
	return v
}

// agentWorked reports whether the iteration that ended so was the agent's
// own try at the work, which --stall-limit counts when it changed nothing:
// not the person's skip or retry, not a review (which changes nothing by design).
func (t *taskPlan) agentWorked(end iteration.Ending) bool {
	if end == iteration.EndSkipped || end == iteration.EndRetried {
		return false
	}
	return !t.on() || t.record().Mode != modeReview
}

// noteBefore notes the work before iteration n: git's tree and HEAD, or
// outside git a print of the folder. A fan's loop carrying on a task
// notes its first iteration's from the task's base: the work a lost loop
// made there is that iteration's. It returns the work tree as it is ("":
// outside git).
func (t *taskPlan) noteBefore(n int) string {
	r := t.record()
	r.BeforeTree, r.BeforeHead, r.BeforePrint = "", "", ""
	tree, err := gitwork.WorkTree(t.cfg.Dir, t.rec.store.Path(state.WorkTreeIndex))
	if err != nil {
		r.BeforePrint = gitwork.FolderPrint(t.cfg.Dir, t.unwatched()...)
		return ""
	}
	r.BeforeTree, r.BeforeHead = tree, gitwork.Head(t.cfg.Dir)
	if base := t.cfg.TaskBase; base != "" && n == 1 {
		if from, err := gitwork.CommitTree(t.cfg.Dir, base); err == nil {
			r.BeforeTree, r.BeforeHead = from, base
		}
	}
	if r.Base == "" {
		r.Base = r.BeforeTree
	}
	return tree
}

// fromTaskBase reports whether the current iteration's change is measured
// from the task's base (noteBefore), not from where the iteration began.
func (t *taskPlan) fromTaskBase() bool {
	return t.on() && t.cfg.TaskBase != "" && t.record().BeforeHead == t.cfg.TaskBase && t.rec.iteration() == 1
}

// notesFile is where a review writes what must change: in the work's own
// folder, where the agent may write, and removed once read.
func (t *taskPlan) notesFile() string { return filepath.Join(t.cfg.Dir, ".ralph", "review.md") }

// unwatched are the files whose change is no work: the plan, the prompt,
// the loop's own folder and the files it reads or writes.
func (t *taskPlan) unwatched() []string {
	paths := []string{t.cfg.TasksFile, t.cfg.PromptFile, t.rec.store.Dir, t.notesFile()}
	for _, p := range []string{t.cfg.ProgressFile, t.cfg.DoneFile, t.cfg.PauseFile} {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}

// changed reports whether the iteration changed the work (the plan
// aside) or HEAD; with nothing noted before, it cannot tell and says yes.
func (t *taskPlan) changed() bool {
	r := t.record()
	switch {
	case r.BeforeTree != "":
		if gitwork.Head(t.cfg.Dir) != r.BeforeHead {
			return true
		}
		now, err := gitwork.WorkTree(t.cfg.Dir, t.rec.store.Path(state.WorkTreeIndex))
		if err != nil {
			return true
		}
		changed, err := gitwork.TreeChanged(t.cfg.Dir, r.BeforeTree, now, t.unwatched()...)
		return changed || err != nil
	case r.BeforePrint != "":
		return gitwork.FolderPrint(t.cfg.Dir, t.unwatched()...) != r.BeforePrint
	}
	return true
}

// diff is the work since the loop started (a fan's task: since the task
// began) to now, the work tree before the iteration, cut at --diff-chars.
func (t *taskPlan) diff(now string) string {
	r := t.record()
	if r.Base == "" || now == "" {
		return ""
	}
	d, err := gitwork.Diff(t.cfg.Dir, r.Base, now, t.cfg.TasksFile)
	if err != nil {
		t.rec.warnf("diff of the work: %v", err)
		return ""
	}
	if max := t.cfg.DiffChars; max > 0 && len(d) > max {
		d = d[:max] + fmt.Sprintf("\n[… diff cut at %d characters of %d]\n", max, len(d))
	}
	return d
}

// block is what a prompt that places no task placeholder gets appended:
// the task, and how to say it is done.
func (t *taskPlan) block(pt *plan.Task, mode string, item *state.TaskItem) string {
	file, r := t.cfg.TasksFile, t.record()
	mark := "tick its box (- [x])"
	if t.plan.Format != plan.FormatMarkdown {
		mark = `set its "passes" to true`
	}
	approve := "If it is right and complete, change nothing."
	if t.reviews() && t.plan.Format != plan.FormatMarkdown {
		approve = fmt.Sprintf(`If it is right and complete, set its "passes" to true in %s (only a review may).`, file)
		mark = `stop: a review comes next (leave "passes" and "reviewStatus" as they are; only a review may set them)`
	}
	var b strings.Builder
	switch mode {
	case modeReview:
		fmt.Fprintf(&b, "Review task %s of the plan %s, implemented in the last iteration, in a fresh mind: read its changes (git diff, git log) against the task below. Change no code.\n\n%s\n\n", pt.ID, file, pt.Text)
		fmt.Fprintf(&b, "%s %s", approve, t.reviewLine())
	case modeFix:
		fmt.Fprintf(&b, "Task %s of the plan %s was reviewed and needs changes:\n\n%s\n\nThe task:\n\n%s\n\n", pt.ID, file, item.Notes, pt.Text)
		fmt.Fprintf(&b, "Make the changes; when they are done and checked, %s; change no other line of the plan %s.", mark, file)
	default:
		fmt.Fprintf(&b, "Work on one task of the plan %s this iteration (%d of %d done; attempt %d of %d):\n\n%s\n\n", file, r.Done, r.Total, item.Attempts, t.cfg.TaskAttempts, pt.Text)
		fmt.Fprintf(&b, "When it is done and checked, %s; change no other line of the plan %s. The loop counts it done only if the work changed and every check passes.", mark, file)
	}
	return b.String()
}

// reviewLine is how a review asks for changes: it names the notes file.
func (t *taskPlan) reviewLine() string {
	return fmt.Sprintf("If not, write what must change into %s; the task then goes back for a fix.", t.notesFile())
}

// reviewAlone is the line a review's prompt that places the task itself
// gets: it may not say it is a review, so the line does, and how to
// approve, before how to ask for changes.
func (t *taskPlan) reviewAlone(pt *plan.Task) string {
	approve := "If it is right and complete, change nothing."
	if t.plan.Format != plan.FormatMarkdown {
		approve = fmt.Sprintf(`If it is right and complete, set its "passes" to true in %s (only a review may).`, t.cfg.TasksFile)
	}
	return fmt.Sprintf("This iteration reviews task %s, implemented in the last one, in a fresh mind: change no code. %s %s", pt.ID, approve, t.reviewLine())
}

// forCommit is what --commit's message says of the iteration's task: its
// verdict and title ("task 2 done: Add the parser"; "" without a task), and
// whether the loop edited the plan since the iteration began.
func (t *taskPlan) forCommit(verdict string) (string, bool) {
	if !t.on() || verdict == "" {
		return "", t.edited
	}
	head, _, _ := strings.Cut(verdict, ": ")
	if item := t.record().Item(t.lastID); item != nil && strings.HasPrefix(head, "task "+t.lastID+" ") {
		head += ": " + item.Title
	}
	return head, t.edited
}

// ignoresDone reports whether a done signal must not end the loop: with a
// plan, the plan says when the work is done. The log says so once; the
// done file is removed, or it would end every iteration at once.
func (t *taskPlan) ignoresDone() bool {
	if !t.on() {
		return false
	}
	if !t.doneSaid {
		t.doneSaid = true
		r := t.record()
		t.rec.sayf("done signal ignored: the plan has %d of %d tasks open; it ends when they are done", r.Total-r.Done, r.Total)
		t.rec.log("TASK", fmt.Sprintf("iteration %d done signal ignored: the plan decides (open=%d)", t.rec.iteration(), r.Total-r.Done))
	}
	if t.cfg.DoneFile != "" {
		if err := os.Remove(t.cfg.DoneFile); err != nil && !os.IsNotExist(err) {
			t.rec.warnf("remove done file: %v", err)
		}
	}
	return true
}

// shown is the plan's progress for the status line: "4/12"; a loop on
// one task of it (a fan's) its task, "task 3"; "" without one.
func (r *recorder) tasksShown(only string) string {
	if r.st == nil || r.st.Tasks == nil || r.st.Tasks.Total == 0 {
		return ""
	}
	if only != "" {
		return "task " + only
	}
	return fmt.Sprintf("%d/%d", r.st.Tasks.Done, r.st.Tasks.Total)
}

// takeUp takes from the last run of the loop on the same plan the tasks it
// left implemented and not yet reviewed, or sent back by a review: a new
// run reviews (or fixes) them first, as that run would have, instead of
// taking a tick no review saw for done.
func (t *taskPlan) takeUp(last *state.State) {
	if !t.on() || last == nil || last.Tasks == nil || last.Tasks.File != t.cfg.TasksFile {
		return
	}
	r := t.record()
	for _, item := range last.Tasks.Items {
		waits := item.State == taskReview || item.State == taskFix
		if item.ID == last.Tasks.Current && last.Tasks.Mode == modeReview {
			waits = true // its review never ended
		}
		if !waits {
			continue
		}
		carried := state.TaskItem{ID: item.ID, Title: item.Title, State: item.State, Notes: item.Notes}
		if item.State != taskFix {
			carried.State, carried.Notes = taskReview, ""
		}
		r.Items = append(r.Items, carried)
		t.rec.log("TASK", fmt.Sprintf("task %s: the last run left it waiting for its %s; it comes first", item.ID, map[bool]string{true: "fix", false: "review"}[carried.State == taskFix]))
	}
}

// resume takes up a resumed loop's plan: read afresh, and the bytes it had
// before the iteration a previous watcher started.
func (t *taskPlan) resume() {
	if !t.on() {
		return
	}
	if err := t.read(); err != nil {
		t.rec.warnf("%v", err)
	}
	if data, err := os.ReadFile(t.rec.store.Path(state.PlanBefore)); err == nil {
		t.snapshot = data
	}
}
