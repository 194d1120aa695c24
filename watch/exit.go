package watch

import (
	"cmp"
	"fmt"
	"strconv"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// Exit is how the loop ends, as a value: what it records, shows, says and
// logs. Gates, steps and waits return one; Loop.exit, the one place the
// loop ends, carries it out.
type Exit struct {
	Status contract.Status
	Reason contract.Reason
	Code   int
	Error  string    // shown as an error (and recorded as the loop's) before anything else
	Say    string    // the line said
	Logs   []logLine // the record's lines before the end's own
	// Complete writes the record's "loop complete" line, Detail after its reason.
	Complete bool
	Detail   string
	Cause    string // a pause's cause, for its PAUSE line and, unless Why, the status line's reason
	Why      string // a pause's reason on the status line, when not its cause
	Note     string // a pause's note on the status line
	Failures string // after an ended loop's mark: how many of its last iterations failed ("3 failed")
	EndAgent bool   // the agent is ended with the loop
	// Unstarted: the loop never started (no state to resume): nothing is
	// recorded or shown.
	Unstarted bool
}

// logLine is one line of the loop's log.
type logLine struct{ event, message string }

// paused says whether the exit leaves the loop paused, for resume to go on.
func (e *Exit) paused() bool { return e.Status == contract.StatusPaused }

// exit ends the loop: the agent ended if asked, the lines said and logged,
// the reason recorded, the status shown, its on-done or on-fail command run.
func (l *Loop) exit(e *Exit) Result {
	if e.EndAgent {
		if pane, err := l.Tmux.Pane(l.Pane); err == nil {
			l.pane.EndAgent(pane)
		}
	}
	if e.Error != "" {
		l.rec.Errorf("%s", e.Error)
	}
	if e.Unstarted {
		return Result{Code: e.Code, Reason: e.Reason}
	}
	if e.Say != "" {
		l.rec.Sayf("%s", e.Say)
	}
	for _, line := range e.Logs {
		l.rec.Log(line.event, line.message)
	}
	if e.paused() {
		l.rec.Log("PAUSE", "loop paused reason="+e.Cause)
		l.status.SetReason(cmp.Or(e.Why, e.Cause))
		l.status.SetNote(e.Note)
		show(l, contract.StatusPaused)
		return Result{Code: e.Code, Reason: e.Reason}
	}
	if e.Complete {
		l.rec.Log("DONE", fmt.Sprintf("loop complete after %d iterations reason=%s%s", l.rec.Iteration(), e.Reason, e.Detail))
	}
	if e.Failures != "" {
		l.status.SetFailures(e.Failures)
	}
	l.rec.Ended(e.Reason)
	l.status.SetReason(string(e.Reason))
	show(l, e.Status) // saves the state
	switch e.Code {
	case contract.ExitDone:
		tell(l.rec, l.work.OnCommand(at(l.rec, inForce(l)), "on-done", l.OnDone, strconv.Itoa(e.Code), string(e.Reason)))
	case contract.ExitFailed, contract.ExitLimit:
		tell(l.rec, l.work.OnCommand(at(l.rec, inForce(l)), "on-fail", l.OnFail, strconv.Itoa(e.Code), string(e.Reason)))
	}
	return Result{Code: e.Code, Reason: e.Reason}
}

// exitWith is an exit that ends the loop with status, reason and code.
func exitWith(status contract.Status, reason contract.Reason, code int) *Exit {
	return &Exit{Status: status, Reason: reason, Code: code}
}

// exitFailed is an exit that ends the loop failed, with an error shown.
func exitFailed(reason contract.Reason, format string, args ...any) *Exit {
	return &Exit{Status: contract.StatusFailed, Reason: reason, Code: contract.ExitFailed, Error: fmt.Sprintf(format, args...)}
}

// exitComplete is an exit that ends the loop with its "loop complete" line.
func exitComplete(status contract.Status, reason contract.Reason, code int, say, detail string) *Exit {
	return &Exit{Status: status, Reason: reason, Code: code, Say: say, Complete: true, Detail: detail}
}

// exitPaused is an exit that leaves the loop paused, its agent running on.
func exitPaused(say, cause string, reason contract.Reason) *Exit {
	return &Exit{Status: contract.StatusPaused, Reason: reason, Code: contract.ExitInterrupted, Say: say, Cause: cause}
}
