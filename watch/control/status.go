package control

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// JSON is the state as stored plus what is derived live.
func (l *Loop) JSON() map[string]any {
	if l.Damaged != "" {
		return map[string]any{"worker_name": l.Name, "ralph_status": l.Status(), "error": l.Damaged}
	}
	data, _ := json.Marshal(l.State)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	m["watcher_alive"] = l.Watched
	m["pane_alive"] = l.Pane == PaneRunning
	m["worker_status"] = l.WorkerStatus()
	m["ralph_status"] = l.Status()
	m["receipts"] = receiptsJSON(l.Receipts())
	m["steer_pending"] = []state.Steer{} // notes and limits left for the watcher, oldest first
	if l.Store != nil {
		if pending := l.Store.Steers(); pending != nil {
			m["steer_pending"] = pending
		}
	}
	tasksJSON(m)
	afterJSON(m, l)
	if l.Store != nil {
		if f, _ := l.Store.Follow(); f != nil {
			m["follow"] = f
		}
	}
	return m
}

// WriteJSON prints v as indented JSON and a newline.
func WriteJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// WriteStatus prints the loop's state for a person, as of now.
func WriteStatus(w io.Writer, l *Loop, now time.Time) {
	st := l.State
	fmt.Fprintf(w, "Ralph Loop: %s\n", l.Name)
	fmt.Fprintf(w, "Status: %s\n", l.Status())
	writeWaiting(w, l, now)
	max := limitShown(l, now)
	fmt.Fprintf(w, "Iteration: %s%s%s\n", progress(st, max), raisedWhen(l, max), pace(st, max, l.Status()))
	fmt.Fprintf(w, "Started: %s\n", shownTime(st.Started))
	fmt.Fprintf(w, "Current iteration started: %s\n", shownTime(st.LastIterationStarted))
	ended := st.Status == state.Stopped || st.Status == state.Failed
	if ended {
		fmt.Fprintf(w, "Last iteration ended: %s\n", shownTime(st.LastIterationEnded))
	}
	fmt.Fprintf(w, "Consecutive failures: %d\n", st.ConsecutiveFailures)
	fmt.Fprintf(w, "Total failures: %d\n", st.TotalFailures)
	fmt.Fprintf(w, "Inactivity timeout: %ds\n", st.InactivityTimeout)
	if st.DonePattern != nil {
		fmt.Fprintf(w, "Done pattern: %s\n", *st.DonePattern)
	}
	for _, f := range []struct{ label, setting string }{{"Done file", "DoneFile"}, {"Pause file", "PauseFile"}, {"Progress file", "ProgressFile"}} {
		if path := st.Settings[f.setting]; path != "" { // where the loop looks, in the worktree when the agent works there
			fmt.Fprintf(w, "%s: %s\n", f.label, path)
		}
	}
	writeAgent(w, l)
	if _, err := os.Stat(st.Worktree); st.Worktree != "" && os.IsNotExist(err) {
		fmt.Fprintf(w, "Worktree: %s (removed; it was branch %s)\n", st.Worktree, st.WorktreeBranch)
	} else if st.Worktree != "" {
		fmt.Fprintf(w, "Worktree: %s (branch %s)\n", st.Worktree, st.WorktreeBranch)
	}
	if st.UnchangedIterations > 0 {
		fmt.Fprintf(w, "Iterations without change: %d\n", st.UnchangedIterations)
	}
	writeChecks(w, st.LastChecks())
	WriteTasks(w, st.Tasks, false)
	writeGoal(w, st)
	writePlanCopy(w, st)
	writeSpend(w, l)
	writeCommandSources(w, st.CommandSources)
	writeSteering(w, l)
	writeAfter(w, l)
	writeFollow(w, l)
	fmt.Fprintf(w, "Exit reason: %s\n", l.ExitReason())
	if st.Error != "" && !contract.StatusOf(st).Live() {
		fmt.Fprintf(w, "Error: %s\n", st.Error)
	}
	if runs := l.earlierRuns(); len(runs) > 0 {
		fmt.Fprintf(w, "Earlier runs: %d, kept apart in %s\n", len(runs), filepath.Dir(runs[0]))
	}
	if ended {
		start, err1 := time.ParseInLocation(state.TimeFormat, st.Started, time.Local)
		end, err2 := time.ParseInLocation(state.TimeFormat, st.LastIterationEnded, time.Local)
		if err1 == nil && err2 == nil {
			fmt.Fprintf(w, "Total duration: %s\n", compact(end.Sub(start)))
		}
	}
}

// writeWaiting shows what a live loop waits for, or why it is paused.
func writeWaiting(w io.Writer, l *Loop, now time.Time) {
	s := contract.StatusOf(l.State)
	if !s.Live() || l.State.Reason == "" || l.Status() == "monitor_disconnected" {
		return
	}
	if s == contract.StatusPaused {
		fmt.Fprintf(w, "Paused by: %s\n", l.State.Reason)
		return
	}
	reason := l.State.Reason
	if since, err := time.ParseInLocation(state.TimeFormat, l.State.ShownSince, time.Local); err == nil && s == contract.StatusStarting {
		waited := fmt.Sprintf("%ds", int(now.Sub(since).Seconds()))
		if l.State.ReadyTimeout > 0 {
			waited += fmt.Sprintf(" of %ds", l.State.ReadyTimeout)
		}
		if strings.HasSuffix(reason, ")") {
			reason = strings.TrimSuffix(reason, ")") + ", " + waited + ")"
		} else {
			reason += " (" + waited + ")"
		}
	}
	fmt.Fprintf(w, "Waiting for: %s\n", reason)
}

// writeAgent shows what the agent's profile saw: its state, a usage limit's
// reset, and how soon after its last turn the next iteration started.
func writeAgent(w io.Writer, l *Loop) {
	st := l.State
	if st.Agent == "" || st.Agent == "generic" {
		return
	}
	live := st.Status == state.Running && l.Watched
	if st.AgentState != "" && live {
		fmt.Fprintf(w, "Agent: %s (%s)\n", st.Agent, strings.ReplaceAll(st.AgentState, "_", " "))
	} else {
		fmt.Fprintf(w, "Agent: %s\n", st.Agent)
	}
	if until, err := time.ParseInLocation(state.TimeFormat, st.WaitingUntil, time.Local); err == nil && live && st.Shown != contract.StatusWaiting.String() {
		fmt.Fprintf(w, "Waiting for limit reset (%s)\n", until.Format("15:04"))
	}
	if st.TurnGapMS != nil {
		fmt.Fprintf(w, "Turn end to next iteration: %dms\n", *st.TurnGapMS)
	}
}

// writeChecks shows how the latest iteration's checks went, one a line.
func writeChecks(w io.Writer, c *state.Checks) {
	if c == nil {
		return
	}
	passed := 0
	for _, r := range c.Results {
		if r.Passed {
			passed++
		}
	}
	fmt.Fprintf(w, "Checks (iteration %d): %d of %d passed\n", c.Iteration, passed, len(c.Results))
	for _, r := range c.Results {
		if r.Passed {
			fmt.Fprintf(w, "  pass  %s\n", r.Command)
			continue
		}
		what := fmt.Sprintf("exit %d", r.ExitCode)
		if r.TimedOut {
			what = "timed out"
		}
		fmt.Fprintf(w, "  FAIL  %s (%s; output: %s)\n", r.Command, what, r.Log)
	}
}

// writeCommandSources shows where each command the loop runs came from.
func writeCommandSources(w io.Writer, cmds []state.CommandSource) {
	if len(cmds) == 0 {
		return
	}
	fmt.Fprintln(w, "Commands:")
	for _, c := range cmds {
		from := c.From
		if c.File != "" {
			from += " " + c.File
		}
		fmt.Fprintf(w, "  %s %s (from %s)\n", c.Key, QuoteCommand(c.Command), from)
	}
}

// writeGoal shows goal mode: the goal, the last verdict and what it found missing.
func writeGoal(w io.Writer, st *state.State) {
	if st.Goal == "" {
		return
	}
	fmt.Fprintf(w, "Goal: %s\n", strings.Join(strings.Fields(st.Goal), " "))
	if len(st.Verdicts) == 0 {
		fmt.Fprintf(w, "Verdict: none yet (the judge is asked when the loop would end done)\n")
		return
	}
	v := st.Verdicts[len(st.Verdicts)-1]
	if v.Met {
		fmt.Fprintf(w, "Verdict: met (iteration %d)\n", v.Iteration)
		return
	}
	fmt.Fprintf(w, "Verdict: not met (iteration %d): %s\n", v.Iteration, v.Reason)
	for _, m := range v.Missing {
		fmt.Fprintf(w, "  missing: %s\n", m)
	}
}

// QuoteCommand shows a command in quotes, every control character escaped
// so a hostile file cannot hide what it runs from the terminal.
func QuoteCommand(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// progress is the iteration the loop is at (for one waiting for a limit's
// reset, the one it will run), of max.
func progress(st *state.State, max int) string {
	return contract.Shown{Status: contract.StatusOf(st), Iteration: st.CurrentIteration, Max: max}.Progress()
}

// limitShown is the iteration limit the loop will have once its watcher
// takes the limits set and waiting for it, as its status line shows it
// (the watcher's pendingMax, watch/steering.go).
func limitShown(l *Loop, now time.Time) int {
	if l.Store == nil {
		return l.State.MaxIterations
	}
	return PendingMax(l, now)
}

// raisedWhen says, for a limit set and not yet taken, which it replaces
// and when the loop takes it.
func raisedWhen(l *Loop, max int) string {
	if max == l.State.MaxIterations {
		return ""
	}
	was := "none"
	if l.State.MaxIterations > 0 {
		was = strconv.Itoa(l.State.MaxIterations)
	}
	when := "taken at the next iteration"
	if !l.Watched {
		when = "taken when the loop goes on"
	}
	return fmt.Sprintf(" (set from %s, %s)", was, when)
}

// pace is the average iteration and, for a running loop with a limit
// (max), what remains.
func pace(st *state.State, max int, status string) string {
	if len(st.IterationDurations) == 0 {
		return ""
	}
	total := 0
	for _, d := range st.IterationDurations {
		total += d
	}
	avg := time.Duration(total/len(st.IterationDurations)) * time.Second
	if status == state.Running && max > 0 {
		left := time.Duration(max-st.CurrentIteration) * avg
		return fmt.Sprintf(" (avg %s/iter, ~%s remaining)", compact(avg), compact(left))
	}
	return fmt.Sprintf(" (avg %s/iter)", compact(avg))
}

// compact prints 5m12s, 1h2m, 42s.
func compact(d time.Duration) string {
	return strings.ReplaceAll(checks.FormatDuration(d), " ", "")
}

func shownTime(stamp string) string {
	t, err := time.ParseInLocation(state.TimeFormat, stamp, time.Local)
	if err != nil {
		return "(none)"
	}
	return t.Format("2006-01-02 15:04:05")
}

// writePlanCopy names, for a worktree loop, the copy of the plan it reads:
// edits to the other copy do not reach it.
func writePlanCopy(w io.Writer, st *state.State) {
	if st.Tasks == nil || st.Worktree == "" {
		return
	}
	if c := gitwork.CheckoutCopy(st.Worktree, st.Tasks.File); c != "" {
		fmt.Fprintf(w, "Plan: %s (the worktree's copy, which the loop reads: edit this one, not %s)\n", st.Tasks.File, c)
		return
	}
	fmt.Fprintf(w, "Plan: %s (outside the worktree the agent works in)\n", st.Tasks.File)
}

// writeFollow shows what ralph-watch follow saw of the loop's pull request:
// its mark, checks, reviews and the rounds of fixes.
func writeFollow(w io.Writer, l *Loop) {
	if l.Store == nil {
		return
	}
	f, _ := l.Store.Follow()
	if f == nil {
		return
	}
	fmt.Fprintf(w, "Pull request: #%d %s (%s)\n", f.PR, f.Shown, f.URL)
	fmt.Fprintf(w, "  Checks: %s; reviews: %s\n", cmpOr(f.Checks, "not looked at yet"), cmpOr(f.Reviews, "not looked at yet"))
	rounds := fmt.Sprint(len(f.Rounds))
	if f.MaxRounds > 0 {
		rounds += fmt.Sprintf("/%d", f.MaxRounds)
	}
	fmt.Fprintf(w, "  Rounds of fixes: %s", rounds)
	for _, r := range f.Rounds {
		fmt.Fprintf(w, "; %d (iteration %d, %s): %s", r.N, r.Iteration+1, r.State, strings.Join(r.Reasons, ", "))
	}
	fmt.Fprintln(w)
	switch {
	case f.Ended != "":
		fmt.Fprintf(w, "  Following ended: %s\n", f.Ended)
	case f.Looked != "":
		fmt.Fprintf(w, "  Last looked: %s\n", shownTime(f.Looked))
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
