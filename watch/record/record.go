// Package record keeps the loop's record: it is the one writer of the
// loop's state, in memory and in state.json, of the iterations log and of
// the receipts. The loop decides; the record writes down what it decided,
// each change by a method named for it.
package record

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// heartbeatEvery is how old state.json's heartbeat may grow while an
// iteration runs: each save costs an fsync, the most of an idle watcher's CPU.
const heartbeatEvery = 30 * time.Second

// Record is the loop's record.
type Record struct {
	name  string // the loop's, in its progress lines
	knows bool   // the agent's screen or hooks tell its state
	store *state.Store
	clock clock.Clock
	out   io.Writer // progress lines, "[ralph] NAME: …"
	err   io.Writer // warnings and errors

	st       *state.State
	cost     string // the loop's spend so far, in short, by its receipts
	lastSave time.Time
}

// New is the record of the loop named name, kept in store; knows: its
// agent's screen or hooks tell the agent's state.
func New(name string, knows bool, store *state.Store, clk clock.Clock, out, err io.Writer) *Record {
	return &Record{name: name, knows: knows, store: store, clock: clk, out: out, err: err}
}

// Setup is the loop's settings and whereabouts, as its record keeps them.
type Setup struct {
	PromptFile          string
	MaxIterations       int
	InactivityTimeout   time.Duration
	ReadyTimeout        time.Duration
	CheckDoneContinuous bool
	Pane, Socket, Dir   string
	Command             []string
	WatcherArgs         []string
	WatcherDir          string
	Agent               string
	Worktree            string
	WorktreeBranch      string
	WorktreeBase        string
	Resume              bool // a resumed watcher sees every value as a flag
	CommandSources      []state.CommandSource
	Path                string
	EndCommand          string
	Budget              receipt.Budget
	DonePattern         *regexp.Regexp
	Settings            map[string]string
}

// State is the loop's state as it stands (a copy: only the record changes it).
func (r *Record) State() state.State {
	if r.st == nil {
		return state.State{}
	}
	return *r.st
}

// Store is the loop's folder.
func (r *Record) Store() *state.Store { return r.store }

// Iteration is the loop's iteration: the one running, or the last one run.
func (r *Record) Iteration() int { return r.st.CurrentIteration }

// Cost is the loop's spend so far, in short, by its receipts.
func (r *Record) Cost() string { return r.cost }

// WriteSetup writes the loop's settings and whereabouts into its state.
func (r *Record) WriteSetup(s Setup) {
	r.st.PromptFile = s.PromptFile
	r.st.MaxIterations = s.MaxIterations
	r.st.Status = state.Running
	r.st.InactivityTimeout = int(s.InactivityTimeout / time.Second)
	r.st.CheckDoneContinuous = s.CheckDoneContinuous
	r.st.PaneID, r.st.TmuxSocket, r.st.Command = s.Pane, s.Socket, s.Command
	r.st.Dir = s.Dir
	r.st.WatcherPID, r.st.WatcherArgs, r.st.WatcherDir = os.Getpid(), s.WatcherArgs, s.WatcherDir
	r.st.Agent = s.Agent
	r.st.Worktree, r.st.WorktreeBranch = s.Worktree, s.WorktreeBranch
	if r.st.WorktreeBase == "" { // kept from the first start: a resume may see another branch checked out
		r.st.WorktreeBase = s.WorktreeBase
	}
	if !s.Resume { // a resumed watcher sees every value as a flag; the first start knew better
		r.st.CommandSources = s.CommandSources
	}
	if r.st.Path == "" { // kept from the first start: a resume from another shell must find the same programs
		r.st.Path = s.Path
	}
	r.st.EndCommand = s.EndCommand
	r.st.ReadyTimeout = int(s.ReadyTimeout / time.Second)
	r.st.MaxTokens, r.st.MaxCostUSD = s.Budget.Tokens, s.Budget.CostUSD
	r.st.DonePattern = nil
	if s.DonePattern != nil {
		p := s.DonePattern.String()
		r.st.DonePattern = &p
	}
	r.st.Settings = s.Settings
}

// Progress is the iteration out of max: "3/10", or "3" without a limit.
func (r *Record) Progress(max int) string {
	if max > 0 {
		return fmt.Sprintf("%d/%d", r.Iteration(), max)
	}
	return strconv.Itoa(r.Iteration())
}

// Save saves the state with a fresh heartbeat; it warns when it cannot.
func (r *Record) Save() {
	if err := r.TrySave(); err != nil {
		r.Warnf("%v", err)
	}
}

// TrySave saves the state with a fresh heartbeat.
func (r *Record) TrySave() error {
	now := r.clock.Now()
	r.lastSave = now
	r.st.Heartbeat = state.Stamp(now)
	return r.write()
}

// write writes the state as it is, the heartbeat untouched.
func (r *Record) write() error { return r.store.Save(r.st) }

// StartIteration records that the next iteration starts now (the last
// turn's end, if known, gives the gap between turns) and returns its number.
// The caller saves.
func (r *Record) StartIteration(now, lastTurnEnded time.Time) int {
	st := r.st
	st.CurrentIteration++
	st.LastIterationStarted, st.LastIterationEnded = state.Stamp(now), ""
	st.Status = state.Running
	st.WaitingUntil, st.DoneMatch, st.PromptLine, st.Error = "", "", nil, ""
	// Until it is typed or given to the agent: a watcher killed before then leaves it for resume.
	st.PromptUntyped, st.PromptPending = true, false
	if !lastTurnEnded.IsZero() {
		gap := now.Sub(lastTurnEnded).Milliseconds()
		st.TurnGapMS = &gap
	}
	return st.CurrentIteration
}

// Log appends an event to the iterations log.
func (r *Record) Log(event, message string) {
	if err := r.store.Log(r.clock.Now(), event, message); err != nil {
		r.Warnf("%v", err)
	}
}

// Sayf prints a progress line.
func (r *Record) Sayf(format string, args ...any) {
	fmt.Fprintf(r.out, "[ralph] %s: %s\n", r.name, fmt.Sprintf(format, args...))
}

// Warnf prints a warning.
func (r *Record) Warnf(format string, args ...any) {
	fmt.Fprintf(r.err, "ralph-watch: warning: %s\n", fmt.Sprintf(format, args...))
}

// Errorf prints an error and records it in the state.
func (r *Record) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(r.err, "ralph-watch: error: %s\n", msg)
	if r.st != nil {
		r.st.Error = msg // shown where the person looks: the tmux message, status, the popup
	}
}

// Receipt appends an iteration's receipt to the receipts file, its [COST]
// line to the log, and shows the loop's spend.
func (r *Record) Receipt(rc receipt.Receipt) {
	if r.st.Tasks != nil {
		rc.Task = r.st.Tasks.Current
	}
	path := r.store.Path(state.ReceiptsFile)
	if err := receipt.Append(path, rc); err != nil {
		r.Warnf("record the receipt of iteration %d: %v", rc.Iteration, err)
	}
	r.Log("COST", rc.LogLine())
	all, _ := receipt.Load(path)
	r.cost = receipt.Total(all).Compact()
}

// JudgeSpent adds what one call of goal mode's judge spent to the receipt
// of iteration n, the iteration it judged (one of its own when that has
// none: a done file there before any iteration), its [COST] line to the
// log, and shows the loop's spend.
func (r *Record) JudgeSpent(n int, j receipt.JudgeSpend, agentName string) {
	path := r.store.Path(state.ReceiptsFile)
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		r.Warnf("record the judge's spend of iteration %d: %v", n, err)
		return
	}
	if out, found := receipt.WithJudge(data, n, j); found {
		err = r.store.WriteFile(state.ReceiptsFile, out)
	} else {
		now := r.clock.Now()
		err = receipt.Append(path, receipt.Receipt{Iteration: n, Agent: agentName, Started: now, Ended: now, Judge: &j})
	}
	if err != nil {
		r.Warnf("record the judge's spend of iteration %d: %v", n, err)
	}
	r.Log("COST", fmt.Sprintf("iteration %d %s", n, j.LogLine()))
	all, _ := receipt.Load(path)
	r.cost = receipt.Total(all).Compact()
}

// The loop's facts, as the record keeps them. The loop decides; only the
// record writes them down (and state.json with them when it saves).

// NewRun starts the record of a loop that starts now.
func (r *Record) NewRun(start time.Time) {
	r.st = &state.State{WorkerName: r.name, Started: state.Stamp(start), IterationDurations: []int{}}
}

// ResumeRun goes on with the record a previous watcher left.
func (r *Record) ResumeRun(st *state.State) {
	st.ExitReason = nil
	r.st = st
}

// Prepared records a loop prepared and not started: paused, no watcher.
func (r *Record) Prepared() error {
	r.st.Status, r.st.WatcherPID = state.Paused, 0
	return r.write()
}

// IterationBegins records the work tree the iteration that starts now
// begins from (saved with the iteration's start: a watcher that takes it
// up measures from there), and reads the spend a resumed loop had before.
func (r *Record) IterationBegins(tree string) {
	r.st.IterationTree = tree
	if r.cost == "" { // a resumed loop shows what it spent before
		all, _ := receipt.Load(r.store.Path(state.ReceiptsFile))
		r.cost = receipt.Total(all).Compact()
	}
}

// IterationEnded records when the iteration ended.
func (r *Record) IterationEnded(at time.Time) {
	r.st.LastIterationEnded, r.st.PromptUntyped = state.Stamp(at), false
}

// AgentRunsOn records a loop that leaves its agent running mid-iteration:
// the iteration is not over (unless the loop waits for a limit's reset and
// none runs), its prompt may be untyped, its done match already seen.
func (r *Record) AgentRunsOn(untyped bool, match string) {
	if r.st.WaitingUntil == "" {
		r.st.LastIterationEnded = ""
	}
	r.st.PromptUntyped = untyped // resume types the prompt
	r.st.DoneMatch = match       // resume ends the loop on it, as it would have
}

// TurnEnded records when the agent finished its turn.
func (r *Record) TurnEnded(at time.Time) { r.st.LastTurnEnded = state.Stamp(at) }

// Exited records the agent's exit status.
func (r *Record) Exited(code int) { r.st.LastExitCode = &code }

// Failed counts a failed iteration and returns the failures in a row.
func (r *Record) Failed() int {
	r.st.ConsecutiveFailures++
	r.st.TotalFailures++
	return r.st.ConsecutiveFailures
}

// Completed records an iteration that ended well, after d.
func (r *Record) Completed(d time.Duration, shown, logged string) {
	r.st.ConsecutiveFailures = 0
	r.st.IterationDurations = append(r.st.IterationDurations, int(d/time.Second))
	r.Sayf("iteration %d completed (%s, duration: %s)", r.Iteration(), shown, checks.FormatDuration(d))
	r.Log("END", fmt.Sprintf("iteration %d %s duration=%s", r.Iteration(), logged, checks.FormatDuration(d)))
}

// WaitingFor records a wait for a usage limit's reset: the iteration that
// met the limit is given back, to run again after it.
func (r *Record) WaitingFor(until time.Time) {
	r.st.CurrentIteration--
	r.st.WaitingUntil = state.Stamp(until)
}

// Unchanged counts the iterations in a row that changed nothing, and
// returns the count: 0 once one changed something.
func (r *Record) Unchanged(same bool) int {
	if !same {
		r.st.UnchangedIterations = 0
	} else {
		r.st.UnchangedIterations++
	}
	return r.st.UnchangedIterations
}

// ChecksRan records a run of the checks after an iteration.
func (r *Record) ChecksRan(c state.Checks) { r.st.AddChecks(c) }

// TakePromptUntyped reports whether the paused iteration's prompt was never
// typed, cleared from the record.
func (r *Record) TakePromptUntyped() bool {
	u := r.st.PromptUntyped
	r.st.PromptUntyped = false
	return u
}

// PaneRemain records the pane's own remain-on-exit, given back at the end.
func (r *Record) PaneRemain(own state.PaneOption) { r.st.RemainOnExit = &own }

// PaneServer records the tmux server the pane is in: another is not the loop's.
func (r *Record) PaneServer(pid int) { r.st.ServerPID = pid }

// ShellStarted records the shell the pane runs after the loop, and saves.
func (r *Record) ShellStarted(pid int) {
	r.st.ShellPID = pid
	r.Save()
}

// Ended records how the loop ended.
func (r *Record) Ended(reason contract.Reason) { reason.Write(r.st) }

// Status records the status shown, with its reason, and saves.
func (r *Record) Status(s contract.Status, reason string, now time.Time) {
	s.Record(r.st, reason, now)
	r.Save()
}

// AgentState records what the agent's screen or hooks say, for status:
// saved when it changes (a few times a turn), so status tells working from
// idle while a turn runs. A screen that says nothing known keeps the last
// word (Codex hides its busy line while it streams).
func (r *Record) AgentState(s agent.State) {
	if !r.knows || s == agent.StateUnknown && r.st.AgentState != "" {
		return
	}
	if name := s.String(); name != r.st.AgentState {
		r.st.AgentState = name
		r.Save()
	}
}

// Judged records goal mode's goal as the judge read it and its verdict.
func (r *Record) Judged(goal string, v state.Verdict) {
	if v.Missing == nil {
		v.Missing = []string{}
	}
	if goal != "" {
		r.st.Goal = goal
	}
	r.st.Verdicts = append(r.st.Verdicts, v)
}
