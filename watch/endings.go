package watch

import (
	"strconv"

	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// How one iteration, or one step of it, ended. Each name means one thing.
type ending int

const (
	endNone        ending = iota // nothing ended it: go on
	endReady                     // the agent takes input: the prompt is typed now
	endWaitOver                  // a wait between iterations ran its course
	endExit                      // the agent exited
	endDone                      // the done pattern matched (checked as output arrives)
	endDoneFile                  // the done file appeared
	endInactivity                // the screen stood still for the inactivity timeout
	endTimeout                   // the iteration ran out of time
	endMaxTime                   // the loop ran out of time
	endInterrupted               // the watcher was interrupted: the agent runs on
	endPaneGone                  // the pane was closed
	endServerGone                // the tmux server is gone
	endPaused                    // a pause request: the agent runs on
	endStopped                   // a stop request
	endTurn                      // the agent finished its turn and sits idle at its prompt
	endLimit                     // a usage limit: wait for the reset
	endDialog                    // a question went unanswered for the dialog timeout
	endStartup                   // a start-up dialog: the prompt must not be typed into it
	endTurnFailed                // the agent's hook said its turn failed (an API error): a failure
	endBudget                    // the loop's spend reached its budget while the iteration ran
	endNoLogin                   // the agent is not logged in, or its API refused its key
	endContext                   // the agent's context window filled past --max-context+15
	endSkipped                   // the person skipped the iteration (and its task)
	endRetried                   // the person asked for the iteration's task again, in a fresh agent
)

// then is what the loop does after an ending.
type then int

const (
	goOn  then = iota // the iteration is over: record it, run the checks, start the next
	leave             // the loop pauses or stops at once (an interrupt, a request)
	stop              // the loop ends at once, unless the done signal came first
)

// endingRule is what an ending means for the loop, as data.
type endingRule struct {
	then      then
	agentRuns bool                   // the loop leaves the agent running: its iteration is not over
	reason    words.Reason           // the loop's recorded reason when the ending ends it
	status    words.Status           // the loop's status then
	code      int                    // the exit code then
	shown     string                 // the line shown (for a stop, an error; for a timer, a format of its setting)
	logged    string                 // the record's cause, or for a timer a format of its setting
	progress  string                 // how the progress file and hooks name the iteration's end; "": exit
	failure   bool                   // the iteration failed: it counts towards the consecutive failures
	timer     func(c *Config) string // the setting that ran out, for shown and logged
}

// endings says what each ending means; settle goes by it.
var endings = map[ending]endingRule{
	endInterrupted: {then: leave, agentRuns: true, reason: words.ReasonInterrupted, status: words.StatusPaused, code: words.ExitInterrupted,
		shown: "interrupted, pausing loop (the agent runs on)", logged: "interrupt"},
	endPaused: {then: leave, agentRuns: true, reason: words.ReasonPaused, status: words.StatusPaused, code: words.ExitInterrupted,
		shown: "paused, exiting loop (the agent runs on)", logged: "request"},
	endStopped: {then: leave, reason: words.ReasonStopped, status: words.StatusStopped, code: words.ExitInterrupted,
		shown: "stopped, exiting loop"},
	endPaneGone:   {then: stop, reason: words.ReasonPaneClosed, status: words.StatusFailed, code: words.ExitFailed, shown: "pane %s was closed"},
	endServerGone: {then: stop, reason: words.ReasonServerGone, status: words.StatusFailed, code: words.ExitFailed, shown: "tmux server is gone"},
	endStartup:    {then: stop, reason: words.ReasonStartupDialog, status: words.StatusFailed, code: words.ExitFailed, logged: "startup-dialog"},
	endNoLogin:    {then: stop, reason: words.ReasonNotLoggedIn, status: words.StatusFailed, code: words.ExitFailed, logged: "not_logged_in"},
	endMaxTime:    {then: stop, reason: words.ReasonMaxTime},
	endBudget:     {then: stop, reason: words.ReasonBudget, status: words.StatusLimit, code: words.ExitLimit},
	endLimit:      {then: stop}, // not an iteration: no checks, no hooks; the loop waits for the reset
	endDialog: {progress: "dialog_timeout", shown: "question unanswered for %s, restarting", logged: "dialog_timeout=%s",
		timer: func(c *Config) string { return c.DialogTimeout.String() }},
	endInactivity: {progress: "inactivity_timeout", shown: "inactivity timeout (%s), restarting", logged: "inactivity_timeout=%s",
		timer: func(c *Config) string { return seconds(c.InactivityTimeout) }},
	endTimeout: {progress: "iteration_timeout", shown: "iteration timeout (%s), restarting", logged: "iteration_timeout=%s",
		timer: func(c *Config) string { return c.IterationTimeout.String() }},
	endDoneFile:   {progress: "done_file"},
	endTurn:       {progress: "turn_end"},
	endTurnFailed: {progress: "turn_failed", failure: true},
	endContext:    {progress: "context"},
	endSkipped:    {progress: "skipped"},
	endRetried:    {progress: "retried"},
}

// endReason names how an iteration ended, for the progress file and hooks.
func endReason(it outcome) string {
	if it.match != "" {
		return "done_pattern"
	}
	if p := endings[it.ending].progress; p != "" {
		return p
	}
	return "exit"
}

// exitFailure says how an agent's exit status counts: a failure, and a
// fatal one (the command is not there or not executable) with why.
func exitFailure(code int) (failure bool, fatal string) {
	switch code {
	case 0, words.ExitPause:
		return false, ""
	case 126:
		return true, "command not executable"
	case 127:
		return true, "command not found"
	}
	return true, ""
}

// failureText is how a failed iteration is shown and logged.
func failureText(it outcome) (shown, logged string) {
	if it.ending == endTurnFailed {
		return "API error: " + it.detail, "turn_failed=" + strconv.Quote(it.detail)
	}
	if it.untaken {
		return "exit: " + exitText(it.code) + " before it took the prompt", "exit=" + exitText(it.code) + " before_prompt"
	}
	return "exit: " + exitText(it.code), "exit=" + exitText(it.code)
}
