package watch

import (
	"fmt"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
)

// then is what the loop does after an iteration's ending, by the endings table.
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

// rule is what an ending means for the loop, as data.
type rule struct {
	then      then
	agentRuns bool                   // the loop leaves the agent running: its iteration is not over
	reason    contract.Reason        // the loop's recorded reason when the ending ends it
	status    contract.Status        // the loop's status then
	code      int                    // the exit code then
	shown     string                 // the line shown (for a stop, an error; for a limit or a timer, a format of its setting)
	logged    string                 // the record's cause, or for a timer a format of its setting
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
}

// endings says what each ending means; decide goes by it.
var endings = map[iteration.Ending]rule{
	iteration.EndInterrupted: {then: pauseLoop, agentRuns: true, reason: contract.ReasonInterrupted, status: contract.StatusPaused, code: contract.ExitInterrupted,
		shown: "interrupted, pausing loop (the agent runs on)", logged: "interrupt"},
	iteration.EndPaused: {then: pauseLoop, agentRuns: true, reason: contract.ReasonPaused, status: contract.StatusPaused, code: contract.ExitInterrupted,
		shown: "paused, exiting loop (the agent runs on)", logged: "request", pauseFile: true},
	iteration.EndStopped: {then: stopLoop, reason: contract.ReasonStopped, status: contract.StatusStopped, code: contract.ExitInterrupted,
		shown: "stopped, exiting loop", receiptNow: true},
	iteration.EndPaneGone: {then: failLoop, reason: contract.ReasonPaneClosed, status: contract.StatusFailed, code: contract.ExitFailed,
		shown: "pane %s was closed", receiptNow: true},
	iteration.EndServerGone: {then: failLoop, reason: contract.ReasonServerGone, status: contract.StatusFailed, code: contract.ExitFailed,
		shown: "tmux server is gone", receiptNow: true},
	iteration.EndStartup: {then: failLoop, reason: contract.ReasonStartupDialog, status: contract.StatusFailed, code: contract.ExitFailed,
		logged: "startup-dialog", advice: startupAdvice, receiptNow: true},
	iteration.EndNoLogin: {then: failLoop, reason: contract.ReasonNotLoggedIn, status: contract.StatusFailed, code: contract.ExitFailed,
		logged: "not_logged_in", advice: loginAdvice, receiptNow: true},
	iteration.EndMaxTime: {then: limitLoop, reason: contract.ReasonMaxTime, shown: "max time (%s) reached", receiptNow: true},
	iteration.EndBudget:  {then: budgetLoop, reason: contract.ReasonBudget, status: contract.StatusLimit, code: contract.ExitLimit}, // its receipt once its agent is ended
	iteration.EndLimit:   {then: waitReset, receiptNow: true},                                                                       // not an iteration: no checks, no on-* commands; the loop waits for the reset
	iteration.EndDialog: {shown: "question unanswered for %s, restarting", logged: "dialog_timeout=%s",
		timer: func(c *Config) string { return c.DialogTimeout.String() }},
	iteration.EndInactivity: {shown: "inactivity timeout (%s), restarting", logged: "inactivity_timeout=%s",
		timer: func(c *Config) string { return fmt.Sprintf("%ds", int(c.InactivityTimeout/time.Second)) }},
	iteration.EndTimeout: {shown: "iteration timeout (%s), restarting", logged: "iteration_timeout=%s",
		timer: func(c *Config) string { return c.IterationTimeout.String() }},
	iteration.EndExit:       {exit: true},
	iteration.EndDoneFile:   {doneSignal: true},
	iteration.EndTurn:       {completes: "turn ended", turnOver: true},
	iteration.EndTurnFailed: {failure: true},
	iteration.EndContext:    {completes: "context window full"},
	iteration.EndSkipped:    {completes: "the person asked: skipped"}, // between iterations it ends nothing (Ending.NextNow)
	iteration.EndRetried:    {completes: "the person asked: retried"},
}

// checked is what the loop knows of the checks after an iteration.
type checked int

const (
	notChecked   checked = iota // the steps after the iteration have not run yet
	checksPassed                // they ran and passed (or there are none)
	checksFailed                // they ran and one failed
)

// facts are what the loop knows besides the iteration's outcome when it decides.
type facts struct {
	checks   checked
	plan     bool // a plan of tasks decides the loop's end: a done signal is ignored
	stalled  bool // --stall-limit iterations in a row changed nothing
	failures int  // the failures in a row, this iteration's counted
}

// next is what comes after an iteration.
type next int

const (
	runSteps      next = iota // record the iteration, run the steps after it, then decide again
	leave                     // pause or stop at once, as the ending's rule says
	waitLimit                 // wait for a usage limit's reset
	endBudget                 // end the loop on its budget, its agent ended first
	endLimit                  // end the loop on a limit of its own (max time)
	endFailed                 // end the loop failed on its ending (with advice)
	endFatal                  // end the loop: the command is not there or not executable
	endPattern                // done: the done pattern matched and the checks passed
	endDoneFile               // done: the done file, and the checks passed
	pauseAgent                // the agent exited 42: pause the loop
	endStalled                // too many iterations in a row changed nothing
	endFailures               // too many failures in a row
	retry                     // a failure: the backoff, then the next iteration
	nextIteration             // the restart delay, then the next iteration
)

// decision is what decide says comes after an iteration.
type decision struct {
	next       next
	done       bool // the iteration gave the done signal (before a plan ignores it)
	ignoreDone bool // the plan ignores the done signal: it ends when its tasks are done
	rejectDone bool // the done signal came but the checks failed: the loop goes on
}

// stops is how the loop ends on an ending that allows no next iteration.
var stops = map[then]next{waitReset: waitLimit, budgetLoop: endBudget, limitLoop: endLimit, failLoop: endFailed}

// decide says what comes after an iteration, by how it ended and the facts:
// nothing here acts. Before the steps after the iteration ran (facts.checks
// notChecked) it says whether the loop leaves at once; after them, how it goes on.
func decide(it iteration.Outcome, f facts) decision {
	r := endings[it.Ending]
	d := decision{done: it.Match != "" || r.doneSignal}
	switch {
	case r.then.leaves():
		d.next = leave
		return d
	case r.then != goOn && !d.done:
		d.next = stops[r.then]
		return d
	}
	if _, fatal := iteration.ExitFailure(it.Code); r.exit && fatal != "" {
		d.next = endFatal
		return d
	}
	if f.checks == notChecked {
		return d // runSteps
	}
	done := d.done && !f.plan
	d.ignoreDone = d.done && f.plan
	switch {
	case done && f.checks == checksPassed && it.Match == "":
		d.next = endDoneFile
	case done && f.checks == checksPassed:
		d.next = endPattern
	default:
		d.rejectDone = done
		d.next = goingOn(it, r, f)
	}
	return d
}

// goingOn is how the loop goes on after an iteration that did not end it
// with the done signal: unless the agent paused it, it stalled, or it
// failed too often in a row.
func goingOn(it iteration.Outcome, r rule, f facts) next {
	switch failed := iteration.Failed(it); {
	case r.exit && it.Code == contract.ExitPause:
		return pauseAgent
	case f.stalled:
		return endStalled
	case failed && f.failures >= maxFailures:
		return endFailures
	case failed:
		return retry
	}
	return nextIteration
}

// MaxBackoff caps the wait after repeated failures.
const MaxBackoff = 300 * time.Second

// Backoff is the wait before retrying after the n-th consecutive failure:
// min(2^(n-1), 300) seconds.
func Backoff(n int) time.Duration {
	if n < 1 {
		return 0
	}
	if n > 9 { // 2^9 s is already past the cap
		return MaxBackoff
	}
	return min(time.Duration(1<<(n-1))*time.Second, MaxBackoff)
}
