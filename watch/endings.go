package watch

import (
	"context"
	"fmt"
	"github.com/ralph-tmux/ralph.tmux/watch/between"
	"strconv"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// How one iteration ended.
type ending int

const (
	endExit ending = iota
	endDone
	endDoneFile
	endInactivity
	endTimeout
	endMaxTime
	endInterrupted
	endPaneGone
	endServerGone
	endPaused     // a pause request: the agent runs on
	endStopped    // a stop request
	endTurn       // the agent finished its turn and sits idle at its prompt
	endLimit      // a usage limit: wait for the reset
	endDialog     // a question went unanswered for the dialog timeout
	endStartup    // a start-up dialog: the prompt must not be typed into it
	endTurnFailed // the agent's hook said its turn failed (an API error): a failure
)

// settle records how an iteration ended and decides what comes next: the
// loop's end, or (after any backoff and the restart delay) another iteration.
func (l *Loop) settle(ctx context.Context, it outcome, started time.Time) (Result, bool) {
	end := it.ending
	ended := l.Clock.Now()
	l.st.LastIterationEnded = state.Stamp(ended)
	saved := make(chan struct{})
	go func() { l.saveScreen(); close(saved) }() // meanwhile the state is written
	defer func() { <-saved }()                   // the next agent's screen is not this one's

	switch end {
	case endInterrupted, endPaused:
		if l.st.WaitingUntil == "" { // else no iteration runs: the loop waits for a limit's reset
			l.st.LastIterationEnded = "" // the agent runs on: the iteration is not over
		}
		l.st.PromptUntyped = it.untyped // paused while the agent started: resume types the prompt
		l.st.DoneMatch = it.match       // resume ends the loop on it, as it would have
		if end == endInterrupted {
			return l.interrupted(), true
		}
		return l.paused(), true
	case endStopped:
		return l.stopped(), true
	}
	done := it.match != "" || end == endDoneFile
	if !done {
		switch end {
		case endPaneGone:
			l.errorf("pane %s was closed", l.Pane)
			return l.end(StatusFailed, "pane_closed", ExitFailed), true
		case endServerGone:
			l.errorf("tmux server is gone")
			return l.end(StatusFailed, "server_gone", ExitFailed), true
		case endMaxTime:
			return l.limit("max_time", fmt.Sprintf("max time (%s) reached", l.MaxTime)), true
		case endStartup:
			what, fix := l.Agent.StartupAdvice(it.detail)
			l.errorf("%s is asking %s; the prompt was not typed. To loop it, %s", l.program(), what, fix)
			l.log("FAIL", fmt.Sprintf("iteration %d startup-dialog", l.iteration))
			return l.end(StatusFailed, "startup-dialog", ExitFailed), true
		case endLimit: // not an iteration: no checks, no hooks
			return l.waitForLimit(ctx, it.detail, started)
		}
	}
	switch end {
	case endDialog:
		l.sayf("question unanswered for %s, restarting", l.DialogTimeout)
		l.log("TIMEOUT", fmt.Sprintf("iteration %d dialog_timeout=%s", l.iteration, l.DialogTimeout))
	case endTurn:
		l.turnEnded = it.turnEnded
		l.st.LastTurnEnded = state.Stamp(it.turnEnded)
		l.completed(ended.Sub(started), "turn ended", "turn_end")
	case endInactivity:
		l.sayf("inactivity timeout (%s), restarting", seconds(l.InactivityTimeout))
		l.log("TIMEOUT", fmt.Sprintf("iteration %d inactivity_timeout=%s", l.iteration, seconds(l.InactivityTimeout)))
	case endTimeout:
		l.sayf("iteration timeout (%s), restarting", l.IterationTimeout)
		l.log("TIMEOUT", fmt.Sprintf("iteration %d iteration_timeout=%s", l.iteration, l.IterationTimeout))
	case endTurnFailed:
		l.st.ConsecutiveFailures++
		l.st.TotalFailures++
	case endExit:
		code := it.code
		l.st.LastExitCode = &code
		switch {
		case code == 0:
			l.completed(ended.Sub(started), "exit: 0", "exit=0")
		case code == ExitPause:
			l.log("END", fmt.Sprintf("iteration %d exit=%d pause", l.iteration, code))
		case code == 126 || code == 127:
			l.st.ConsecutiveFailures++
			l.st.TotalFailures++
			what := "command not found"
			if code == 126 {
				what = "command not executable"
			}
			l.log("FAIL", fmt.Sprintf("iteration %d exit=%d fatal", l.iteration, code))
			l.errorf("%s: %s (exit %d)", what, l.program(), code)
			return l.end(StatusFailed, "fatal_exit", ExitFailed), true
		default:
			l.st.ConsecutiveFailures++
			l.st.TotalFailures++
		}
	}

	passed := l.afterIteration(ctx, it, ended.Sub(started))
	if ctx.Err() != nil {
		return l.interrupted(), true
	}
	if done && passed {
		if it.match == "" {
			return l.doneFile(), true
		}
		l.sayf("done pattern matched, stopping loop")
		l.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=done_pattern", l.iteration))
		return l.end(StatusDone, "done_pattern", ExitDone), true
	}
	if done {
		l.rejectDone()
	}
	if end == endExit && it.code == ExitPause {
		return l.pause(fmt.Sprintf("the agent exited %d, pausing loop ('ralph-watch resume %s' goes on)", ExitPause, l.Name), "agent_exit_42", "paused"), true
	}
	if l.StallLimit > 0 && l.st.UnchangedIterations >= l.StallLimit {
		l.sayf("%d iterations in a row changed nothing, stopping loop", l.st.UnchangedIterations)
		l.log("FAIL", fmt.Sprintf("iteration %d stalled unchanged=%d", l.iteration, l.st.UnchangedIterations))
		return l.end(StatusFailed, "stalled", ExitFailed), true
	}
	if end == endExit && it.code != 0 || end == endTurnFailed {
		n := l.st.ConsecutiveFailures
		shown, logged := "exit: "+exitText(it.code), "exit="+exitText(it.code)
		if end == endTurnFailed {
			shown, logged = "API error: "+it.detail, "turn_failed="+strconv.Quote(it.detail)
		}
		if n >= maxFailures {
			l.log("FAIL", fmt.Sprintf("iteration %d %s attempt=%d/%d", l.iteration, logged, n, maxFailures))
			l.sayf("%d consecutive failures, stopping loop", n)
			return l.end(StatusFailed, "consecutive_failures", ExitFailed), true
		}
		wait := Backoff(n)
		l.sayf("iteration %d failed (%s), retrying in %s (attempt %d/%d)", l.iteration, shown, seconds(wait), n, maxFailures)
		l.log("FAIL", fmt.Sprintf("iteration %d %s attempt=%d/%d backoff=%s", l.iteration, logged, n, maxFailures, seconds(wait)))
		l.save()
		l.showStatus(StatusBackoff)
		if end := l.wait(ctx, wait); end != endExit {
			return l.settle(ctx, outcome{ending: end}, started)
		}
	}
	l.save()
	if end := l.wait(ctx, l.RestartDelay); end != endExit {
		return l.settle(ctx, outcome{ending: end}, started)
	}
	return Result{}, false
}

// completed records an iteration that ended well, after d.
func (l *Loop) completed(d time.Duration, shown, logged string) {
	l.st.ConsecutiveFailures = 0
	l.st.IterationDurations = append(l.st.IterationDurations, int(d/time.Second))
	l.sayf("iteration %d completed (%s, duration: %s)", l.iteration, shown, between.FormatDuration(d))
	l.log("END", fmt.Sprintf("iteration %d %s duration=%s", l.iteration, logged, between.FormatDuration(d)))
}

func (l *Loop) doneFile() Result {
	l.sayf("done file %s exists, stopping loop", l.DoneFile)
	l.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=done_file", l.iteration))
	return l.end(StatusDone, "done_file", ExitDone)
}

// limit ends the loop on a limit: success when nothing else could end it,
// exit 3 when a completion criterion was set and not met.
func (l *Loop) limit(reason, what string) Result {
	l.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=%s", l.iteration, reason))
	if l.Criterion() {
		l.sayf("%s without the done signal, stopping loop", what)
		return l.end(StatusLimit, reason, ExitLimit)
	}
	l.sayf("loop complete after %d iterations", l.iteration)
	return l.end(StatusDone, reason, ExitDone)
}

func (l *Loop) interrupted() Result {
	return l.pause("interrupted, pausing loop (the agent runs on)", "interrupt", "interrupted")
}

func (l *Loop) paused() Result {
	if l.pauseFileFound {
		l.pauseFileFound = false
		return l.pause(fmt.Sprintf("pause file %s found, pausing loop (the agent runs on; the file is removed)", l.PauseFile), "pause_file", "paused")
	}
	return l.pause("paused, exiting loop (the agent runs on)", "request", "paused")
}

// pause leaves the loop paused with the agent running, for resume.
func (l *Loop) pause(message, cause, reason string) Result {
	l.sayf("%s", message)
	l.log("PAUSE", "loop paused reason="+cause)
	l.reason = cause
	l.showStatus(StatusPaused)
	return Result{Code: ExitInterrupted, Reason: reason}
}

// stopped ends the loop on a stop request, and the agent too if asked.
func (l *Loop) stopped() Result {
	if l.killOnStop {
		if pane, err := l.Tmux.Pane(l.Pane); err == nil {
			l.endAgent(pane)
		}
	}
	l.sayf("stopped, exiting loop")
	l.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=killed", l.iteration))
	res := l.end(StatusStopped, "killed", ExitInterrupted)
	return res
}

func (l *Loop) lost(err error) Result {
	if tmux.NoServer(err) {
		l.errorf("tmux server is gone")
		return l.end(StatusFailed, "server_gone", ExitFailed)
	}
	l.errorf("pane %s was closed", l.Pane)
	return l.end(StatusFailed, "pane_closed", ExitFailed)
}

func (l *Loop) end(status Status, reason string, code int) Result {
	l.st.ExitReason = &reason
	l.reason = reason
	l.showStatus(status) // saves the state
	switch code {
	case ExitDone:
		l.hook("on-done", l.OnDone, strconv.Itoa(code), reason)
	case ExitFailed, ExitLimit:
		l.hook("on-fail", l.OnFail, strconv.Itoa(code), reason)
	}
	return Result{Code: code, Reason: reason}
}
