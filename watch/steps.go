package watch

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/progress"
	"github.com/ralph-tmux/ralph.tmux/watch/record"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// settle records how an iteration ended and goes by decide: the loop's
// exit, or (after the steps, any backoff and the restart delay) nil for
// another iteration.
func (l *Loop) settle(ctx context.Context, it iteration.Outcome, started time.Time) *Exit {
	ended := l.Clock.Now()
	l.casts.End()
	l.rec.IterationEnded(ended)
	saved := make(chan struct{})
	go func() { l.pane.SaveScreen(); close(saved) }() // meanwhile the state is written
	defer func() { <-saved }()                        // the next agent's screen is not this one's

	r, d := endings[it.Ending], decide(it, facts{})
	// The agent's turn is over and it runs on: its last words may not be written yet.
	l.spend.TurnOver(d.done || r.turnOver)
	if r.receiptNow && !d.done {
		recordSpend(l, nil) // its tokens were spent all the same: they count towards the budget
	}
	switch d.next {
	case leave:
		return leaveNow(l, it)
	case runSteps, endFatal:
	default:
		return stopOn(ctx, l, it, d.next)
	}
	account(l, it, ended.Sub(started))
	if d.next == endFatal {
		return fatalExit(l, it)
	}
	rep := &report{it: it, took: ended.Sub(started)}
	for _, step := range steps {
		if stop := step(ctx, l, rep); stop {
			break
		}
	}
	if ctx.Err() != nil {
		return pausedBy(l, endings[iteration.EndInterrupted])
	}
	return goOnAfter(ctx, l, it, decide(it, factsOf(l, rep)))
}

// account records the iteration by how it ended: a timer's notice, a
// completed turn or exit, a failure.
func account(l *Loop, it iteration.Outcome, d time.Duration) {
	r := endings[it.Ending]
	failure := r.failure
	switch {
	case r.timer != nil:
		l.rec.Sayf(r.shown, r.timer(inForce(l)))
		l.rec.Log("TIMEOUT", fmt.Sprintf("iteration %d "+r.logged, l.rec.Iteration(), r.timer(inForce(l))))
	case r.completes != "": // a context guard's end logged why
		if r.turnOver {
			l.turnEnded = it.TurnEnded
			l.rec.TurnEnded(it.TurnEnded)
		}
		l.rec.Completed(d, r.completes, it.Ending.Progress())
	case r.exit:
		code := it.Code
		l.rec.Exited(code)
		failure, _ = iteration.ExitFailure(code)
		switch {
		case it.Untaken && code != contract.ExitPause: // it did no work: a bad flag, a missing key, a program that reads no input
			failure = true
		case code == 0:
			l.rec.Completed(d, "exit: 0", "exit=0")
		case code == contract.ExitPause:
			l.rec.Log("END", fmt.Sprintf("iteration %d exit=%d pause", l.rec.Iteration(), code))
		}
	}
	if failure {
		l.rec.Failed()
	}
}

// fatalExit ends the loop when the command is not there or not executable.
func fatalExit(l *Loop, it iteration.Outcome) *Exit {
	_, fatal := iteration.ExitFailure(it.Code)
	e := exitFailed(contract.ReasonFatalExit, "%s: %s (exit %d)", fatal, l.Program(), it.Code)
	e.Logs = []logLine{{"FAIL", fmt.Sprintf("iteration %d exit=%d fatal", l.rec.Iteration(), it.Code)}}
	return e
}

// report is what the steps after an iteration know of it: each reads it
// and adds to it.
type report struct {
	it      iteration.Outcome
	took    time.Duration
	changed bool              // the plan's file changed while the iteration ran
	runs    []checks.CheckRun // the checks' runs
	verdict string            // the task's verdict
	reason  string            // how the progress file and the on-* commands name the iteration's end
	code    string            // the agent's exit status, when it exited
}

// A step is one thing done after every iteration that ended; stop ends
// the steps (an interrupt).
type step func(ctx context.Context, l *Loop, r *report) (stop bool)

// steps are done in turn after every iteration that ended.
var steps = []step{
	func(_ context.Context, l *Loop, _ *report) bool { steer(l); return false }, // steering: a limit raised meanwhile applies to this iteration's verdict
	planStep,
	stallStep,
	func(_ context.Context, l *Loop, _ *report) bool { protect(l); return false }, // protected paths put back before the checks run (--goal)
	checksStep,
	receiptStep,
	verdictStep,
	progressStep,
	commitStep,
	func(_ context.Context, l *Loop, _ *report) bool { l.rec.Save(); return false }, // save
	onIterationEndStep,
}

// planStep notes whether the plan changed, before the loop writes anything.
func planStep(_ context.Context, l *Loop, r *report) bool {
	r.changed = l.tasks.Changed()
	return false
}

// stallStep counts the iterations in a row that changed nothing.
func stallStep(_ context.Context, l *Loop, r *report) bool {
	if l.tasks.AgentWorked(r.it.Ending) {
		if same, known := l.work.Unchanged(); known { // the work since the task's base (a fan's task carried on) is this iteration's change
			tell(l.rec, l.work.Stalled(l.rec.Iteration(), l.rec.Unchanged(same && !(r.changed && l.tasks.FromTaskBase(l.rec.Iteration())))))
		}
	}
	return false
}

func checksStep(ctx context.Context, l *Loop, r *report) bool {
	r.runs = recordChecks(l.rec, l.work.Run(ctx, at(l.rec, inForce(l)), planVerify(l)))
	return ctx.Err() != nil
}

// receiptStep records what the iteration spent.
func receiptStep(_ context.Context, l *Loop, r *report) bool {
	recordSpend(l, r.runs)
	return false
}

// verdictStep judges the iteration's task, or settles the one the person
// ended (skip, retry).
func verdictStep(_ context.Context, l *Loop, r *report) bool {
	verdict, steered := l.tasks.Steered(l.rec.Iteration(), r.it.Ending)
	if !steered {
		verdict = l.tasks.Judge(progress.Ended{N: l.rec.Iteration(), Attempts: l.steer.Limits.TaskAttempts, Changed: r.changed, Runs: r.runs, Outcome: r.it})
	}
	r.verdict = verdict
	return false
}

// progressStep adds the iteration's section to the progress file.
func progressStep(_ context.Context, l *Loop, r *report) bool {
	r.reason, r.code = iteration.EndReason(r.it), ""
	if endings[r.it.Ending].exit {
		r.code = strconv.Itoa(r.it.Code)
	}
	tell(l.rec, l.work.AppendProgress(l.rec.Iteration(), l.rec.State().LastIterationStarted, r.reason, r.code, r.took, r.runs, r.verdict))
	return false
}

// commitStep commits the iteration's work when its checks passed.
func commitStep(_ context.Context, l *Loop, r *report) bool {
	if checks.AllPassed(r.runs) {
		task, edited := l.tasks.ForCommit(r.verdict)
		tell(l.rec, l.work.Commit(l.rec.Iteration(), r.runs, task, r.verdict, edited))
	}
	return false
}

func onIterationEndStep(_ context.Context, l *Loop, r *report) bool {
	tell(l.rec, l.work.OnCommand(at(l.rec, inForce(l)), "on-iteration-end", l.OnIterationEnd, r.code, r.reason))
	return false
}

// factsOf are the facts decide goes by once the steps have run.
func factsOf(l *Loop, r *report) facts {
	f := facts{checks: checksFailed, plan: l.tasks.On(), failures: l.rec.State().ConsecutiveFailures,
		stalled: l.StallLimit > 0 && l.rec.State().UnchangedIterations >= l.StallLimit}
	if checks.AllPassed(r.runs) {
		f.checks = checksPassed
	}
	return f
}

// goOnAfter acts on what decide said after the steps: the loop's end, or
// the wait before the next iteration.
func goOnAfter(ctx context.Context, l *Loop, it iteration.Outcome, d decision) *Exit {
	if d.ignoreDone {
		setDoneAside(l)
	}
	switch d.next {
	case endDoneFile:
		return doneFileExit(l)
	case endPattern:
		return exitComplete(contract.StatusDone, contract.ReasonDonePattern, contract.ExitDone, "done pattern matched, stopping loop", "")
	}
	if d.rejectDone {
		tell(l.rec, checks.RejectDone(l.rec.Iteration(), l.DoneFile))
	}
	switch n := l.rec.State().UnchangedIterations; d.next {
	case pauseAgent:
		return exitPaused(fmt.Sprintf("the agent exited %d, pausing loop ('ralph-watch resume %s' goes on)", contract.ExitPause, l.Name), "agent_exit_42", contract.ReasonPaused)
	case endStalled:
		e := exitWith(contract.StatusFailed, contract.ReasonStalled, contract.ExitFailed)
		e.Say = fmt.Sprintf("%d iterations in a row changed nothing, stopping loop", n)
		e.Logs = []logLine{{"FAIL", fmt.Sprintf("iteration %d stalled unchanged=%d", l.rec.Iteration(), n)}}
		return e
	case endFailures:
		e := exitWith(contract.StatusFailed, contract.ReasonConsecutiveFailures, contract.ExitFailed)
		e.Say = fmt.Sprintf("%d consecutive failures, stopping loop", l.rec.State().ConsecutiveFailures)
		e.Logs = []logLine{{"FAIL", attemptLine(l, it)}}
		return e
	case retry:
		return retryAfter(ctx, l, it)
	}
	return nextAfter(ctx, l)
}

// attemptLine is the record's line of a failed iteration: how, and how
// many failures in a row.
func attemptLine(l *Loop, it iteration.Outcome) string {
	_, logged := iteration.FailureText(it)
	return fmt.Sprintf("iteration %d %s attempt=%d/%d", l.rec.Iteration(), logged, l.rec.State().ConsecutiveFailures, maxFailures)
}

// retryAfter waits a failure's backoff before the next iteration.
func retryAfter(ctx context.Context, l *Loop, it iteration.Outcome) *Exit {
	n := l.rec.State().ConsecutiveFailures
	shown, _ := iteration.FailureText(it)
	steer(l)         // a limit set meanwhile counts
	if noneLeft(l) { // no retry to wait for
		l.rec.Sayf("iteration %d failed (%s)", l.rec.Iteration(), shown)
		l.rec.Log("FAIL", attemptLine(l, it))
		l.rec.Save()
		return nil
	}
	wait := Backoff(n)
	if l.BackoffWait != nil {
		wait = l.BackoffWait(n)
	}
	l.rec.Sayf("iteration %d failed (%s), retrying in %s (attempt %d/%d)", l.rec.Iteration(), shown, seconds(wait), n, maxFailures)
	l.rec.Log("FAIL", attemptLine(l, it)+" backoff="+seconds(wait))
	l.rec.Save()
	show(l, contract.StatusBackoff)
	if e := l.wait(ctx, wait); e != nil {
		return e
	}
	return nextAfter(ctx, l)
}

// nextAfter waits the restart delay before the next iteration, unless the
// limits allow none (a limit set meanwhile counted): the gates then end the loop.
func nextAfter(ctx context.Context, l *Loop) *Exit {
	l.rec.Save()
	steer(l)
	if noneLeft(l) {
		return nil
	}
	return l.wait(ctx, l.RestartDelay)
}

// at is where the loop is, for the work between iterations: the iteration
// and the iteration limit in force.
func at(rec *record.Record, cfg *Config) checks.At {
	return checks.At{Iteration: rec.Iteration(), MaxIterations: cfg.MaxIterations}
}

// tell hands what the work between iterations tells to the record.
func tell(rec *record.Record, lines []checks.Told) {
	for _, t := range lines {
		switch {
		case t.Event != "":
			rec.Log(t.Event, t.Text)
		case t.Warn:
			rec.Warnf("%s", t.Text)
		default:
			rec.Sayf("%s", t.Text)
		}
	}
}

// recordChecks hands a run of the checks (nil: none ran) to the record and
// returns its runs.
func recordChecks(rec *record.Record, ran *checks.Ran) []checks.CheckRun {
	if ran == nil {
		return nil
	}
	tell(rec, ran.Told)
	rec.ChecksRan(ran.Record)
	return ran.Runs
}

// checksPass judges a done signal found before an iteration: by the latest
// iteration's checks if they ran, else by running them now.
func checksPass(ctx context.Context, l *Loop) bool {
	passed, ran := l.work.Pass(ctx, at(l.rec, inForce(l)), planVerify(l))
	if ran != nil {
		recordChecks(l.rec, ran)
		l.rec.Save()
	}
	return passed
}

// seconds prints a duration in whole seconds, the way the swarm messages do.
func seconds(d time.Duration) string { return fmt.Sprintf("%ds", int(d/time.Second)) }

// wait waits d between iterations; an interrupt or a request that comes
// meanwhile pauses or stops the loop.
func (l *Loop) wait(ctx context.Context, d time.Duration) *Exit {
	end := l.asks.Wait(ctx, d)
	if end == iteration.EndWaitOver { // not an ending: the wait ran its course
		return nil
	}
	return leaveBetween(l, end)
}

// waitForLimit waits out a usage limit until its reset (or the limit wait
// when no time is written). The iteration is not counted, nor is it a failure.
func waitForLimit(ctx context.Context, l *Loop, text string) *Exit {
	now := l.Clock.Now()
	until, ok := agent.ParseReset(text, now)
	if !ok || until.Sub(now) > maxLimitWait {
		until = now.Add(l.LimitWait)
	}
	if least := cmp.Or(l.MinLimitWait, minLimitWait); until.Sub(now) < least {
		until = now.Add(least)
	}
	l.steer.GiveBack()      // its notes go to its new start
	l.rec.WaitingFor(until) // the iteration is run again after the reset
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	l.rec.Sayf("usage limit reached (%s), %s", strings.TrimSpace(line), resetNote(until))
	l.rec.Log("LIMIT", fmt.Sprintf("iteration %d not counted, waiting until %s", l.rec.Iteration()+1, state.Stamp(until)))
	l.rec.AgentState(agent.StateLimited)
	return waitForReset(ctx, l, until)
}

// waitForReset waits until a usage limit resets; a pause meanwhile keeps
// the reset time, so resume waits on instead of starting an iteration.
func waitForReset(ctx context.Context, l *Loop, until time.Time) *Exit {
	now := l.Clock.Now()
	l.status.SetNote(resetNote(until))
	show(l, contract.StatusWaiting)
	wait := until.Sub(now)
	if l.steer.Limits.MaxTime > 0 {
		wait = max(0, min(wait, l.steer.Limits.MaxTime-now.Sub(l.start)))
	}
	return l.wait(ctx, wait)
}

func resetNote(until time.Time) string {
	return "waiting for limit reset (" + until.Format("15:04") + ")"
}

// resumeWait goes back to waiting for a usage limit's reset when the loop
// was paused while it waited; waited is false when there is nothing to wait for.
func resumeWait(ctx context.Context, l *Loop) (e *Exit, waited bool) {
	until, err := time.ParseInLocation(state.TimeFormat, l.rec.State().WaitingUntil, time.Local)
	if err != nil {
		return nil, false
	}
	if !until.After(l.Clock.Now()) {
		return nil, true // the reset has passed: the next iteration starts
	}
	l.rec.Sayf("resuming the wait for the usage limit's reset (%s)", until.Format("15:04"))
	l.status.Told(contract.StatusWaiting) // the person was told when the limit came, and resumed it knowing
	return waitForReset(ctx, l, until), true
}

// timeLimit ends the iteration running when the loop's max time is up
// (an iteration.Interrupt).
type timeLimit struct {
	end   time.Time
	clock clock.Clock
}

func (t timeLimit) Check() (iteration.Ending, bool) {
	if t.clock.Now().Before(t.end) {
		return iteration.EndNone, false
	}
	return iteration.EndMaxTime, true
}

// The loop's side of its spending (package spending): the receipts it
// returns go into the record.

// beginSpend notes where the iteration that starts now begins: its work
// tree is saved with its start, and a resumed loop shows what it spent before.
func beginSpend(l *Loop, now time.Time, notes []string) {
	l.rec.IterationBegins(l.spend.Begin(l.rec.Iteration(), now, notes))
}

// recordSpend writes the receipt of the iteration that ended, once.
func recordSpend(l *Loop, runs []checks.CheckRun) {
	r, ok := l.spend.Record(runs, l.hooks.Reports(agent.HookTurnEnd) && !l.hooks.Lost())
	if !ok {
		return
	}
	l.rec.Receipt(r)
	l.spend.WarnUnpriced(r, l.steer.Limits.Budget)
}
