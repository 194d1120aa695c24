package contract

import "github.com/ralph-tmux/ralph.tmux/watch/state"

// Reason is why a loop ended or paused, one word: state.json's exit_reason,
// the [DONE] line and @ralph-reason.
type Reason string

// ReasonOf is the reason recorded in a loop's state, "" for none.
func ReasonOf(st *state.State) Reason {
	if st.ExitReason == nil {
		return ""
	}
	return Reason(*st.ExitReason)
}

// Write records r as the state's exit reason.
func (r Reason) Write(st *state.State) {
	word := string(r)
	st.ExitReason = &word
}

// The reasons a loop ends or pauses with.
const (
	ReasonDonePattern         Reason = "done_pattern"         // the done pattern matched after the prompt
	ReasonDoneFile            Reason = "done_file"            // the done file appeared
	ReasonMaxIterations       Reason = "max_iterations"       // --max-iterations ran
	ReasonMaxTime             Reason = "max_time"             // --max-time ran out
	ReasonBudget              Reason = "budget"               // --max-tokens or --max-cost reached
	ReasonInterrupted         Reason = "interrupted"          // the watcher was interrupted: the agent runs on
	ReasonPaused              Reason = "paused"               // a pause request: the agent runs on
	ReasonStopped             Reason = "stopped"              // a stop: the agent runs on
	ReasonKilled              Reason = "killed"               // a stop --kill: the agent was ended too
	ReasonPaneClosed          Reason = "pane_closed"          // the loop's pane was closed
	ReasonServerGone          Reason = "server_gone"          // the tmux server is gone
	ReasonStartupDialog       Reason = "startup-dialog"       // a start-up question the prompt must not be typed into
	ReasonFatalExit           Reason = "fatal_exit"           // the command is not there or not executable
	ReasonNotLoggedIn         Reason = "not_logged_in"        // the agent is not logged in, or its API refused its key
	ReasonConsecutiveFailures Reason = "consecutive_failures" // too many failed iterations in a row
	ReasonStalled             Reason = "stalled"              // --stall-limit iterations changed nothing
	ReasonPromptFileMissing   Reason = "prompt_file_missing"  // the prompt file is gone
	ReasonStateUnwritable     Reason = "state_unwritable"     // state.json cannot be written
	ReasonNoState             Reason = "no_state"             // resume found no loop to go on with
	ReasonTasksDone           Reason = "tasks_done"           // every task of the plan is done
	ReasonTasksSkipped        Reason = "tasks_skipped"        // no task is open, but some were skipped
	ReasonTasksUnreadable     Reason = "tasks_unreadable"     // the plan (--tasks) cannot be read
	ReasonGoalMet             Reason = "goal_met"             // a judge found the goal (--goal) met
	ReasonGoalStalemate       Reason = "goal_stalemate"       // the judge found the same missing, the work unchanged, --judge-patience times
	ReasonPRReady             Reason = "pr_ready"             // follow: the pull request is green and approved (or needs no review)
	ReasonFollowRounds        Reason = "follow_rounds"        // follow: --follow-rounds rounds of fixes and still not green
)
