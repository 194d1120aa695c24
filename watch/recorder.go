package watch

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// recorder keeps the loop's record: it is the only writer of state.json,
// the iterations log and the receipts. The loop decides; the recorder
// writes down what it decided.
type recorder struct {
	cfg   *Config // read only
	tmux  tmux.Client
	store *state.Store
	clock clock.Clock
	out   io.Writer // progress lines, "[ralph] NAME: …"
	err   io.Writer // warnings and errors

	st       *state.State
	cost     string // the loop's spend so far, in short, by its receipts
	lastSave time.Time
}

// iteration is the loop's iteration: the one running, or the last one run.
func (r *recorder) iteration() int { return r.st.CurrentIteration }

// record writes the loop's settings and whereabouts into its state.
func (r *recorder) record() {
	r.st.PromptFile = r.cfg.PromptFile
	r.st.MaxIterations = r.cfg.MaxIterations
	r.st.Status = state.Running
	r.st.InactivityTimeout = int(r.cfg.InactivityTimeout / time.Second)
	r.st.CheckDoneContinuous = r.cfg.CheckDoneContinuous
	r.st.PaneID, r.st.TmuxSocket, r.st.Command = r.cfg.Pane, r.cfg.Socket, r.cfg.Command
	r.st.Dir = r.cfg.Dir
	r.st.WatcherPID, r.st.WatcherArgs, r.st.WatcherDir = os.Getpid(), r.cfg.WatcherArgs, r.cfg.WatcherDir
	r.st.Agent = r.cfg.Agent.Name
	r.st.Worktree, r.st.WorktreeBranch = r.cfg.Worktree, r.cfg.WorktreeBranch
	if r.st.WorktreeBase == "" { // kept from the first start: a resume may see another branch checked out
		r.st.WorktreeBase = r.cfg.WorktreeBase
	}
	if !r.cfg.Resume { // a resumed watcher sees every value as a flag; the first start knew better
		r.st.CommandSources = r.cfg.CommandSources
	}
	if r.st.Path == "" { // kept from the first start: a resume from another shell must find the same programs
		r.st.Path = r.cfg.Path
	}
	r.st.EndCommand = r.cfg.EndCommand
	r.st.ReadyTimeout = int(r.cfg.ReadyTimeout / time.Second)
	r.st.MaxTokens, r.st.MaxCostUSD = r.cfg.Budget.Tokens, r.cfg.Budget.CostUSD
	r.st.DonePattern = nil
	if r.cfg.DonePattern != nil {
		p := r.cfg.DonePattern.String()
		r.st.DonePattern = &p
	}
	r.st.Settings = r.cfg.Settings()
}

func (r *recorder) progress() string {
	if r.cfg.MaxIterations > 0 {
		return fmt.Sprintf("%d/%d", r.iteration(), r.cfg.MaxIterations)
	}
	return strconv.Itoa(r.iteration())
}

func (r *recorder) save() {
	if err := r.trySave(); err != nil {
		r.warnf("%v", err)
	}
}

func (r *recorder) trySave() error {
	now := r.clock.Now()
	r.lastSave = now
	r.st.Heartbeat = state.Stamp(now)
	return r.write()
}

// write writes the state as it is, the heartbeat untouched.
func (r *recorder) write() error { return r.store.Save(r.st) }

// startIteration records that the next iteration starts now (the last
// turn's end, if known, gives the gap between turns) and returns its number.
// The caller saves.
func (r *recorder) startIteration(now, lastTurnEnded time.Time) int {
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

func (r *recorder) log(event, message string) {
	if err := r.store.Log(r.clock.Now(), event, message); err != nil {
		r.warnf("%v", err)
	}
}

func (r *recorder) sayf(format string, args ...any) {
	fmt.Fprintf(r.out, "[ralph] %s: %s\n", r.cfg.Name, fmt.Sprintf(format, args...))
}

func (r *recorder) warnf(format string, args ...any) {
	fmt.Fprintf(r.err, "ralph-watch: warning: %s\n", fmt.Sprintf(format, args...))
}

func (r *recorder) errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(r.err, "ralph-watch: error: %s\n", msg)
	if r.st != nil {
		r.st.Error = msg // shown where the person looks: the tmux message, status, the popup
	}
}

// seconds prints a duration in whole seconds, the way the swarm messages do.
func seconds(d time.Duration) string { return fmt.Sprintf("%ds", int(d/time.Second)) }

// receipt appends an iteration's receipt to the receipts file, its [COST]
// line to the log, and shows the loop's spend.
func (r *recorder) receipt(rc receipt.Receipt) {
	if r.st.Tasks != nil {
		rc.Task = r.st.Tasks.Current
	}
	path := r.store.Path(state.ReceiptsFile)
	if err := receipt.Append(path, rc); err != nil {
		r.warnf("record the receipt of iteration %d: %v", rc.Iteration, err)
	}
	r.log("COST", rc.LogLine())
	all, _ := receipt.Load(path)
	r.cost = receipt.Total(all).Compact()
}

// agentState records what the agent's screen or hooks say, for status:
// saved when it changes (a few times a turn), so status tells working from
// idle while a turn runs. A screen that says nothing known keeps the last
// word (Codex hides its busy line while it streams).
func (r *recorder) agentState(s agent.State) {
	if !r.cfg.Agent.Knows() || s == agent.StateUnknown && r.st.AgentState != "" {
		return
	}
	if name := s.String(); name != r.st.AgentState {
		r.st.AgentState = name
		r.save()
	}
}

// The loop's facts, as the record keeps them. The loop decides; only the
// recorder writes them down (and state.json with them when it saves).

// newRun starts the record of a loop that starts now.
func (r *recorder) newRun(start time.Time) {
	r.st = &state.State{WorkerName: r.cfg.Name, Started: state.Stamp(start), IterationDurations: []int{}}
}

// resumeRun goes on with the record a previous watcher left.
func (r *recorder) resumeRun(st *state.State) {
	st.ExitReason = nil
	r.st = st
}

// prepared records a loop prepared and not started: paused, no watcher.
func (r *recorder) prepared() error {
	r.st.Status, r.st.WatcherPID = state.Paused, 0
	return r.write()
}

// iterationEnded records when the iteration ended.
func (r *recorder) iterationEnded(at time.Time) {
	r.st.LastIterationEnded, r.st.PromptUntyped = state.Stamp(at), false
}

// agentRunsOn records a loop that leaves its agent running mid-iteration:
// the iteration is not over (unless the loop waits for a limit's reset and
// none runs), its prompt may be untyped, its done match already seen.
func (r *recorder) agentRunsOn(untyped bool, match string) {
	if r.st.WaitingUntil == "" {
		r.st.LastIterationEnded = ""
	}
	r.st.PromptUntyped = untyped // resume types the prompt
	r.st.DoneMatch = match       // resume ends the loop on it, as it would have
}

// turnEnded records when the agent finished its turn.
func (r *recorder) turnEnded(at time.Time) { r.st.LastTurnEnded = state.Stamp(at) }

// exited records the agent's exit status.
func (r *recorder) exited(code int) { r.st.LastExitCode = &code }

// failed counts a failed iteration.
func (r *recorder) failed() {
	r.st.ConsecutiveFailures++
	r.st.TotalFailures++
}

// completed records an iteration that ended well, after d.
func (r *recorder) completed(d time.Duration, shown, logged string) {
	r.st.ConsecutiveFailures = 0
	r.st.IterationDurations = append(r.st.IterationDurations, int(d/time.Second))
	r.sayf("iteration %d completed (%s, duration: %s)", r.iteration(), shown, checks.FormatDuration(d))
	r.log("END", fmt.Sprintf("iteration %d %s duration=%s", r.iteration(), logged, checks.FormatDuration(d)))
}

// waitingFor records a wait for a usage limit's reset: the iteration that
// met the limit is given back, to run again after it.
func (r *recorder) waitingFor(until time.Time) {
	r.st.CurrentIteration--
	r.st.WaitingUntil = state.Stamp(until)
}

// checksRan records a run of the checks after an iteration.
func (r *recorder) checksRan(c state.Checks) { r.st.AddChecks(c) }

// planProgress keeps the plan's part of the record (progress.Plan's) once
// the plan has made it; nil: none yet.
func (r *recorder) planProgress(t *state.Tasks) {
	if t != nil {
		r.st.Tasks = t
	}
}

// unchanged counts the iterations in a row that changed nothing, and
// returns the count: 0 once one changed something.
func (r *recorder) unchanged(same bool) int {
	if !same {
		r.st.UnchangedIterations = 0
	} else {
		r.st.UnchangedIterations++
	}
	return r.st.UnchangedIterations
}

// promptAt records the pane's line the prompt goes in at (nil: unknown), and saves.
func (r *recorder) promptAt(line *int) {
	r.st.PromptLine, r.st.PromptUntyped = line, false
	r.save()
}

// promptPending records whether a prompt is being typed (a watcher stopped
// meanwhile leaves it for the next to finish), and saves.
func (r *recorder) promptPending(pending bool) {
	r.st.PromptPending, r.st.PromptPasted = pending, false
	if pending { // typing began: the next watcher finishes it, never types it afresh
		r.st.PromptUntyped = false
	}
	r.save()
}

// takeDoneMatch is the done match a paused loop's agent printed before the
// pause, cleared from the record.
func (r *recorder) takeDoneMatch() string {
	m := r.st.DoneMatch
	r.st.DoneMatch = ""
	return m
}

// promptPasted records that tmux took the pending prompt's paste, and saves.
func (r *recorder) promptPasted() {
	r.st.PromptPasted = true
	r.save()
}

// takePromptUntyped reports whether the paused iteration's prompt was never
// typed, cleared from the record.
func (r *recorder) takePromptUntyped() bool {
	u := r.st.PromptUntyped
	r.st.PromptUntyped = false
	return u
}

// paneRemain records the pane's own remain-on-exit, given back at the end.
func (r *recorder) paneRemain(own state.PaneOption) { r.st.RemainOnExit = &own }

// paneServer records the tmux server the pane is in: another is not the loop's.
func (r *recorder) paneServer(pid int) { r.st.ServerPID = pid }

// shellStarted records the shell the pane runs after the loop, and saves.
func (r *recorder) shellStarted(pid int) {
	r.st.ShellPID = pid
	r.save()
}

// ended records how the loop ended.
func (r *recorder) ended(reason contract.Reason) { reason.Write(r.st) }

// status records the status shown, with its reason, and saves.
func (r *recorder) status(s contract.Status, reason string, now time.Time) {
	s.Record(r.st, reason, now)
	r.save()
}

// judged records goal mode's goal as the judge read it and its verdict.
func (r *recorder) judged(goal string, v state.Verdict) {
	if v.Missing == nil {
		v.Missing = []string{}
	}
	if goal != "" {
		r.st.Goal = goal
	}
	r.st.Verdicts = append(r.st.Verdicts, v)
}
