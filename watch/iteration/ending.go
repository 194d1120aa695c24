package iteration

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// How one iteration, or one step of it, ended. Each name means one thing.
type Ending int

const (
	EndNone        Ending = iota // nothing ended it: go on
	EndReady                     // the agent takes input: the prompt is typed now
	EndWaitOver                  // a wait between iterations ran its course
	EndExit                      // the agent exited
	EndDone                      // the done pattern matched (checked as output arrives)
	EndDoneFile                  // the done file appeared
	EndInactivity                // the screen stood still for the inactivity timeout
	EndTimeout                   // the iteration ran out of time
	EndMaxTime                   // the loop ran out of time
	EndInterrupted               // the watcher was interrupted: the agent runs on
	EndPaneGone                  // the pane was closed
	EndServerGone                // the tmux server is gone
	EndPaused                    // a pause request: the agent runs on
	EndStopped                   // a stop request
	EndTurn                      // the agent finished its turn and sits idle at its prompt
	EndLimit                     // a usage limit: wait for the reset
	EndDialog                    // a question went unanswered for the dialog timeout
	EndStartup                   // a start-up dialog: the prompt must not be typed into it
	EndTurnFailed                // the agent's hook said its turn failed (an API error): a failure
	EndBudget                    // the loop's spend reached its budget while the iteration ran
	EndNoLogin                   // the agent is not logged in, or its API refused its key
	EndContext                   // the agent's context window filled past --max-context+15
	EndSkipped                   // the person skipped the iteration (and its task)
	EndRetried                   // the person asked for the iteration's task again, in a fresh agent
)

// Then is what the loop does after an ending: each a thing the Loop does.
type Then int

const (
	GoOn       Then = iota // the iteration is over: record it, run the checks, start the next
	PauseLoop              // the loop pauses at once, its agent running on (an interrupt, a request, the pause file)
	StopLoop               // the loop stops at once: the person asked
	FailLoop               // the loop ends failed at once, unless the done signal came first
	LimitLoop              // the loop ends on a limit of its own (max time), unless the done signal came first
	BudgetLoop             // the loop ends on its budget, its agent ended first, unless the done signal came first
	WaitReset              // the loop waits for a usage limit's reset, unless the done signal came first
)

// Leaves says whether the loop leaves at once, whatever the iteration said.
func (t Then) Leaves() bool { return t == PauseLoop || t == StopLoop }

// Advice is what the loop tells the person of an ending that needs them.
type Advice int

const (
	NoAdvice      Advice = iota
	StartupAdvice        // how to get past the agent's start-up dialog
	LoginAdvice          // log the agent in, or give it a key
)

// Rule is what an ending means for the loop, as data.
type Rule struct {
	Then      Then
	AgentRuns bool                     // the loop leaves the agent running: its iteration is not over
	Reason    contract.Reason          // the loop's recorded reason when the ending ends it
	Status    contract.Status          // the loop's status then
	Code      int                      // the exit code then
	Shown     string                   // the line shown (for a stop, an error; for a limit or a timer, a format of its setting)
	Logged    string                   // the record's cause, or for a timer a format of its setting
	Progress  string                   // how the progress file and the on-* commands name the iteration's end; "": exit
	Failure   bool                     // the iteration failed: it counts towards the consecutive failures
	Timer     func(s *Settings) string // the setting that ran out, for shown and logged
	Advice    Advice                   // what the person is told to do, for an ending that needs them
	// Completes is how the record shows an iteration that completed so
	// (its log line says progress); "": not this way.
	Completes  string
	DoneSignal bool // it is the done signal itself (the done file)
	TurnOver   bool // the agent finished its turn and runs on (its last words may be still unwritten)
	Exit       bool // the agent exited: its exit status says how it went
	ReceiptNow bool // the loop ends here without an iteration's end: its receipt is written now
	PauseFile  bool // the pause file may be what asked
	// NextNow: between iterations it ends nothing (a skip, a retry with no
	// iteration running): the next one starts now.
	NextNow bool
}

// Rules says what each ending means; the loop's settle goes by it.
var Rules = map[Ending]Rule{
	EndInterrupted: {Then: PauseLoop, AgentRuns: true, Reason: contract.ReasonInterrupted, Status: contract.StatusPaused, Code: contract.ExitInterrupted,
		Shown: "interrupted, pausing loop (the agent runs on)", Logged: "interrupt"},
	EndPaused: {Then: PauseLoop, AgentRuns: true, Reason: contract.ReasonPaused, Status: contract.StatusPaused, Code: contract.ExitInterrupted,
		Shown: "paused, exiting loop (the agent runs on)", Logged: "request", PauseFile: true},
	EndStopped: {Then: StopLoop, Reason: contract.ReasonStopped, Status: contract.StatusStopped, Code: contract.ExitInterrupted,
		Shown: "stopped, exiting loop", ReceiptNow: true},
	EndPaneGone: {Then: FailLoop, Reason: contract.ReasonPaneClosed, Status: contract.StatusFailed, Code: contract.ExitFailed,
		Shown: "pane %s was closed", ReceiptNow: true},
	EndServerGone: {Then: FailLoop, Reason: contract.ReasonServerGone, Status: contract.StatusFailed, Code: contract.ExitFailed,
		Shown: "tmux server is gone", ReceiptNow: true},
	EndStartup: {Then: FailLoop, Reason: contract.ReasonStartupDialog, Status: contract.StatusFailed, Code: contract.ExitFailed,
		Logged: "startup-dialog", Advice: StartupAdvice, ReceiptNow: true},
	EndNoLogin: {Then: FailLoop, Reason: contract.ReasonNotLoggedIn, Status: contract.StatusFailed, Code: contract.ExitFailed,
		Logged: "not_logged_in", Advice: LoginAdvice, ReceiptNow: true},
	EndMaxTime: {Then: LimitLoop, Reason: contract.ReasonMaxTime, Shown: "max time (%s) reached", ReceiptNow: true},
	EndBudget:  {Then: BudgetLoop, Reason: contract.ReasonBudget, Status: contract.StatusLimit, Code: contract.ExitLimit}, // its receipt once its agent is ended
	EndLimit:   {Then: WaitReset, ReceiptNow: true},                                                                       // not an iteration: no checks, no on-* commands; the loop waits for the reset
	EndDialog: {Progress: "dialog_timeout", Shown: "question unanswered for %s, restarting", Logged: "dialog_timeout=%s",
		Timer: func(s *Settings) string { return s.DialogTimeout.String() }},
	EndInactivity: {Progress: "inactivity_timeout", Shown: "inactivity timeout (%s), restarting", Logged: "inactivity_timeout=%s",
		Timer: func(s *Settings) string { return fmt.Sprintf("%ds", int(s.InactivityTimeout/time.Second)) }},
	EndTimeout: {Progress: "iteration_timeout", Shown: "iteration timeout (%s), restarting", Logged: "iteration_timeout=%s",
		Timer: func(s *Settings) string { return s.IterationTimeout.String() }},
	EndExit:       {Exit: true},
	EndDoneFile:   {Progress: "done_file", DoneSignal: true},
	EndTurn:       {Progress: "turn_end", Completes: "turn ended", TurnOver: true},
	EndTurnFailed: {Progress: "turn_failed", Failure: true},
	EndContext:    {Progress: "context", Completes: "context window full"},
	EndSkipped:    {Progress: "skipped", Completes: "the person asked: skipped", NextNow: true},
	EndRetried:    {Progress: "retried", Completes: "the person asked: retried", NextNow: true},
}

// Failed says whether the iteration failed: its hook said so, or its agent
// exited with an error or before it took the prompt.
func Failed(it Outcome) bool {
	rule := Rules[it.Ending]
	return rule.Failure || rule.Exit && (it.Code != 0 || it.Untaken)
}

// EndReason names how an iteration ended, for the progress file and the on-* commands.
func EndReason(it Outcome) string {
	if it.Match != "" {
		return "done_pattern"
	}
	if p := Rules[it.Ending].Progress; p != "" {
		return p
	}
	return "exit"
}

// ExitFailure says how an agent's exit status counts: a failure, and a
// fatal one (the command is not there or not executable) with why.
func ExitFailure(code int) (failure bool, fatal string) {
	switch code {
	case 0, contract.ExitPause:
		return false, ""
	case 126:
		return true, "command not executable"
	case 127:
		return true, "command not found"
	}
	return true, ""
}

// FailureText is how a failed iteration is shown and logged.
func FailureText(it Outcome) (shown, logged string) {
	if Rules[it.Ending].Failure {
		return "API error: " + it.Detail, "turn_failed=" + strconv.Quote(it.Detail)
	}
	if it.Untaken {
		return "exit: " + exitText(it.Code) + " before it took the prompt", "exit=" + exitText(it.Code) + " before_prompt"
	}
	return "exit: " + exitText(it.Code), "exit=" + exitText(it.Code)
}
