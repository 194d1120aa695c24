// Package progress is the plan's progress (--tasks): one task an
// iteration, each judged by what changed, not by the agent's word. It owns
// the record's tasks part and the plan as last read and before the
// iteration; the loop gives it the iteration and the limits in force, and
// it tells what it did through Out.
package progress

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/prompt"
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

// Settings are what the plan's progress reads of the loop's settings, as
// they are once the loop knows its places (a resumed one's, from its record).
type Settings struct {
	File      string // the plan (--tasks); "": the loop has none
	TaskID    string // the one task a fan's loop works on (--task)
	TaskBase  string // the commit a fan's task began at: its first iteration counts the work since as its change; "": none
	Dir       string // where the agent works
	Worktree  string // a worktree loop's worktree: the person's checkout's copy of the plan is watched
	Review    bool   // implemented tasks get a review (--review)
	ReviewCap int    // reviews of one task; the last one approves
	DiffChars int    // {{diff}} is cut there; 0: never
	// The loop's own files, whose change is no work.
	PromptFile, ProgressFile, DoneFile, PauseFile string
	Store                                         *state.Store // the loop's folder: the plan before the iteration, the tree's index
}

// Out is where the plan's progress tells what it did, in the order it did
// it: the loop's iterations log and its lines to the person.
type Out interface {
	Log(event, message string)
	Say(line string)
	Warn(line string)
}

// Plan is the plan the loop works through (--tasks), one task an
// iteration. It reads the plan before and after each iteration, picks the
// iteration's task, and decides whether the task is done by what changed,
// not by the agent's word (verdict.go). Its record is the state's tasks
// part. It never edits the plan but to reopen a box it rejected
// (plan.Reopen) or to put back a review field an implement iteration set.
type Plan struct {
	set  Settings
	out  Out
	work work         // the work the iteration changes, as the plan looks at it
	rec  *state.Tasks // the record's tasks part; nil until first needed

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

// changed is what to say, once, in the log and to the person, when the
// plan in their checkout changed under a worktree loop, which reads its
// worktree's copy, file: the edit would otherwise be ignored without a
// word. "": nothing to say.
func (c *checkoutPlan) changed(worktree, file string) string {
	path := gitwork.CheckoutCopy(worktree, file)
	if c.told || path == "" {
		return ""
	}
	data, _ := os.ReadFile(path)
	if !c.seen {
		c.seen, c.was = true, data
		return ""
	}
	if bytes.Equal(data, c.was) {
		return ""
	}
	c.told = true
	return fmt.Sprintf("the plan in your checkout, %s, changed; this loop reads its worktree's copy, %s: edit that one", path, file)
}

// New is the progress through the plan s names; rec is the tasks part of
// a record the loop goes on with (a resumed one's), nil for none.
func New(s Settings, out Out, rec *state.Tasks) *Plan {
	return &Plan{set: s, out: out, rec: rec, work: newWork(s)}
}

// On reports whether the loop works through a plan.
func (t *Plan) On() bool { return t.set.File != "" }

// Record is the record's tasks part as it now stands, for the loop's
// record to keep; nil until the plan is first read (a loop without a plan
// keeps none: status would show an empty plan).
func (t *Plan) Record() *state.Tasks {
	if !t.On() {
		return nil
	}
	return t.rec
}

// Feedback is why the last verdict rejected the task, for the next prompt.
func (t *Plan) Feedback() string { return t.feedback }

// Verify are the plan's verify commands, as last read: they run after the
// checks.
func (t *Plan) Verify() []string {
	if t.plan == nil {
		return nil
	}
	return t.plan.VerifyCommands
}

// record is the state's tasks part, made the first time.
func (t *Plan) record() *state.Tasks {
	if !t.On() {
		return &state.Tasks{}
	}
	if t.rec == nil {
		t.rec = &state.Tasks{File: t.set.File, Items: []state.TaskItem{}}
	}
	return t.rec
}

// ReadPlan reads a plan file as the loop does, for run to refuse one it
// cannot read before anything starts.
func ReadPlan(path string) (*plan.Plan, []byte, error) {
	p, data, err := plan.Load(path)
	if err != nil {
		return nil, nil, fmt.Errorf("tasks file: %w", err)
	}
	return p, data, nil
}

// Read reads the plan afresh before an iteration. On an error the last
// reading stays, and the next prompt asks the agent to put the plan right;
// Unread says whether there is none.
func (t *Plan) Read() error {
	err := t.read()
	if err != nil && t.plan != nil {
		t.feedback = prompt.JoinBlocks(t.feedback, fmt.Sprintf("The plan %s cannot be read: %v. Put it right.", t.set.File, err))
	}
	return err
}

// Unread reports whether the plan was never read.
func (t *Plan) Unread() bool { return t.plan == nil }

// read reads the plan afresh and brings the record up to it; on an error
// the last reading stays.
func (t *Plan) read() error {
	p, data, err := ReadPlan(t.set.File)
	if err != nil {
		return err
	}
	t.keepIDs(p)
	t.plan, t.data = p, data
	t.sync()
	if msg := t.checkout.changed(t.set.Worktree, t.set.File); msg != "" {
		t.out.Log("TASK", msg)
		t.out.Warn(msg)
	}
	return nil
}

// parse reads the plan's bytes as they were at another moment (the
// snapshot), its tasks named as the loop knows them.
func (t *Plan) parse(data []byte) (*plan.Plan, error) {
	p, err := plan.Parse(t.set.File, data)
	if err == nil {
		t.keepIDs(p)
	}
	return p, err
}

// keepIDs names each task as the loop's record knows it (KeepIDs).
func (t *Plan) keepIDs(p *plan.Plan) { KeepIDs(p, t.record()) }

// KeepIDs names a Markdown task that has no id of its own as a loop's
// record knows it, by its title: a task the agent inserted above it would
// otherwise take its place number, and with it its attempts and verdicts.
func KeepIDs(p *plan.Plan, rec *state.Tasks) {
	known := make([]plan.Known, len(rec.Items))
	for i, item := range rec.Items {
		known[i] = plan.Known{ID: item.ID, Title: item.Title}
	}
	p.KeepIDs(known, recordedTitle)
}

// sync brings the record's tasks and counts up to the plan as last read,
// keeping what the loop knows of each (attempts, iterations, verdicts).
func (t *Plan) sync() {
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
func (t *Plan) skipped(id string) bool {
	item := t.record().Item(id)
	return item != nil && (item.State == taskSkipped || item.State == taskReview || item.State == taskFix || item.State == taskPassed)
}

// Left reports whether a task is left to work on, as the plan last read
// says; with none, the tasks that can never start (they wait on a skipped
// one) are set aside, in iteration n's log.
func (t *Plan) Left(n int) bool {
	pt, _ := t.pick(n)
	return pt != nil
}

// Skipped are the tasks the loop set aside, in the plan's order.
func (t *Plan) Skipped() []string {
	var skipped []string
	for _, item := range t.record().Items {
		if item.State == taskSkipped {
			skipped = append(skipped, item.ID)
		}
	}
	return skipped
}

// pick chooses the next iteration's task and mode: a review waiting, then
// a fix asked for, then the plan's next open task. With none, it sets aside
// the tasks that can never start (they wait on a skipped one) and returns
// nil; n is the loop's iteration, for the log.
func (t *Plan) pick(n int) (*plan.Task, string) {
	r := t.record()
	for _, want := range []struct{ state, mode string }{{taskReview, modeReview}, {taskFix, modeFix}} {
		for _, item := range r.Items {
			if pt := t.plan.Task(item.ID); item.State == want.state && pt != nil {
				return pt, want.mode
			}
		}
	}
	if id := t.set.TaskID; id != "" { // the fan's task alone, whatever it waits on: the fan started it when it could
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
			item.Verdicts = append(item.Verdicts, state.TaskVerdict{Iteration: n, Verdict: "skipped",
				Reason: "it waits on a task that is skipped or not in the plan"})
			t.out.Log("TASK", fmt.Sprintf("iteration %d task %s skipped: it waits on a task that is skipped or not in the plan", n, item.ID))
			r.Open--
			r.Skipped++
		}
	}
	return nil, ""
}

// Begin starts iteration n on the task pick chooses: it notes the plan and
// the work as they are, records the task's try, and returns the prompt's
// task placeholders (the diff only when text asks for it); attempts are
// the tries a task gets, as now in force.
func (t *Plan) Begin(n int, text string, attempts int) *prompt.Task {
	if !t.On() || t.plan == nil {
		return nil
	}
	pt, mode := t.pick(n)
	if pt == nil { // the gate saw one a moment ago; the plan is as it read it
		return nil
	}
	r := t.record()
	r.Current, r.Mode = pt.ID, mode
	item := r.Item(pt.ID)
	countTry(item, n, mode)
	if mode == modeReview {
		_ = os.Remove(t.work.notes) // a review's notes are its own
	}
	t.snapshot, t.edited = t.data, false
	if err := t.set.Store.WriteFile(state.PlanBefore, t.data); err != nil {
		t.out.Warn(fmt.Sprintf("keep the plan before iteration %d: %v", n, err))
	}
	now := t.work.note(r, n)
	v := &prompt.Task{ID: pt.ID, Text: pt.Text, Done: r.Done, Total: r.Total, Left: r.Total - r.Done, Attempt: item.Attempts, Mode: mode}
	if mode == modeFix || mode == modeReview {
		v.ReviewFeedback = item.Notes
	}
	if strings.Contains(text, "{{diff}}") {
		d, err := t.work.diff(r, now)
		if err != nil {
			t.out.Warn(fmt.Sprintf("diff of the work: %v", err))
		}
		v.Diff = d
	}
	says := taskText{file: t.set.File, notes: t.work.notes, format: t.plan.Format, reviews: t.reviews()}
	v.Block, v.ReviewFile = says.block(pt, mode, item, r.Done, r.Total, attempts), t.work.notes
	if mode == modeReview {
		v.ReviewLine = says.reviewAlone(pt)
		if gitwork.InGitRepo(t.set.Dir) { // the review's notes file is nobody's file in the person's checkout
			gitwork.IgnoreOwn(t.set.Dir)
		}
	}
	try := fmt.Sprintf("attempt=%d/%d", item.Attempts, attempts)
	if mode == modeReview {
		try = fmt.Sprintf("review=%d/%d", item.Reviews, t.set.ReviewCap)
	}
	t.out.Log("TASK", fmt.Sprintf("iteration %d task %s %s %s", n, pt.ID, mode, try))
	return v
}

// countTry counts iteration n as a try of item in mode (a review, or an
// attempt); a usage limit gives its iteration back: not a new try.
func countTry(item *state.TaskItem, n int, mode string) {
	if k := len(item.Iterations); k > 0 && item.Iterations[k-1] == n {
		return
	}
	item.Iterations = append(item.Iterations, n)
	if mode == modeReview {
		item.Reviews++
	} else {
		item.Attempts++
	}
}

// AgentWorked reports whether the iteration that ended so was the agent's
// own try at the work, which --stall-limit counts when it changed nothing:
// not the person's skip or retry, not a review (which changes nothing by design).
func (t *Plan) AgentWorked(end iteration.Ending) bool {
	if end == iteration.EndSkipped || end == iteration.EndRetried {
		return false
	}
	return !t.On() || t.record().Mode != modeReview
}

// FromTaskBase reports whether iteration n's change is measured from the
// task's base (a fan's task carried on), not from where the iteration began.
func (t *Plan) FromTaskBase(n int) bool { return t.On() && t.work.fromBase(t.record(), n) }

// Changed reports whether the iteration changed the work (the plan
// aside) or HEAD; with nothing noted before, it cannot tell and says yes.
func (t *Plan) Changed() bool { return t.work.changed(t.record()) }

// ForCommit is what --commit's message says of the iteration's task: its
// verdict and title ("task 2 done: Add the parser"; "" without a task), and
// whether the loop edited the plan since the iteration began.
func (t *Plan) ForCommit(verdict string) (string, bool) {
	if !t.On() || verdict == "" {
		return "", t.edited
	}
	head, _, _ := strings.Cut(verdict, ": ")
	if item := t.record().Item(t.lastID); item != nil && strings.HasPrefix(head, "task "+t.lastID+" ") {
		head += ": " + item.Title
	}
	return head, t.edited
}

// IgnoresDone reports whether a done signal must not end the loop: with a
// plan, the plan says when the work is done. It changes nothing: the loop
// tells it (DoneIgnored) and removes the done file, or it would end every
// iteration at once.
func (t *Plan) IgnoresDone() bool { return t.On() }

// DoneIgnored tells, the first time, that a done signal in iteration n did
// not end the loop.
func (t *Plan) DoneIgnored(n int) {
	if t.doneSaid || !t.On() {
		return
	}
	t.doneSaid = true
	r := t.record()
	t.out.Say(fmt.Sprintf("done signal ignored: the plan has %d of %d tasks open; it ends when they are done", r.Total-r.Done, r.Total))
	t.out.Log("TASK", fmt.Sprintf("iteration %d done signal ignored: the plan decides (open=%d)", n, r.Total-r.Done))
}

// Shown is the plan's progress for the status line: "4/12"; a loop on
// one task of it (a fan's, only) its task, "task 3"; "" without one.
func Shown(r *state.Tasks, only string) string {
	if r == nil || r.Total == 0 {
		return ""
	}
	if only != "" {
		return "task " + only
	}
	return fmt.Sprintf("%d/%d", r.Done, r.Total)
}

// TakeUp takes from the last run of the loop on the same plan the tasks it
// left implemented and not yet reviewed, or sent back by a review: a new
// run reviews (or fixes) them first, as that run would have, instead of
// taking a tick no review saw for done.
func (t *Plan) TakeUp(last *state.State) {
	if !t.On() || last == nil || last.Tasks == nil || last.Tasks.File != t.set.File {
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
		t.out.Log("TASK", fmt.Sprintf("task %s: the last run left it waiting for its %s; it comes first", item.ID, map[bool]string{true: "fix", false: "review"}[carried.State == taskFix]))
	}
}

// Resume takes up a resumed loop's plan: read afresh, and the bytes it had
// before the iteration a previous watcher started.
func (t *Plan) Resume() {
	if !t.On() {
		return
	}
	if err := t.read(); err != nil {
		t.out.Warn(err.Error())
	}
	if data, err := os.ReadFile(t.set.Store.Path(state.PlanBefore)); err == nil {
		t.snapshot = data
	}
}
