package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/hooks"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
	"github.com/ralph-tmux/ralph.tmux/watch/pane"
	"github.com/ralph-tmux/ralph.tmux/watch/progress"
	"github.com/ralph-tmux/ralph.tmux/watch/prompt"
	"github.com/ralph-tmux/ralph.tmux/watch/record"
	"github.com/ralph-tmux/ralph.tmux/watch/spending"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/steering"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Loop supervises one pane: it runs iterations until done, a limit, a fatal
// failure or an interrupt. It decides; its parts do and record:
//
//	iteration.Watch    one iteration's agent: start, prompt, output, screen, turn end (package iteration)
//	record.Record      state.json, the logs and the receipts: the one writer of the loop's state (package record)
//	pane.Line          the pane's @ralph-* options, the beat, the notices (package pane)
//	pane.Pane          the pane: its output stream, remain-on-exit, leftovers; pane.Cast its casts (package pane)
//	hooks.Hooks        what the agent reports itself, and the command it runs with (package hooks)
//	spending.Spending  receipts and the budget (package spending)
//	checks.Work        checks, progress file, commit, on-* commands (package checks); signalFiles the done and pause files (gates.go)
//	requests           pause and stop requests (steering.go)
//	steering           the person's notes and new limits, between iterations (steering.go)
//	spending.Guard     the agent's context window: a nudge, then a fresh agent (package spending)
//	progress.Plan      the plan of tasks: one an iteration, each judged by the loop (package progress; its loop side at the end of loop.go)
//
// Before each iteration the gates (gates.go), after it the steps (steps.go);
// what comes next is decide's (decide.go), a pure function over the endings
// table; every end of the loop is an Exit (exit.go), carried out in one place.
type Loop struct {
	Config // read only once the loop starts
	Tmux   tmux.Client
	Store  *state.Store
	Out    io.Writer // progress lines, "[ralph] NAME: …"
	Err    io.Writer // warnings and errors
	Clock  clock.Clock
	Wake   <-chan os.Signal // a command left a request (SIGUSR1)

	rec    *record.Record
	status *pane.Line
	pane   *pane.Pane
	hooks  *hooks.Hooks
	casts  *pane.Cast
	spend  *spending.Spending
	work   *checks.Work // what runs between iterations: checks, progress file, commit, on-* commands
	files  *signalFiles // the done and pause files
	asks   *steering.Requests
	steer  *steering.Steering
	guard  *spending.Guard
	tasks  *progress.Plan
	goal   *judge.Session // goal mode (--goal); nil: none

	start     time.Time // when the loop first started: max time counts from it
	turnEnded time.Time // when the last iteration's turn ended, for the turn gap
	orphaned  bool      // resumed from a watcher that died (killed), not one that paused
	// followFrom is the iteration after which a round of ralph-watch
	// follow's fixes runs (its loop ended done: the done file and the plan
	// do not end it before that one iteration); -1: no round.
	followFrom int
}

// assemble makes the loop's parts, each given what it needs.
func (l *Loop) assemble() {
	if l.Clock == nil {
		l.Clock = clock.Real{}
	}
	cfg := &l.Config
	l.rec = record.New(cfg.Name, cfg.Agent.Knows(), l.Store, l.Clock, l.Out, l.Err)
	given := pane.Given{Tmux: l.Tmux, Clock: l.Clock, Store: l.Store, Warnf: l.rec.Warnf}
	l.status = pane.NewLine(given, pane.LineSettings{Name: cfg.Name, Pane: cfg.Pane, BeatEvery: cfg.BeatEvery})
	l.pane = pane.New(given)
	l.hooks = hooks.New(hooks.Settings{Command: cfg.Command, Executable: cfg.Executable, PromptMode: cfg.PromptMode,
		TurnHook: cfg.TurnHook, Agent: cfg.Agent, AgentHome: cfg.AgentHome}, l.Store, l.rec.Iteration, l.rec.Warnf)
	l.casts = pane.NewCast(given, pane.CastSettings{Limit: cfg.CastLimit, Name: cfg.Name, PromptMode: cfg.PromptMode}, l.pane, l.rec.Iteration)
	l.spend = spending.New(cfg, l.Store, l.Tmux, l.Clock, l.Wake, l.rec, l.hooks.Getenv)
	l.work = checks.NewWork(checksSettings(cfg, l.Store, l.Clock))
	l.files = &signalFiles{cfg: cfg}
	l.asks = &steering.Requests{Store: l.Store, Clock: l.Clock, Woken: l.Wake}
	l.steer = steering.New(steering.From(*cfg), l.rec, l.ran)
	l.asks.Looked = func() { showLimit(l) }
	l.guard = spending.NewGuard(cfg, l.Tmux, l.Clock, l.rec)
	l.tasks = newTasks(l, nil)
}

// checksSettings is what the work between iterations reads of the loop's
// settings c, in its places (a resumed loop's taken from its record).
func checksSettings(c *Config, store *state.Store, clk clock.Clock) checks.Settings {
	return checks.Settings{
		Name: c.Name, Dir: c.Dir, Checks: c.Checks, Timeout: c.CheckTimeout, OutputChars: c.CheckOutputChars,
		StateRoot: filepath.Dir(store.Dir), ChecksDir: store.Path(state.ChecksDir), HooksLog: store.Path(state.OnCommandsLog),
		ProgressFile: c.ProgressFile, Commits: c.Commit, TasksFile: c.TasksFile, StallLimit: c.StallLimit, Clock: clk,
	}
}

// iteration is the watch of one iteration's agent (package iteration),
// given what it needs of the loop's parts; nonce "" takes any exit marker
// as this agent's (one a previous watcher started).
func (l *Loop) iteration(nonce string) *iteration.Watch {
	interrupts := []iteration.Interrupt{l.files, l.asks}
	in := l.steer.Limits
	if in.MaxTime > 0 {
		interrupts = append(interrupts, timeLimit{end: l.start.Add(in.MaxTime), clock: l.Clock})
	}
	interrupts = append(interrupts, spending.Context(l.guard, l.spend, l.rec.Iteration()), l.spend.Budget(in.Budget))
	return iteration.New(iteration.Needs{
		Settings: l.settings(), Tmux: l.Tmux, Clock: l.Clock,
		Record: l.rec, Status: iterationStatus{l},
		Pane: l.pane, Hooks: l.hooks, Cast: l.casts, Spend: l.spend, Requests: l.asks,
		Interrupts: interrupts,
	}, nonce)
}

// settings is what an iteration reads of the loop's configuration: the
// loop's settings, with the PATH its record kept.
func (l *Loop) settings() iteration.Settings {
	s := *inForce(l)
	s.Path = l.rec.State().Path // as at the loop's start, whoever resumed it
	return s
}

// show records status (saved) and then shows it outside the pane, with
// what the record says of the loop now.
func show(l *Loop, status contract.Status) {
	now := l.Clock.Now()
	facts := pane.Facts{Now: now, Iteration: l.rec.Iteration(), Max: l.steer.PendingMax(), Cost: l.rec.Cost(),
		Tasks: tasksShown(l.rec.State().Tasks, l.TaskID), Error: l.rec.State().Error, Dir: l.Dir}
	l.rec.Status(status, l.status.Reason(status), now)
	l.status.Show(status, facts)
}

// showLimit shows again the status last shown when the limit to show has
// changed since (a set request the loop takes at its next iteration).
func showLimit(l *Loop) {
	if status, again := l.status.Again(l.steer.PendingMax()); again {
		show(l, status)
	}
}

// iterationStatus is the status line as an iteration shows it (iteration.Status).
type iterationStatus struct{ l *Loop }

func (x iterationStatus) Show(status contract.Status) { show(x.l, status) }

func (x iterationStatus) Starting() {
	x.l.status.SetReason(x.l.ReadyWait())
	show(x.l, contract.StatusStarting)
}

// Result is how a loop ended: the process exit code and the recorded reason.
type Result struct {
	Code   int
	Reason contract.Reason
}

// Run loops until the end and returns the exit code.
func (l *Loop) Run(ctx context.Context) Result {
	l.assemble()
	var res Result
	if e := l.open(); e != nil {
		res = l.exit(e)
	} else {
		stopBeat := l.status.Beat()
		res = l.exit(l.run(ctx))
		stopBeat()
		if shell := l.pane.GiveBack(res.Reason); shell > 0 {
			l.rec.ShellStarted(shell) // the pane runs a shell now, not the agent
		}
	}
	l.status.Ended(l.Dir) // the pane is back to a shell: the bell can ring in it
	return res
}

// Prepare records a loop that is not started: its state (paused, at
// iteration 0) and the pane's options, for resume to start it later.
func (l *Loop) Prepare() error {
	l.assemble()
	l.start = l.Clock.Now()
	l.rec.NewRun(l.start)
	l.rec.WriteSetup(recordSetup(l))
	if err := l.rec.Prepared(); err != nil {
		return err
	}
	l.rec.Log("PAUSE", "loop prepared, not started")
	l.status.SetReason("not started ('ralph-watch resume' starts it)")
	show(l, contract.StatusPaused)
	return nil
}

// open records the loop's start (a resumed one's state read back), installs
// the agent's hooks and takes over the pane; an exit when it cannot start.
func (l *Loop) open() *Exit {
	l.start = l.Clock.Now()
	l.followFrom = -1
	var ended contract.Reason // how the run resumed ended
	if l.Resume {
		st, err := l.Store.Load()
		if err != nil {
			return &Exit{Unstarted: true, Code: contract.ExitFailed, Reason: contract.ReasonNoState, Error: err.Error()}
		}
		ended = takeUp(l, st)
	} else {
		last := lastRun(l.Store)
		l.rec.NewRun(l.start)
		takeUpTasks(l, last)
	}
	l.rec.WriteSetup(recordSetup(l))
	l.hooks.Install()
	l.rec.Save()
	if l.Resume {
		l.rec.Log("RESUME", fmt.Sprintf("loop resumed at iteration %d", l.rec.Iteration()))
		if st := l.rec.State(); !inProgress(st) { // an iteration left running is judged when it ends
			if r, ok := l.spend.RecordCut(&st); ok { // before the plan is reopened: its receipt holds what the agent changed
				l.rec.Receipt(r)
			}
			l.tasks.CutShort(l.rec.Iteration(), cmp.Or(string(ended), "its watcher went"))
		}
	}

	kept, err := l.pane.TakeOver(pane.Settings{Pane: l.Pane, Dir: l.Dir, EndCommand: l.EndCommand, Resume: l.Resume},
		pane.Kept{Remain: l.rec.State().RemainOnExit, ServerPID: l.rec.State().ServerPID})
	l.rec.PaneRemain(*kept.Remain)
	l.rec.PaneServer(kept.ServerPID)
	if err != nil {
		return lostExit(l, err)
	}
	return nil
}

// takeUp takes up a resumed loop's record st: its places, its counts, its
// spend and the limits the person set; it returns how the run resumed ended.
func takeUp(l *Loop, st *state.State) contract.Reason {
	l.orphaned = st.Status == state.Running
	ended := contract.ReasonOf(st)
	l.Config.TakePlaces(st) // where the loop read and worked before, wherever resume was typed
	switch ended {          // resumed once the person mended it: counted afresh
	case contract.ReasonConsecutiveFailures:
		st.ConsecutiveFailures = 0
	case contract.ReasonStalled:
		st.UnchangedIterations = 0
	}
	l.rec.ResumeRun(st)
	l.followFrom = followRound(l.Store, st)
	l.spend.Adopt(st)
	l.steer.Limits.Apply(st.Set) // what the person set outlasts the first run's flags
	if t, err := time.ParseInLocation(state.TimeFormat, st.Started, time.Local); err == nil {
		l.start = t // max-time counts from the loop's first start
	}
	l.work.Settings = checksSettings(&l.Config, l.Store, l.Clock) // in the places taken
	last := l.rec.State()
	l.work.Restore(last.LastChecks())
	resumeTasks(l) // in the places the record names
	return ended
}

// run runs the iterations, each after the gates, until one of them ends the loop.
func (l *Loop) run(ctx context.Context) *Exit {
	startGoal(l)
	takenUp := l.Resume && inProgress(l.rec.State()) // an iteration left running ends here: --judge-every counts it
	if e := judgeGate(ctx, l, l.resumeIteration(ctx), takenUp); e != nil {
		return e
	}
	for {
		if e := l.beforeIteration(ctx); e != nil { // each gate's done judged there
			return e
		}
		if e := judgeGate(ctx, l, l.iterate(ctx), true); e != nil {
			return e
		}
	}
}

// resumeIteration takes up what a resumed loop left: the wait for a usage
// limit's reset, or the iteration it left running.
func (l *Loop) resumeIteration(ctx context.Context) *Exit {
	if !l.Resume {
		return nil
	}
	if l.rec.State().WaitingUntil != "" { // paused while it waited for a limit's reset
		if e, waited := resumeWait(ctx, l); e != nil || waited {
			return e
		}
	}
	if !inProgress(l.rec.State()) {
		return nil
	}
	started, _ := time.ParseInLocation(state.TimeFormat, l.rec.State().LastIterationStarted, time.Local)
	l.rec.Sayf("resuming iteration %s", l.rec.Progress(l.steer.Limits.MaxIterations))
	var it iteration.Outcome
	untyped := l.rec.TakePromptUntyped()
	switch w := l.iteration(""); {
	case untyped && l.orphaned:
		it = startAgain(ctx, l, started)
	case untyped && l.PromptMode == agent.ModeType:
		it = w.AdoptUntyped(ctx, started)
	default:
		show(l, contract.StatusRunning)
		it = w.Adopt(ctx, started)
	}
	return l.settle(ctx, it, started)
}

// iterate runs one iteration: its prompt read and composed, its start
// recorded, its agent watched, and how it ended settled.
func (l *Loop) iterate(ctx context.Context) *Exit {
	text, err := readPrompt(ctx, l)
	var notUTF8 *prompt.NotUTF8Error
	if errors.As(err, &notUTF8) {
		return promptRefused(l, notUTF8)
	}
	if err != nil { // before the count: the iteration that cannot run is not counted as run
		return exitFailed(contract.ReasonPromptFileMissing, "%v", err)
	}
	now := l.Clock.Now()
	n := l.rec.StartIteration(now, l.turnEnded)
	l.turnEnded = time.Time{}
	l.status.SetNote("")
	notes := l.steer.ForPrompt()
	prompt := prompt.Compose(text, prompt.Vars{Iteration: n, MaxIterations: l.steer.Limits.MaxIterations, Name: l.Name,
		CheckFailures: prompt.JoinBlocks(l.tasks.Feedback(), l.work.Latest.Feedback), Task: l.tasks.Begin(n, text, l.steer.Limits.TaskAttempts), Notes: notes}, l.CheckFailAction, l.IncludeIterationCount)
	if l.goal != nil {
		goal, _ := l.Goal.ReadGoal()
		prompt = judge.Place(text, prompt, goal, l.goal.Note())
	}
	beginSpend(l, now, notes)
	l.rec.Sayf("starting iteration %s", l.rec.Progress(l.steer.Limits.MaxIterations))
	if err := os.WriteFile(l.Store.Path(state.PromptCopy), []byte(prompt), 0o600); err != nil { // before the record: resume may deliver it
		l.rec.Warnf("save prompt: %v", err)
	}
	if err := l.rec.TrySave(); err != nil { // no iteration runs that the record would not show
		return exitFailed(contract.ReasonStateUnwritable, "cannot record iteration %d, stopping loop: %v", n, err)
	}
	l.rec.Log("START", "iteration "+l.rec.Progress(l.steer.Limits.MaxIterations))
	showStart(l)
	return l.settle(ctx, l.iteration(iteration.Nonce()).Run(ctx, prompt), now)
}

// showStart shows the iteration started: until the agent takes a typed
// prompt, starting.
func showStart(l *Loop) {
	if l.PromptMode == agent.ModeType {
		l.status.SetReason(l.ReadyWait())
		show(l, contract.StatusStarting) // until the agent takes the prompt
	} else {
		show(l, contract.StatusRunning)
	}
}

// promptRefused pauses the loop before an iteration whose prompt file is
// not UTF-8: nothing mangled is typed, and once the file is fixed, resume
// goes on. The sentence is the status's reason, a short note the status line's.
func promptRefused(l *Loop, err *prompt.NotUTF8Error) *Exit {
	e := exitPaused(fmt.Sprintf("pausing loop: fix the prompt file, then 'ralph-watch resume %s'", l.Name), "prompt_not_utf8", contract.ReasonPaused)
	e.Error, e.Why, e.Note = err.Error(), err.Error(), "prompt not UTF-8"
	return e
}

// promptGrace is how long a prompt file that is not there is looked for
// again before it counts as lost: an editor that saves by rename removes
// it for a moment.
const promptGrace = 2 * time.Second

// readPrompt reads the prompt file fresh, looking again for a moment when
// it is not there.
func readPrompt(ctx context.Context, l *Loop) (string, error) {
	text, err := prompt.Read(l.PromptFile)
	for end := l.Clock.Now().Add(promptGrace); missingPrompt(err) && l.Clock.Now().Before(end); {
		if !clock.Sleep(ctx, l.Clock, 100*time.Millisecond) {
			break
		}
		text, err = prompt.Read(l.PromptFile)
	}
	return text, err
}

func missingPrompt(err error) bool {
	var pe *prompt.FileError
	return errors.As(err, &pe) && pe.Missing
}

// startAgain starts afresh an iteration whose watcher died before its
// prompt was typed: an agent it may have started never had the prompt, and
// counting its idle screen as a turn would waste the iteration.
func startAgain(ctx context.Context, l *Loop, started time.Time) iteration.Outcome {
	prompt, err := os.ReadFile(l.Store.Path(state.PromptCopy))
	if err != nil {
		l.rec.Warnf("the prompt of iteration %d is lost (%v); watching the agent", l.rec.Iteration(), err)
		show(l, contract.StatusRunning)
		return l.iteration("").Adopt(ctx, started)
	}
	l.rec.Sayf("the prompt of iteration %d never reached the agent; starting its agent again", l.rec.Iteration())
	showStart(l)
	return l.iteration(iteration.Nonce()).Run(ctx, string(prompt))
}

// lastRun is the record the loop's last run left: its state, else the
// newest run kept apart (runs/); nil with none.
func lastRun(store *state.Store) *state.State {
	if st, err := store.Load(); err == nil {
		return st
	}
	if runs := store.Runs(); len(runs) > 0 {
		if st, err := (&state.Store{Dir: runs[len(runs)-1]}).Load(); err == nil {
			return st
		}
	}
	return nil
}

// inProgress reports whether the state left an iteration started and not ended.
func inProgress(st state.State) bool {
	return st.CurrentIteration > 0 && st.LastIterationStarted != "" && st.LastIterationEnded == ""
}

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
