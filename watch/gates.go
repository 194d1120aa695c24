package watch

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// A gate is one stop condition the loop checks before an iteration: the
// loop's exit, or nil to go on.
type gate func(ctx context.Context, l *Loop) *Exit

// gates are checked before each iteration, in turn: a new stop condition
// is one more gate.
var gates = []gate{
	steerGate,         // the person's new limits, before any gate reads them
	requestGate,       // a pause or stop asked between iterations
	interruptGate,     // the watcher was interrupted
	pauseFileGate,     // the pause file
	doneFileGate,      // the done file, which counts only when the checks pass
	tasksGate,         // no task left to work on
	maxTimeGate,       // --max-time
	maxIterationsGate, // --max-iterations
	budgetGate,        // --max-tokens, --max-cost
}

// beforeIteration goes through the gates; when the loop goes on, it notes
// the working tree, to tell whether the iteration changes it.
func (l *Loop) beforeIteration(ctx context.Context) *Exit {
	for _, g := range gates {
		if e := judgeGate(ctx, l, g(ctx, l), false); e != nil { // a goal not met goes on to the next gate
			return e
		}
	}
	l.work.NoteBaseline()
	return nil
}

// steerGate takes what the person set since (notes, limits); it ends nothing.
func steerGate(_ context.Context, l *Loop) *Exit {
	steer(l)
	return nil
}

func requestGate(_ context.Context, l *Loop) *Exit {
	end, ok := l.asks.Take()
	switch {
	case !ok:
		return nil
	case end.NextNow():
		l.rec.Sayf("no iteration runs to end; the next starts now") // a skip or retry that came between iterations
		return nil
	}
	return leaveBetween(l, end)
}

func interruptGate(ctx context.Context, l *Loop) *Exit {
	if ctx.Err() != nil {
		return pausedBy(l, endings[iteration.EndInterrupted])
	}
	return nil
}

func pauseFileGate(_ context.Context, l *Loop) *Exit {
	if checks.FileSeen(l.PauseFile) {
		l.files.pauseSeen = true
		return pausedBy(l, endings[iteration.EndPaused])
	}
	return nil
}

// doneFileGate ends the loop on the done file when the checks pass; when
// they fail it goes on, the done file removed. A plan's loop sets it aside:
// the plan says when the work is done.
func doneFileGate(ctx context.Context, l *Loop) *Exit {
	if !checks.FileSeen(l.DoneFile) || l.inFollowRound() {
		return nil
	}
	if l.tasks.IgnoresDone() {
		setDoneAside(l)
		return nil
	}
	if checksPass(ctx, l) {
		return doneFileExit(l)
	}
	if ctx.Err() != nil {
		return pausedBy(l, endings[iteration.EndInterrupted])
	}
	tell(l.rec, checks.RejectDone(l.rec.Iteration(), l.DoneFile))
	return nil
}

// tasksGate ends the loop when no task is left to work on: all done, or
// the rest skipped. It reads the plan first: a plan never read ends the loop.
func tasksGate(_ context.Context, l *Loop) *Exit {
	t := l.tasks
	if !t.On() || l.inFollowRound() {
		return nil
	}
	err := t.Read() // on an error with a reading before, the next prompt asks the agent to put the plan right
	keepTasks(l)
	if err != nil {
		if t.Unread() {
			return exitFailed(contract.ReasonTasksUnreadable, "%v", err)
		}
		l.rec.Warnf("%v (the last reading stays)", err)
	}
	if t.Left(l.rec.Iteration()) {
		return nil
	}
	r := t.Record()
	if id := l.TaskID; id != "" {
		return taskExit(l, id)
	}
	if r.Skipped == 0 {
		return exitComplete(contract.StatusDone, contract.ReasonTasksDone, contract.ExitDone, fmt.Sprintf("all %d tasks done, stopping loop", r.Total), "")
	}
	skipped := t.Skipped()
	return exitComplete(contract.StatusLimit, contract.ReasonTasksSkipped, contract.ExitLimit,
		fmt.Sprintf("no task left open; %d done, skipped: %s", r.Done, strings.Join(skipped, ", ")), " skipped="+strings.Join(skipped, ","))
}

// taskExit ends a loop that works one task (--task): done, or skipped.
func taskExit(l *Loop, id string) *Exit {
	if l.tasks.Record().Item(id) == nil || slices.Contains(l.tasks.Skipped(), id) {
		return exitComplete(contract.StatusLimit, contract.ReasonTasksSkipped, contract.ExitLimit, fmt.Sprintf("task %s skipped, stopping loop", id), " skipped="+id)
	}
	return exitComplete(contract.StatusDone, contract.ReasonTasksDone, contract.ExitDone, fmt.Sprintf("task %s done, stopping loop", id), " task="+id)
}

func maxTimeGate(_ context.Context, l *Loop) *Exit {
	if l.steer.Limits.MaxTime > 0 && l.Clock.Now().Sub(l.start) >= l.steer.Limits.MaxTime {
		return limitExit(l, contract.ReasonMaxTime, fmt.Sprintf("max time (%s) reached", l.steer.Limits.MaxTime))
	}
	return nil
}

func maxIterationsGate(_ context.Context, l *Loop) *Exit {
	if l.steer.Limits.MaxIterations > 0 && l.rec.Iteration() >= l.steer.Limits.MaxIterations {
		return limitExit(l, contract.ReasonMaxIterations, fmt.Sprintf("max iterations (%d) reached", l.steer.Limits.MaxIterations))
	}
	return nil
}

// budgetGate ends the loop when the receipts have reached the budget.
func budgetGate(_ context.Context, l *Loop) *Exit {
	if !l.steer.Limits.Budget.Set() {
		return nil
	}
	if why, reached := l.steer.Limits.Budget.Reached(l.spend.Spent()); reached {
		return budgetExit(why)
	}
	return nil
}

// noneLeft reports whether the iteration that ended was the last the
// limits allow: the loop ends now, not after the wait before a next one.
func noneLeft(l *Loop) bool {
	return l.steer.Limits.MaxIterations > 0 && l.rec.Iteration() >= l.steer.Limits.MaxIterations ||
		l.steer.Limits.MaxTime > 0 && l.Clock.Now().Sub(l.start) >= l.steer.Limits.MaxTime
}

// leaveBetween pauses or stops the loop on a request that came between
// iterations: the last one is over and recorded, not one for resume to
// take up again.
func leaveBetween(l *Loop, end iteration.Ending) *Exit {
	l.rec.IterationEnded(l.Clock.Now())
	return leaveNow(l, iteration.Outcome{Ending: end, Between: true})
}

// leaveNow pauses or stops the loop at once; a paused loop's agent runs on,
// its iteration not over, for resume to take up.
func leaveNow(l *Loop, it iteration.Outcome) *Exit {
	r := endings[it.Ending]
	if r.agentRuns && !it.Between { // between iterations, the last one is over and recorded
		l.rec.AgentRunsOn(it.Untyped, it.Match)
	}
	if r.then == stopLoop {
		return stopExit(l)
	}
	return pausedBy(l, r)
}

// pausedBy pauses the loop on an ending that pauses it, the agent running on.
func pausedBy(l *Loop, r rule) *Exit {
	if r.pauseFile && l.files.pauseSeen {
		l.files.pauseSeen = false
		tell(l.rec, checks.RemovePauseFile(l.PauseFile))
		return exitPaused(fmt.Sprintf("pause file %s found, pausing loop (the agent runs on; the file is removed)", l.PauseFile), "pause_file", r.reason)
	}
	return exitPaused(r.shown, r.logged, r.reason)
}

// stopExit ends the loop on a stop request, and the agent too if asked.
func stopExit(l *Loop) *Exit {
	r := endings[iteration.EndStopped]
	e := exitComplete(r.status, r.reason, r.code, r.shown, "")
	if l.asks.Killing() {
		e.EndAgent, e.Reason = true, contract.ReasonKilled // the agent was ended with the loop
	}
	return e
}

// stopOn ends the loop on an ending that allows no next iteration.
func stopOn(ctx context.Context, l *Loop, it iteration.Outcome, n next) *Exit {
	r := endings[it.Ending]
	switch n {
	case waitLimit:
		return waitForLimit(ctx, l, it.Detail)
	case endBudget:
		return budgetEnded(l)
	case endLimit:
		return limitExit(l, r.reason, fmt.Sprintf(r.shown, l.steer.Limits.MaxTime))
	}
	e := failExit(l, it.Ending)
	switch r.advice {
	case startupAdvice:
		what, fix := l.Agent.StartupAdvice(it.Detail)
		if home := l.spend.AgentHome(); home != "" && home != os.Getenv("HOME") {
			fix = strings.ReplaceAll(fix, "~/", home+"/") // a wrapper or env HOME=… gave it another home
		}
		e.Error = fmt.Sprintf("%s is asking %s; the prompt was not typed. To loop it, %s", l.Program(), what, fix)
	case loginAdvice:
		e.Error = fmt.Sprintf("%s says %q: it is not logged in, or its API refused its key; no iteration can work. "+
			"Log it in, or give it a key its API takes, then start the loop again", l.Program(), it.Detail)
	}
	if r.advice != noAdvice {
		e.Logs = append(e.Logs, logLine{"FAIL", fmt.Sprintf("iteration %d %s", l.rec.Iteration(), r.logged)})
	}
	return e
}

// failExit ends the loop on a failure the endings table describes.
func failExit(l *Loop, end iteration.Ending) *Exit {
	r := endings[end]
	e := exitWith(r.status, r.reason, r.code)
	if line := r.shown; strings.Contains(line, "%s") {
		e.Error = fmt.Sprintf(line, l.Pane) // the line names the pane
	} else {
		e.Error = line
	}
	return e
}

// lostExit ends the loop when the pane or its server went away.
func lostExit(l *Loop, err error) *Exit {
	if tmux.NoServer(err) {
		return failExit(l, iteration.EndServerGone)
	}
	return failExit(l, iteration.EndPaneGone)
}

// doneFileExit ends the loop on the done file.
func doneFileExit(l *Loop) *Exit {
	return exitComplete(contract.StatusDone, contract.ReasonDoneFile, contract.ExitDone, fmt.Sprintf("done file %s exists, stopping loop", l.DoneFile), "")
}

// limitExit ends the loop on a limit: success when nothing else could end
// it, exit 3 when a completion criterion was set and not met. A loop whose
// last iterations failed is not done: exit 1 when every one failed, else 3.
func limitExit(l *Loop, reason contract.Reason, what string) *Exit {
	n, failures := l.rec.Iteration(), l.rec.State().ConsecutiveFailures
	switch {
	case failures > 0 && failures >= n:
		e := exitFailed(reason, "%s and all %d iterations failed", what, failures)
		e.Logs = []logLine{{"FAIL", fmt.Sprintf("loop failed after %d iterations reason=%s failed=%d", n, reason, failures)}}
		e.Failures = fmt.Sprintf("%d failed", failures)
		return e
	case failures > 0:
		e := exitWith(contract.StatusLimit, reason, contract.ExitLimit)
		e.Say = fmt.Sprintf("%s and the last %d of %d iterations failed, stopping loop", what, failures, n)
		e.Logs = []logLine{{"FAIL", fmt.Sprintf("loop ended after %d iterations reason=%s failed=%d", n, reason, failures)}}
		e.Failures = fmt.Sprintf("%d failed", failures)
		return e
	case l.Criterion():
		return exitComplete(contract.StatusLimit, reason, contract.ExitLimit, what+" without the done signal, stopping loop", "")
	}
	return exitComplete(contract.StatusDone, reason, contract.ExitDone, fmt.Sprintf("loop complete after %d iterations", n), "")
}

// budgetEnded ends the iteration whose spend reached the budget, and the
// loop: the agent is ended first, so that its receipt is complete.
func budgetEnded(l *Loop) *Exit {
	if pane, err := l.Tmux.Pane(l.Pane); err == nil {
		l.pane.EndAgent(pane)
	}
	l.rec.Log("END", fmt.Sprintf("iteration %d budget", l.rec.Iteration()))
	recordSpend(l, nil)
	return budgetExit(l.spend.Over(l.steer.Limits.Budget))
}

// budgetExit ends the loop on its budget: a limit, whatever else could end it.
func budgetExit(why string) *Exit {
	e := exitComplete(contract.StatusLimit, contract.ReasonBudget, contract.ExitLimit, why+", stopping loop", "")
	e.Logs = []logLine{{"BUDGET", why}}
	return e
}

// signalFiles end an iteration while it runs when the done file or the
// pause file appears (an iteration.Interrupt). They change nothing: the
// pause removes the pause file (pausedBy), a rejected done signal the done
// file.
type signalFiles struct {
	cfg       *Config // read only
	pauseSeen bool    // the pause file paused the loop: the pause says so, and removes it
}

// Check says whether the done file or the pause file ends the iteration.
func (f *signalFiles) Check() (iteration.Ending, bool) {
	switch {
	case checks.FileSeen(f.cfg.DoneFile):
		return iteration.EndDoneFile, true
	case checks.FileSeen(f.cfg.PauseFile):
		f.pauseSeen = true
		return iteration.EndPaused, true
	}
	return iteration.EndNone, false
}

// startGoal takes goal mode's snapshot of the protected paths (--goal)
// at the loop's first start, before any iteration, and keeps it in the
// loop's folder; a resumed loop reads it back: the person's bytes and the
// base commit stay those of the first start, whatever was changed since.
func startGoal(l *Loop) {
	if !l.Goal.On() {
		return
	}
	if l.Resume {
		defer retellVerdict(l)
		data, err := os.ReadFile(l.Store.Path(state.ProtectKept))
		var s *judge.Session
		if err == nil {
			s, err = judge.Resumed(l.Goal, l.Dir, data)
		}
		if err == nil {
			s.Judge.Dir = l.Dir
			l.goal = s
			return
		}
		if !os.IsNotExist(err) {
			l.rec.Warnf("%v", err)
		}
		l.rec.Warnf("no snapshot of the protected files from the loop's first start: they are read as they are now")
	}
	var commands []string
	for _, c := range l.Checks {
		commands = append(commands, c.Command)
	}
	s, err := judge.Start(l.Goal, l.Dir, gitwork.Head(l.Dir), commands)
	if err != nil {
		l.rec.Warnf("%v (what was read stays protected)", err)
	}
	s.Judge.Dir = l.Dir
	l.goal = s
	data, err := s.Kept()
	if err == nil {
		err = l.Store.WriteFile(state.ProtectKept, data)
	}
	if err != nil {
		l.rec.Warnf("keep the protected files' snapshot for a resume: %v", err)
	}
}

// retellVerdict gives a resumed loop's next iteration what the last
// verdict found missing when the loop was paused after that verdict's
// iteration, before the next one started: it has not heard it yet.
func retellVerdict(l *Loop) {
	st := l.rec.State()
	if l.goal == nil || len(st.Verdicts) == 0 || inProgress(st) {
		return
	}
	if last := st.Verdicts[len(st.Verdicts)-1]; last.Iteration == st.CurrentIteration {
		l.goal.Retell(judge.Recorded(last.Met, last.Missing, last.Reason))
	}
}

// doneReasons are the ends a goal must be judged met before: the loop
// would otherwise end done.
var doneReasons = []contract.Reason{contract.ReasonDonePattern, contract.ReasonDoneFile, contract.ReasonTasksDone}

// judgeGate asks the judge (--goal) when the loop would end done (e) and,
// with --judge-every N, after every N-th iteration (after): met ends the
// loop goal_met; a stalemate ends it; not met goes on.
func judgeGate(ctx context.Context, l *Loop, e *Exit, after bool) *Exit {
	switch {
	case l.goal == nil:
		return e
	case e != nil && e.Code == contract.ExitDone && slices.Contains(doneReasons, e.Reason):
		if h := l.goal.History; len(h) > 0 && h[len(h)-1].Iteration == l.rec.Iteration() {
			return nil // judged not met after this iteration already: the next one works on it
		}
		return askJudge(ctx, l, e.Reason)
	case e == nil && after && l.Goal.Every > 0 && l.rec.Iteration()%l.Goal.Every == 0 && !judgedAt(l, l.rec.Iteration()):
		return askJudge(ctx, l, "")
	}
	return e
}

// judgedAt reports whether the record holds a verdict on iteration n
// (before a pause, too).
func judgedAt(l *Loop, n int) bool {
	v := l.rec.State().Verdicts
	return len(v) > 0 && v[len(v)-1].Iteration == n
}

// askJudge judges the goal: the protected paths put back, the checks run
// (one failing is not met, the judge not asked), then the judge given the
// evidence. The loop's exit, or nil to go on.
func askJudge(ctx context.Context, l *Loop, why contract.Reason) *Exit {
	n := l.rec.Iteration()
	if l.Budget.Set() { // a judge the budget cannot pay for is not asked
		if over, reached := l.Budget.Reached(l.spend.Spent()); reached {
			return budgetExit(over)
		}
	}
	protect(l)
	runs := recordChecks(l.rec, l.work.Run(ctx, at(l.rec, inForce(l)), planVerify(l)))
	v, failed := judge.FromChecks(runs)
	goal, err := l.Goal.ReadGoal()
	if err != nil && !failed {
		v = judge.Verdict{Reason: err.Error()}
	} else if !failed && ctx.Err() == nil {
		ev := judge.Evidence{Goal: goal, Iteration: n, Base: l.goal.Base, DiffChars: l.DiffChars, Checks: runs, Restored: l.goal.Restored()}
		if l.tasks.On() {
			if p, _, err := plan.Load(l.TasksFile); err == nil {
				ev.PlanFile, ev.Plan = l.TasksFile, p // as its file reads now
			}
		}
		ev.ReadDiff(l.Dir)
		l.rec.Sayf("asking the judge whether the goal is met")
		v = judge.FromAnswer(judgeNow(ctx, l, ev.Input()))
	}
	if ctx.Err() != nil {
		return pausedBy(l, endings[iteration.EndInterrupted])
	}
	l.rec.Log(judge.TagJudge, v.LogMessage(n))
	l.rec.Judged(goal, state.Verdict{Iteration: n, Met: v.Met, Missing: v.Missing, Reason: v.Why(), Evidence: v.Evidence})
	l.rec.Save()
	work, _ := gitwork.Fingerprint(l.Dir)
	stayed, stale := l.goal.Judged(n, v, work)
	switch {
	case v.Met:
		return exitComplete(contract.StatusDone, contract.ReasonGoalMet, contract.ExitDone, "the judge found the goal met, stopping loop", "")
	case stale:
		return exitComplete(contract.StatusLimit, contract.ReasonGoalStalemate, contract.ExitLimit,
			fmt.Sprintf("the judge found the goal not met %d times in a row, the work unchanged; still missing: %s; stopping loop", l.Goal.Patience, strings.Join(stayed, "; ")), "")
	}
	l.rec.Sayf("the judge found the goal not met: %s", v.Why())
	if why == contract.ReasonDoneFile {
		_ = os.Remove(l.DoneFile) // the done signal is not the goal met
	}
	return nil
}

// judgeNow asks the judge about the iteration that ended, the status line
// showing ⚖ while it runs, and adds what it spent to that iteration's
// receipt: counted by the budget from now on.
func judgeNow(ctx context.Context, l *Loop, input string) judge.Answer {
	status := l.status.Showing()
	if !status.Live() || status == contract.StatusPaused {
		status = contract.StatusRunning
	}
	l.status.SetJudging(true)
	show(l, status)
	a := l.goal.Judge.Ask(ctx, input)
	l.status.SetJudging(false)
	show(l, status)
	prices := l.Prices
	if prices == nil {
		prices = receipt.DefaultPrices
	}
	l.rec.JudgeSpent(l.rec.Iteration(), a.Spent(prices), l.Agent.Name)
	return a
}

// protect puts back what the agent changed of the protected paths (--goal).
func protect(l *Loop) {
	if l.goal == nil {
		return
	}
	put, err := l.goal.Restore()
	if err != nil {
		l.rec.Warnf("%v", err)
	}
	for _, p := range put {
		l.rec.Sayf("put back %s: the agent changed a protected path", p)
		l.rec.Log(judge.TagProtect, judge.RestoreMessage(l.rec.Iteration(), p))
	}
}

// followRound is the iteration after which a round of follow's fixes
// runs on the loop resumed from st: the round follow.json says is fixing,
// its iteration not yet begun; -1 for none.
func followRound(store *state.Store, st *state.State) int {
	f, _ := store.Follow()
	if r := f.Fixing(); r != nil && r.Iteration == st.CurrentIteration {
		return r.Iteration
	}
	return -1
}

// inFollowRound reports whether the next iteration is a follow round's,
// which the done file and a plan all done do not stop.
func (l *Loop) inFollowRound() bool {
	return l.followFrom >= 0 && l.rec.Iteration() == l.followFrom
}
