package watch

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// settle records how an iteration ended and decides what comes next (see
// endings): the loop's end, or (after any backoff and the restart delay)
// another iteration.
func (l *Loop) settle(ctx context.Context, it iteration.Outcome, started time.Time) (Result, bool) {
	ended := l.Clock.Now()
	l.casts.end()
	l.rec.iterationEnded(ended)
	saved := make(chan struct{})
	go func() { l.pane.saveScreen(); close(saved) }() // meanwhile the state is written
	defer func() { <-saved }()                        // the next agent's screen is not this one's

	rule := iteration.Rules[it.Ending]
	done := it.Match != "" || rule.DoneSignal
	// The agent's turn is over and it runs on: its last words may not be written yet.
	l.spend.current().turnOver = done || rule.TurnOver
	if rule.ReceiptNow && !done {
		l.spend.record(nil) // its tokens were spent all the same: they count towards the budget
	}
	switch {
	case rule.Then.Leaves():
		return l.leave(it), true
	case rule.Then != iteration.GoOn && !done:
		return l.stopOn(ctx, it)
	}
	if res, halt := l.account(it, ended.Sub(started)); halt {
		return res, true
	}
	passed := l.afterIteration(ctx, it, ended.Sub(started))
	if ctx.Err() != nil {
		return l.interrupted(), true
	}
	if res, halt := l.judge(it, done, passed); halt {
		return res, true
	}
	return l.next(ctx, it)
}

// account records the iteration by how it ended: a timer's notice, a
// completed turn or exit, a failure; a command that cannot run ends the loop.
func (l *Loop) account(it iteration.Outcome, d time.Duration) (Result, bool) {
	rule := iteration.Rules[it.Ending]
	failure, fatal := rule.Failure, ""
	switch {
	case rule.Timer != nil:
		settings := l.settings()
		l.rec.sayf(rule.Shown, rule.Timer(&settings))
		l.rec.log("TIMEOUT", fmt.Sprintf("iteration %d "+rule.Logged, l.rec.iteration(), rule.Timer(&settings)))
	case rule.Completes != "": // a context guard's end logged why
		if rule.TurnOver {
			l.turnEnded = it.TurnEnded
			l.rec.turnEnded(it.TurnEnded)
		}
		l.rec.completed(d, rule.Completes, rule.Progress)
	case rule.Exit:
		code := it.Code
		l.rec.exited(code)
		failure, fatal = iteration.ExitFailure(code)
		switch {
		case it.Untaken && code != contract.ExitPause: // it did no work: a bad flag, a missing key, a program that reads no input
			failure = true
		case code == 0:
			l.rec.completed(d, "exit: 0", "exit=0")
		case code == contract.ExitPause:
			l.rec.log("END", fmt.Sprintf("iteration %d exit=%d pause", l.rec.iteration(), code))
		}
	}
	if failure {
		l.rec.failed()
	}
	if fatal != "" {
		l.rec.log("FAIL", fmt.Sprintf("iteration %d exit=%d fatal", l.rec.iteration(), it.Code))
		l.rec.errorf("%s: %s (exit %d)", fatal, l.program(), it.Code)
		return l.end(contract.StatusFailed, contract.ReasonFatalExit, contract.ExitFailed), true
	}
	return Result{}, false
}

// judge ends the loop after the checks when it is done, paused by the
// agent, or stalled.
func (l *Loop) judge(it iteration.Outcome, done, passed bool) (Result, bool) {
	if done && l.tasks.ignoresDone() {
		done = false
	}
	if done && passed {
		if it.Match == "" {
			return l.doneFile(), true
		}
		l.rec.sayf("done pattern matched, stopping loop")
		l.rec.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=done_pattern", l.rec.iteration()))
		return l.end(contract.StatusDone, contract.ReasonDonePattern, contract.ExitDone), true
	}
	if done {
		l.chores.rejectDone()
	}
	if iteration.Rules[it.Ending].Exit && it.Code == contract.ExitPause {
		return l.pause(fmt.Sprintf("the agent exited %d, pausing loop ('ralph-watch resume %s' goes on)", contract.ExitPause, l.Name), "agent_exit_42", contract.ReasonPaused), true
	}
	if l.StallLimit > 0 && l.rec.st.UnchangedIterations >= l.StallLimit {
		l.rec.sayf("%d iterations in a row changed nothing, stopping loop", l.rec.st.UnchangedIterations)
		l.rec.log("FAIL", fmt.Sprintf("iteration %d stalled unchanged=%d", l.rec.iteration(), l.rec.st.UnchangedIterations))
		return l.end(contract.StatusFailed, contract.ReasonStalled, contract.ExitFailed), true
	}
	return Result{}, false
}

// next waits before the next iteration: a failure's backoff (or the loop's
// end after too many in a row), then the restart delay.
func (l *Loop) next(ctx context.Context, it iteration.Outcome) (Result, bool) {
	if iteration.Failed(it) {
		n := l.rec.st.ConsecutiveFailures
		shown, logged := iteration.FailureText(it)
		if n >= maxFailures {
			l.rec.log("FAIL", fmt.Sprintf("iteration %d %s attempt=%d/%d", l.rec.iteration(), logged, n, maxFailures))
			l.rec.sayf("%d consecutive failures, stopping loop", n)
			return l.end(contract.StatusFailed, contract.ReasonConsecutiveFailures, contract.ExitFailed), true
		}
		if l.noneLeft() { // no retry to wait for
			l.rec.sayf("iteration %d failed (%s)", l.rec.iteration(), shown)
			l.rec.log("FAIL", fmt.Sprintf("iteration %d %s attempt=%d/%d", l.rec.iteration(), logged, n, maxFailures))
			l.rec.save()
			return Result{}, false
		}
		backoff := Backoff
		if l.BackoffWait != nil {
			backoff = l.BackoffWait
		}
		wait := backoff(n)
		l.rec.sayf("iteration %d failed (%s), retrying in %s (attempt %d/%d)", l.rec.iteration(), shown, seconds(wait), n, maxFailures)
		l.rec.log("FAIL", fmt.Sprintf("iteration %d %s attempt=%d/%d backoff=%s", l.rec.iteration(), logged, n, maxFailures, seconds(wait)))
		l.rec.save()
		l.status.show(contract.StatusBackoff)
		if res, halt := l.waitBetween(ctx, wait); halt {
			return res, true
		}
	}
	l.rec.save()
	if l.noneLeft() {
		return Result{}, false
	}
	return l.waitBetween(ctx, l.RestartDelay)
}

// noneLeft reports whether the iteration that ended was the last the
// limits allow (a limit set meanwhile counted): the loop ends now, not
// after the wait before a next one.
func (l *Loop) noneLeft() bool {
	l.steer.take()
	return l.MaxIterations > 0 && l.rec.iteration() >= l.MaxIterations ||
		l.MaxTime > 0 && l.Clock.Now().Sub(l.start) >= l.MaxTime
}

// waitBetween waits d between iterations; an interrupt or a request that
// comes meanwhile pauses or stops the loop.
func (l *Loop) waitBetween(ctx context.Context, d time.Duration) (Result, bool) {
	end := l.asks.wait(ctx, d)
	if end == iteration.EndWaitOver { // not an ending: the wait ran its course
		return Result{}, false
	}
	return l.leaveBetween(end), true
}

// leaveBetween pauses or stops the loop on a request that came between
// iterations: the last one is over and recorded, not one for resume to
// take up again.
func (l *Loop) leaveBetween(end iteration.Ending) Result {
	l.rec.iterationEnded(l.Clock.Now())
	return l.leave(iteration.Outcome{Ending: end, Between: true})
}

// leave pauses or stops the loop at once; a paused loop's agent runs on,
// its iteration not over, for resume to take up.
func (l *Loop) leave(it iteration.Outcome) Result {
	rule := iteration.Rules[it.Ending]
	if rule.AgentRuns && !it.Between { // between iterations, the last one is over and recorded
		l.rec.agentRunsOn(it.Untyped, it.Match)
	}
	if rule.Then == iteration.StopLoop {
		return l.stopped()
	}
	return l.pausedBy(rule)
}

// stopOn ends the loop on an ending that allows no next iteration.
func (l *Loop) stopOn(ctx context.Context, it iteration.Outcome) (Result, bool) {
	rule := iteration.Rules[it.Ending]
	switch rule.Then {
	case iteration.WaitReset:
		return l.waitForLimit(ctx, it.Detail)
	case iteration.BudgetLoop:
		return l.budgetEnded(), true
	case iteration.LimitLoop:
		return l.limit(rule.Reason, fmt.Sprintf(rule.Shown, l.MaxTime)), true
	}
	switch rule.Advice {
	case iteration.StartupAdvice:
		what, fix := l.Agent.StartupAdvice(it.Detail)
		if home := l.spend.agentHome(); home != "" && home != os.Getenv("HOME") {
			fix = strings.ReplaceAll(fix, "~/", home+"/") // a wrapper or env HOME=… gave it another home
		}
		l.rec.errorf("%s is asking %s; the prompt was not typed. To loop it, %s", l.program(), what, fix)
		l.rec.log("FAIL", fmt.Sprintf("iteration %d %s", l.rec.iteration(), rule.Logged))
	case iteration.LoginAdvice:
		l.rec.errorf("%s says %q: it is not logged in, or its API refused its key; no iteration can work. "+
			"Log it in, or give it a key its API takes, then start the loop again", l.program(), it.Detail)
		l.rec.log("FAIL", fmt.Sprintf("iteration %d %s", l.rec.iteration(), rule.Logged))
	}
	return l.fail(it.Ending), true
}

// fail ends the loop on a failure the endings table describes.
func (l *Loop) fail(e iteration.Ending) Result {
	rule := iteration.Rules[e]
	if line := rule.Shown; strings.Contains(line, "%s") {
		l.rec.errorf(line, l.Pane) // the line names the pane
	} else if line != "" {
		l.rec.errorf("%s", line)
	}
	return l.end(rule.Status, rule.Reason, rule.Code)
}

// lost ends the loop when the pane or its server went away.
func (l *Loop) lost(err error) Result {
	if tmux.NoServer(err) {
		return l.fail(iteration.EndServerGone)
	}
	return l.fail(iteration.EndPaneGone)
}

// doneFile ends the loop on the done file.
func (l *Loop) doneFile() Result {
	l.rec.sayf("done file %s exists, stopping loop", l.DoneFile)
	l.rec.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=done_file", l.rec.iteration()))
	return l.end(contract.StatusDone, contract.ReasonDoneFile, contract.ExitDone)
}

// limit ends the loop on a limit: success when nothing else could end it,
// exit 3 when a completion criterion was set and not met. A loop whose last
// iterations failed is not done: exit 1 when every one failed, else 3.
func (l *Loop) limit(reason contract.Reason, what string) Result {
	n, failed := l.rec.iteration(), l.rec.st.ConsecutiveFailures
	if failed > 0 {
		l.status.failures = fmt.Sprintf("%d failed", failed)
		if failed >= n {
			l.rec.log("FAIL", fmt.Sprintf("loop failed after %d iterations reason=%s failed=%d", n, reason, failed))
			l.rec.errorf("%s and all %d iterations failed", what, failed)
			return l.end(contract.StatusFailed, reason, contract.ExitFailed)
		}
		l.rec.log("FAIL", fmt.Sprintf("loop ended after %d iterations reason=%s failed=%d", n, reason, failed))
		l.rec.sayf("%s and the last %d of %d iterations failed, stopping loop", what, failed, n)
		return l.end(contract.StatusLimit, reason, contract.ExitLimit)
	}
	l.rec.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=%s", l.rec.iteration(), reason))
	if l.Criterion() {
		l.rec.sayf("%s without the done signal, stopping loop", what)
		return l.end(contract.StatusLimit, reason, contract.ExitLimit)
	}
	l.rec.sayf("loop complete after %d iterations", l.rec.iteration())
	return l.end(contract.StatusDone, reason, contract.ExitDone)
}

// interrupted pauses the loop on an interrupt, the agent running on.
func (l *Loop) interrupted() Result { return l.pausedBy(iteration.Rules[iteration.EndInterrupted]) }

// paused pauses the loop on a request or the pause file, the agent running on.
func (l *Loop) paused() Result { return l.pausedBy(iteration.Rules[iteration.EndPaused]) }

// pausedBy pauses the loop on an ending that pauses it, the agent running on.
func (l *Loop) pausedBy(rule iteration.Rule) Result {
	if rule.PauseFile && l.chores.pauseFileFound {
		l.chores.pauseFileFound = false
		return l.pause(fmt.Sprintf("pause file %s found, pausing loop (the agent runs on; the file is removed)", l.PauseFile), "pause_file", rule.Reason)
	}
	return l.pause(rule.Shown, rule.Logged, rule.Reason)
}

// pause leaves the loop paused with the agent running, for resume.
func (l *Loop) pause(message, cause string, reason contract.Reason) Result {
	l.rec.sayf("%s", message)
	l.rec.log("PAUSE", "loop paused reason="+cause)
	l.status.reason, l.status.note = cause, ""
	l.status.show(contract.StatusPaused)
	return Result{Code: contract.ExitInterrupted, Reason: reason}
}

// promptRefused pauses the loop before an iteration whose prompt file is
// not UTF-8: nothing mangled is typed, and once the file is fixed, resume
// goes on. The sentence is the status's reason, a short note the status line's.
func (l *Loop) promptRefused(err *NotUTF8Error) Result {
	l.rec.errorf("%v", err)
	l.rec.sayf("pausing loop: fix the prompt file, then 'ralph-watch resume %s'", l.Name)
	l.rec.log("PAUSE", "loop paused reason=prompt_not_utf8")
	l.status.reason, l.status.note = err.Error(), "prompt not UTF-8"
	l.status.show(contract.StatusPaused)
	return Result{Code: contract.ExitInterrupted, Reason: contract.ReasonPaused}
}

// stopped ends the loop on a stop request, and the agent too if asked.
func (l *Loop) stopped() Result {
	if l.asks.kill {
		if pane, err := l.Tmux.Pane(l.Pane); err == nil {
			l.pane.EndAgent(pane)
		}
	}
	rule, reason := iteration.Rules[iteration.EndStopped], iteration.Rules[iteration.EndStopped].Reason
	if l.asks.kill {
		reason = contract.ReasonKilled // the agent was ended with the loop
	}
	l.rec.sayf("%s", rule.Shown)
	l.rec.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=%s", l.rec.iteration(), reason))
	return l.end(rule.Status, reason, rule.Code)
}

// end ends the loop: its reason recorded, its status shown, its on-done or on-fail command run.
func (l *Loop) end(status contract.Status, reason contract.Reason, code int) Result {
	l.rec.ended(reason)
	l.status.reason = string(reason)
	l.status.show(status) // saves the state
	switch code {
	case contract.ExitDone:
		l.chores.runOnCommand("on-done", l.OnDone, strconv.Itoa(code), string(reason))
	case contract.ExitFailed, contract.ExitLimit:
		l.chores.runOnCommand("on-fail", l.OnFail, strconv.Itoa(code), string(reason))
	}
	return Result{Code: code, Reason: reason}
}

// afterIteration does the work that follows every iteration that ended and
// reports whether its checks passed (true with none).
func (l *Loop) afterIteration(ctx context.Context, it iteration.Outcome, d time.Duration) bool {
	l.steer.take()               // a limit raised meanwhile applies to this iteration's verdict
	changed := l.tasks.changed() // before the loop writes anything
	if l.tasks.agentWorked(it.Ending) {
		l.chores.noteChange(changed && l.tasks.fromTaskBase())
	}
	runs := l.chores.runChecks(ctx)
	if ctx.Err() != nil {
		return false
	}
	l.spend.record(runs)
	verdict, steered := l.tasks.steered(it.Ending)
	if !steered {
		verdict = l.tasks.judge(changed, runs, it)
	}
	reason, code := iteration.EndReason(it), ""
	if iteration.Rules[it.Ending].Exit {
		code = strconv.Itoa(it.Code)
	}
	l.chores.appendProgress(reason, code, d, runs, verdict)
	if checks.AllPassed(runs) {
		task, edited := l.tasks.forCommit(verdict)
		l.chores.commit(runs, task, verdict, edited)
	}
	l.rec.save()
	l.chores.runOnCommand("on-iteration-end", l.OnIterationEnd, code, reason)
	return checks.AllPassed(runs)
}
