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

// then is what the loop does after an ending: each a thing Loop does.
type then int

const (
	goOn       then = iota // the iteration is over: record it, run the checks, start the next
	pauseLoop              // the loop pauses at once, its agent running on (an interrupt, a request, the pause file)
	stopLoop               // the loop stops at once: the person asked
	failLoop               // the loop ends failed at once, unless the done signal came first
	limitLoop              // the loop ends on a limit of its own (max time), unless the done signal came first
	budgetLoop             // the loop ends on its budget, its agent ended first, unless the done signal came first
	waitReset              // the loop waits for a usage limit's reset, unless the done signal came first
)

// leaves says whether the loop leaves at once, whatever the iteration said.
func (t then) leaves() bool { return t == pauseLoop || t == stopLoop }

// advice is what the loop tells the person of an ending that needs them.
type advice int

const (
	noAdvice      advice = iota
	startupAdvice        // how to get past the agent's start-up dialog
	loginAdvice          // log the agent in, or give it a key
)

// endingRule is what an ending means for the loop, as data.
type endingRule struct {
	then      then
	agentRuns bool                   // the loop leaves the agent running: its iteration is not over
	reason    words.Reason           // the loop's recorded reason when the ending ends it
	status    words.Status           // the loop's status then
	code      int                    // the exit code then
	shown     string                 // the line shown (for a stop, an error; for a limit or a timer, a format of its setting)
	logged    string                 // the record's cause, or for a timer a format of its setting
	progress  string                 // how the progress file and hooks name the iteration's end; "": exit
	failure   bool                   // the iteration failed: it counts towards the consecutive failures
	timer     func(c *Config) string // the setting that ran out, for shown and logged
	advice    advice                 // what the person is told to do, for an ending that needs them
	// completes is how the record shows an iteration that completed so
	// (its log line says progress); "": not this way.
	completes  string
	doneSignal bool // it is the done signal itself (the done file)
	turnOver   bool // the agent finished its turn and runs on (its last words may be still unwritten)
	exit       bool // the agent exited: its exit status says how it went
	receiptNow bool // the loop ends here without an iteration's end: its receipt is written now
	pauseFile  bool // the pause file may be what asked
	// nextNow: between iterations it ends nothing (a skip, a retry with no
	// iteration running): the next one starts now.
	nextNow bool
}

// endings says what each ending means; settle goes by it.
var endings = map[ending]endingRule{
	endInterrupted: {then: pauseLoop, agentRuns: true, reason: words.ReasonInterrupted, status: words.StatusPaused, code: words.ExitInterrupted,
		shown: "interrupted, pausing loop (the agent runs on)", logged: "interrupt"},
	endPaused: {then: pauseLoop, agentRuns: true, reason: words.ReasonPaused, status: words.StatusPaused, code: words.ExitInterrupted,
		shown: "paused, exiting loop (the agent runs on)", logged: "request", pauseFile: true},
	endStopped: {then: stopLoop, reason: words.ReasonStopped, status: words.StatusStopped, code: words.ExitInterrupted,
		shown: "stopped, exiting loop", receiptNow: true},
	endPaneGone: {then: failLoop, reason: words.ReasonPaneClosed, status: words.StatusFailed, code: words.ExitFailed,
		shown: "pane %s was closed", receiptNow: true},
	endServerGone: {then: failLoop, reason: words.ReasonServerGone, status: words.StatusFailed, code: words.ExitFailed,
		shown: "tmux server is gone", receiptNow: true},
	endStartup: {then: failLoop, reason: words.ReasonStartupDialog, status: words.StatusFailed, code: words.ExitFailed,
		logged: "startup-dialog", advice: startupAdvice, receiptNow: true},
	endNoLogin: {then: failLoop, reason: words.ReasonNotLoggedIn, status: words.StatusFailed, code: words.ExitFailed,
		logged: "not_logged_in", advice: loginAdvice, receiptNow: true},
	endMaxTime: {then: limitLoop, reason: words.ReasonMaxTime, shown: "max time (%s) reached", receiptNow: true},
	endBudget:  {then: budgetLoop, reason: words.ReasonBudget, status: words.StatusLimit, code: words.ExitLimit}, // its receipt once its agent is ended
	endLimit:   {then: waitReset, receiptNow: true},                                                              // not an iteration: no checks, no hooks; the loop waits for the reset
	endDialog: {progress: "dialog_timeout", shown: "question unanswered for %s, restarting", logged: "dialog_timeout=%s",
		timer: func(c *Config) string { return c.DialogTimeout.String() }},
	endInactivity: {progress: "inactivity_timeout", shown: "inactivity timeout (%s), restarting", logged: "inactivity_timeout=%s",
		timer: func(c *Config) string { return seconds(c.InactivityTimeout) }},
	endTimeout: {progress: "iteration_timeout", shown: "iteration timeout (%s), restarting", logged: "iteration_timeout=%s",
		timer: func(c *Config) string { return c.IterationTimeout.String() }},
	endExit:       {exit: true},
	endDoneFile:   {progress: "done_file", doneSignal: true},
	endTurn:       {progress: "turn_end", completes: "turn ended", turnOver: true},
	endTurnFailed: {progress: "turn_failed", failure: true},
	endContext:    {progress: "context", completes: "context window full"},
	endSkipped:    {progress: "skipped", completes: "the person asked: skipped", nextNow: true},
	endRetried:    {progress: "retried", completes: "the person asked: retried", nextNow: true},
}

// failed says whether the iteration failed: its hook said so, or its agent
// exited with an error or before it took the prompt.
func failed(it outcome) bool {
	rule := endings[it.ending]
	return rule.failure || rule.exit && (it.code != 0 || it.untaken)
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
	if endings[it.ending].failure {
		return "API error: " + it.detail, "turn_failed=" + strconv.Quote(it.detail)
	}
	if it.untaken {
		return "exit: " + exitText(it.code) + " before it took the prompt", "exit=" + exitText(it.code) + " before_prompt"
	}
	return "exit: " + exitText(it.code), "exit=" + exitText(it.code)
}
