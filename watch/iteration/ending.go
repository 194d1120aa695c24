package iteration

import (
	"strconv"

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

// progress is how the progress file and the on-* commands name the end of
// an iteration that ended so; with none, "exit".
var progress = map[Ending]string{
	EndDialog: "dialog_timeout", EndInactivity: "inactivity_timeout", EndTimeout: "iteration_timeout",
	EndDoneFile: "done_file", EndTurn: "turn_end", EndTurnFailed: "turn_failed", EndContext: "context",
	EndSkipped: "skipped", EndRetried: "retried",
}

// Progress is how the progress file names an iteration that ended so; "": exit.
func (e Ending) Progress() string { return progress[e] }

// NextNow says whether the ending, come between iterations, ends nothing
// (a skip, a retry with no iteration running): the next one starts now.
func (e Ending) NextNow() bool { return e == EndSkipped || e == EndRetried }

// Failed says whether the iteration failed: its hook said so, or its agent
// exited with an error or before it took the prompt.
func Failed(it Outcome) bool {
	return it.Ending == EndTurnFailed || it.Ending == EndExit && (it.Code != 0 || it.Untaken)
}

// EndReason names how an iteration ended, for the progress file and the on-* commands.
func EndReason(it Outcome) string {
	if it.Match != "" {
		return "done_pattern"
	}
	if p := it.Ending.Progress(); p != "" {
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
	if it.Ending == EndTurnFailed {
		return "API error: " + it.Detail, "turn_failed=" + strconv.Quote(it.Detail)
	}
	if it.Untaken {
		return "exit: " + exitText(it.Code) + " before it took the prompt", "exit=" + exitText(it.Code) + " before_prompt"
	}
	return "exit: " + exitText(it.Code), "exit=" + exitText(it.Code)
}
