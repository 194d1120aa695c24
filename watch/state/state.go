// Package state keeps a loop's record on disk: state.json (written
// atomically), iterations.log, and the lock that makes one watcher per loop.
package state

import "time"

// Statuses a loop can have.
const (
	Running = "running"
	Paused  = "paused"
	Stopped = "stopped"
	Failed  = "failed"
)

// State is the swarm schema plus where the loop runs and who watches it.
type State struct {
	WorkerName           string  `json:"worker_name"`
	PromptFile           string  `json:"prompt_file"`
	MaxIterations        int     `json:"max_iterations"`
	CurrentIteration     int     `json:"current_iteration"`
	Status               string  `json:"status"`
	Started              string  `json:"started"`
	LastIterationStarted string  `json:"last_iteration_started"`
	LastIterationEnded   string  `json:"last_iteration_ended"`
	IterationDurations   []int   `json:"iteration_durations"`
	ConsecutiveFailures  int     `json:"consecutive_failures"`
	TotalFailures        int     `json:"total_failures"`
	DonePattern          *string `json:"done_pattern"`
	InactivityTimeout    int     `json:"inactivity_timeout"`
	CheckDoneContinuous  bool    `json:"check_done_continuous"`
	ExitReason           *string `json:"exit_reason"`
	// Path is the PATH the loop was started with, given to every agent it
	// starts, after a resume from another shell too.
	Path string `json:"path,omitempty"`
	// Error is the sentence that explains the loop's last error ("command
	// not found: claud"), shown beside the reason's code word.
	Error        string   `json:"error,omitempty"`
	PaneID       string   `json:"pane_id"`
	Dir          string   `json:"dir,omitempty"` // where the agent runs: a pane recreated after a restart opens there
	TmuxSocket   string   `json:"tmux_socket"`
	Command      []string `json:"command"`
	WatcherPID   int      `json:"watcher_pid"`
	Heartbeat    string   `json:"heartbeat"`
	LastExitCode *int     `json:"last_exit_code"`
	// How the watcher was started, so resume can start it again the same way.
	WatcherArgs []string `json:"watcher_args,omitempty"`
	WatcherDir  string   `json:"watcher_dir,omitempty"`
	// What the agent's screen showed last, by its profile.
	Agent      string `json:"agent,omitempty"`
	AgentState string `json:"agent_state,omitempty"` // working, idle, needs-input, limited, …
	// When the agent's last turn ended, and how long after it the next
	// iteration started (milliseconds).
	LastTurnEnded string `json:"last_turn_ended,omitempty"`
	TurnGapMS     *int64 `json:"turn_gap_ms,omitempty"`
	WaitingUntil  string `json:"waiting_until,omitempty"` // a usage limit resets then
	// What the loop shows (words.Status's word: running, starting, backoff,
	// needs-input, waiting, paused, done, failed, limit, stopped), finer
	// than Status, which keeps the swarm schema's four words; since when,
	// and how it ended or what it waits for.
	Shown      string `json:"shown,omitempty"`
	ShownSince string `json:"shown_since,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// ReadyTimeout bounds the wait for the agent to be ready (seconds).
	ReadyTimeout int `json:"ready_timeout,omitempty"`
	// DoneMatch is a done signal seen in an iteration the loop was paused
	// in: resuming ends the loop on it (after the checks).
	DoneMatch string `json:"done_match,omitempty"`
	// PromptLine is the pane's line (history lines counted) on which the
	// iteration's prompt went in: a watcher that comes back reads the pane
	// from there for a done signal printed while none watched.
	PromptLine *int `json:"prompt_line,omitempty"`
	// PromptPending: the prompt was being typed when the watcher stopped
	// (killed between the paste and Enter): the next one submits it, or
	// types it again, once.
	PromptPending bool `json:"prompt_pending,omitempty"`
	// PromptPasted: of a pending prompt, tmux took the paste: the agent
	// has the text even when it shows none of it, so the next watcher
	// presses Enter alone (pasting again would send it twice).
	PromptPasted bool `json:"prompt_pasted,omitempty"`
	// EndCommand runs in the pane when the loop ends with its agent gone
	// ("" or "none": the pane is left as it is).
	EndCommand string `json:"end_command,omitempty"`
	// PromptUntyped: the iteration's prompt is not typed (or given) yet: set
	// when it starts, so a watcher killed before then leaves it for resume
	// to deliver, and when a pause came first; resume types it into the agent.
	PromptUntyped bool `json:"prompt_untyped,omitempty"`
	// RemainOnExit is the pane's own remain-on-exit before the loop took it
	// (the loop sets it on), given back when the loop ends; a resumed watcher
	// finds it here, not on the pane.
	RemainOnExit *PaneOption `json:"remain_on_exit,omitempty"`
	// ShellPID is the pane's process once the end command replaced the agent.
	ShellPID int `json:"shell_pid,omitempty"`
	// ServerPID is the tmux server the loop's pane lives in: a new server
	// reuses pane ids, so a pane of another server is not the loop's.
	ServerPID int `json:"server_pid,omitempty"`
	// Checks run after iterations, the latest last (at most MaxCheckHistory).
	Checks []Checks `json:"checks,omitempty"`
	// Iterations in a row that changed neither HEAD nor the working tree.
	UnchangedIterations int    `json:"unchanged_iterations,omitempty"`
	Worktree            string `json:"worktree,omitempty"`
	WorktreeBranch      string `json:"worktree_branch,omitempty"`
	// WorktreeBase is the branch the worktree was made from, recorded when
	// the loop first starts: where finish --merge lands the work.
	WorktreeBase string `json:"worktree_base,omitempty"`
	// Where each command the loop runs (checks, hooks) came from.
	CommandSources []CommandSource `json:"command_sources,omitempty"`
	// The loop's budget (--max-tokens, --max-cost); 0: none.
	MaxTokens  int64   `json:"max_tokens,omitempty"`
	MaxCostUSD float64 `json:"max_cost_usd,omitempty"`
	// What the person steered (ralph-watch note, set; see steer.go): the
	// notes for the next prompts, the limits set while the loop ran, and
	// the requests applied whose files may still be there.
	Notes   []Note   `json:"notes,omitempty"`
	Set     *Limits  `json:"set,omitempty"`
	Steered []string `json:"steered,omitempty"`
	// Tasks is the plan the loop works through (--tasks): nil without one.
	Tasks *Tasks `json:"tasks,omitempty"`
	// Goal is the goal a judge must find met (--goal): "" without one;
	// Verdicts are the judge's verdicts on it, in turn.
	Goal     string    `json:"goal,omitempty"`
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// Settings are the loop's settings as its watcher runs them (watch's
	// Config, field by field): a resumed loop takes its places from them.
	Settings map[string]string `json:"settings,omitempty"`
	// IterationTree is the work tree (a git tree) when the current
	// iteration began: its change is measured from there, whichever
	// watcher sees it end.
	IterationTree string `json:"iteration_tree,omitempty"`
}

// Tasks is a loop's plan as the loop sees it: the counts of its last
// reading and each task with what the loop did with it.
type Tasks struct {
	File    string `json:"file"`
	Total   int    `json:"total"`
	Done    int    `json:"done"`
	Open    int    `json:"open"`
	Skipped int    `json:"skipped"`
	// Current is the task of the iteration running or last run; Mode is
	// what that iteration does with it: implement, review or fix.
	Current string     `json:"current,omitempty"`
	Mode    string     `json:"mode,omitempty"`
	Items   []TaskItem `json:"items"`
	// The work when the loop started (a git tree, for {{diff}}) and before
	// the current iteration (git tree and HEAD; outside git a print of the
	// folder), to tell whether the iteration changed anything.
	Base        string `json:"base,omitempty"`
	BeforeTree  string `json:"before_tree,omitempty"`
	BeforeHead  string `json:"before_head,omitempty"`
	BeforePrint string `json:"before_print,omitempty"`
}

// TaskItem is one task of the plan and the loop's record of it.
type TaskItem struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// State is the plan's (open, done, in-progress) or the loop's
	// (skipped; review: implemented, waiting for its review).
	State      string        `json:"state"`
	Attempts   int           `json:"attempts"`             // implement and fix iterations
	Reviews    int           `json:"reviews,omitempty"`    // review iterations
	Unfinished int           `json:"unfinished,omitempty"` // its agents' iterations in a row that did not run to their end (not counted)
	Iterations []int         `json:"iterations,omitempty"` // every iteration that worked on it
	Verdicts   []TaskVerdict `json:"verdicts,omitempty"`
	Notes      string        `json:"notes,omitempty"` // the last review's findings
}

// TaskVerdict is what the loop decided after an iteration on a task.
type TaskVerdict struct {
	Iteration int    `json:"iteration"`
	Verdict   string `json:"verdict"` // done, rejected, not_done, skipped, review, approved, changes
	Reason    string `json:"reason,omitempty"`
}

// Item is the task id's record, nil if the plan has none.
func (t *Tasks) Item(id string) *TaskItem {
	for i := range t.Items {
		if t.Items[i].ID == id {
			return &t.Items[i]
		}
	}
	return nil
}

// MaxCheckHistory bounds how many iterations' check results state.json keeps;
// iterations.log has them all.
const MaxCheckHistory = 50

// Checks are one iteration's check results.
type Checks struct {
	Iteration int           `json:"iteration"`
	Results   []CheckResult `json:"results"`
}

// CheckResult is how one check went.
type CheckResult struct {
	Command  string `json:"command"`
	Hint     string `json:"hint,omitempty"`
	ExitCode int    `json:"exit_code"`
	Passed   bool   `json:"passed"`
	TimedOut bool   `json:"timed_out,omitempty"`
	Duration int    `json:"duration"` // seconds
	Log      string `json:"log"`      // the full output
}

// AddChecks records an iteration's check results, dropping the oldest beyond
// MaxCheckHistory.
func (st *State) AddChecks(c Checks) {
	st.Checks = append(st.Checks, c)
	if over := len(st.Checks) - MaxCheckHistory; over > 0 {
		st.Checks = append([]Checks(nil), st.Checks[over:]...)
	}
}

// LastChecks is the latest iteration's check results, nil if none ran.
func (st *State) LastChecks() *Checks {
	if len(st.Checks) == 0 {
		return nil
	}
	return &st.Checks[len(st.Checks)-1]
}

// TimeFormat is how times are written: local time, as the swarm schema does.
const TimeFormat = "2006-01-02T15:04:05"

// Stamp formats t for state.json and iterations.log.
func Stamp(t time.Time) string { return t.Format(TimeFormat) }

// PaneOption is a pane's own value of an option, or that it had none.
type PaneOption struct {
	Value string `json:"value"`
	Set   bool   `json:"set"`
}

// Verdict is one judging of the goal: met, or what is missing and why not.
type Verdict struct {
	Iteration int      `json:"iteration"`
	Met       bool     `json:"met"`
	Missing   []string `json:"missing"`
	Reason    string   `json:"reason,omitempty"`
	// Evidence is what the judge named in the evidence as done (finish
	// --pr quotes the last verdict's).
	Evidence []string `json:"evidence,omitempty"`
}
