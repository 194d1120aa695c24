package control

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Steering a loop (ralph-watch note, set, resume with a limit): a request
// in the loop's folder (state.Steer) that its watcher takes at the next
// iteration boundary, or when one comes back; nothing here writes state.json.

// Note leaves a note for the loop's next prompt (sticky: every prompt until
// cleared); clear drops the notes queued before it.
func Note(l *Loop, text string, sticky, clear bool, out io.Writer, clk clock.Clock) error {
	if err := steerable(l); err != nil {
		return err
	}
	r := state.Steer{Kind: state.SteerNote, Text: text, Sticky: sticky}
	if clear {
		r = state.Steer{Kind: state.SteerClear}
	}
	if _, err := l.Store.Steer(r, clk.Now()); err != nil {
		return failed(err)
	}
	switch {
	case clear:
		fmt.Fprintf(out, "notes of %s cleared from the next iteration on\n", l.Name)
	case sticky:
		fmt.Fprintf(out, "note for every iteration of %s from the next on (until 'ralph-watch note %s --clear')\n", l.Name, l.Name)
	default:
		fmt.Fprintf(out, "note for the next iteration of %s\n", l.Name)
	}
	return nil
}

// Set leaves new limits for the loop, refused (exit 2) when one is below
// what has already run.
func Set(l *Loop, limits *state.Limits, out io.Writer, clk clock.Clock) error {
	if limits.Empty() {
		return Errorf(contract.ExitUsage, "set needs a limit to change (see 'ralph-watch set --help')")
	}
	check, err := CheckSet(l, limits, clk.Now())
	if err != nil {
		return err
	}
	if _, err := l.Store.Steer(state.Steer{Kind: state.SteerSet, Set: limits}, clk.Now()); err != nil {
		return failed(err)
	}
	when := "at the next iteration"
	if l.Watched && l.State.WatcherPID > 0 {
		syscall.Kill(l.State.WatcherPID, syscall.SIGUSR1) // its pane shows the new limit at once
	}
	if !l.Watched {
		when = fmt.Sprintf("when the loop goes on ('ralph-watch resume %s')", l.Name)
	}
	fmt.Fprintf(out, "%s: %s %s\n", l.Name, check.String(), when)
	return nil
}

// CheckSet refuses limits below what the loop has run (exit 2), or a loop
// that will not go on; it returns them as they would be set (+N made absolute).
func CheckSet(l *Loop, limits *state.Limits, now time.Time) (state.Limits, error) {
	if err := steerable(l); err != nil {
		return state.Limits{}, err
	}
	check := *limits
	if err := check.Check(ran(l, now), Pending(l, now)); err != nil {
		return check, Errorf(contract.ExitUsage, "set %s on '%s': %v", limits, l.Name, err)
	}
	return check, nil
}

// steerable refuses a loop that will not go on: one ended other than at a limit.
func steerable(l *Loop) error {
	st := l.State
	if st.Status == state.Running || st.Status == state.Paused || endedAtLimit(st) || endedByGone(st) || endedByStop(st) || endedMendable(st) {
		return nil
	}
	return Errorf(contract.ExitFailed, "ralph loop for '%s' has status '%s' and will not go on", l.Name, l.Status())
}

// endedByStop reports whether the person stopped the loop: resume goes on
// with it, the iteration the stop cut short given back to its task.
func endedByStop(st *state.State) bool {
	reason := contract.ReasonOf(st)
	return st.Status == state.Stopped && (reason == contract.ReasonStopped || reason == contract.ReasonKilled)
}

// endedAtLimit reports whether a loop ended at one of its limits, which a
// raised limit lets it go on from.
func endedAtLimit(st *state.State) bool {
	if st.Status == state.Running || st.Status == state.Paused {
		return false
	}
	switch contract.ReasonOf(st) {
	case contract.ReasonMaxIterations, contract.ReasonMaxTime, contract.ReasonBudget:
		return true
	}
	return false
}

// ran is what the loop has used of its limits, by its state and receipts.
func ran(l *Loop, now time.Time) state.Ran {
	r := state.Ran{Iterations: l.State.CurrentIteration, Attempts: l.State.Tasks.Attempts()}
	if t, err := time.ParseInLocation(state.TimeFormat, l.State.Started, time.Local); err == nil {
		r.Elapsed = now.Sub(t)
	}
	spent := receipt.SpendOf(l.Receipts())
	r.Tokens, r.CostUSD = spent.Tokens, spent.CostUSD
	return r
}

// Pending are the limits the loop will have once its watcher takes the
// requests waiting for it: what its state records, then each request in
// turn not yet applied (a refused one changes nothing, as in the watcher).
func Pending(l *Loop, now time.Time) state.Limits {
	st := l.State
	secs := func(n int) *int { return &n }
	lim := state.Limits{MaxIterations: secs(st.MaxIterations), MaxTokens: &st.MaxTokens, MaxCostUSD: &st.MaxCostUSD}
	lim.Merge(st.Set)
	return state.Pending(lim, func() state.Ran { return ran(l, now) }, l.Store.Steers(), st.Steered)
}

// PendingMax is the iteration limit the loop will have (0: none).
func PendingMax(l *Loop, now time.Time) int { return *Pending(l, now).MaxIterations }

// limitRaised reports whether a loop that ended at a limit has it raised,
// by set or by the resume that asks, so that it may go on.
func limitRaised(l *Loop, now time.Time) bool {
	lim, r := Pending(l, now), ran(l, now)
	switch contract.ReasonOf(l.State) {
	case contract.ReasonMaxIterations:
		return *lim.MaxIterations == 0 || *lim.MaxIterations > r.Iterations
	case contract.ReasonMaxTime: // the state knows only a max time set since the start
		return lim.MaxTime != nil && (*lim.MaxTime == 0 || time.Duration(*lim.MaxTime)*time.Second > r.Elapsed)
	case contract.ReasonBudget:
		b := receipt.Budget{Tokens: *lim.MaxTokens, CostUSD: *lim.MaxCostUSD}
		_, reached := b.Reached(receipt.Spend{Tokens: r.Tokens, CostUSD: r.CostUSD})
		return !reached
	}
	return true
}

// raiseHint says how to let a loop that ended at a limit go on.
func raiseHint(l *Loop) string {
	flag, example := "--max-iterations", fmt.Sprintf("%d", l.State.MaxIterations+10)
	switch contract.ReasonOf(l.State) {
	case contract.ReasonMaxTime:
		flag, example = "--max-time", "8h"
	case contract.ReasonBudget:
		flag, example = "--max-cost", "20"
		if l.State.MaxTokens > 0 {
			flag, example = "--max-tokens", fmt.Sprintf("%d", l.State.MaxTokens*2)
		}
	}
	return fmt.Sprintf("ralph loop for '%s' has status '%s': it ended at its limit (%s); raise it to go on: 'ralph-watch resume %s %s %s'",
		l.Name, l.Status(), contract.ReasonOf(l.State), l.Name, flag, example)
}

// writeSteering shows what the person asked of the loop that is not yet
// in force, and the limits they set. The notes are those the next iteration
// will carry, as the watcher will take the requests: in order, a clear
// dropping those before it, a request it has applied (its note already in
// state.json) but not yet removed taken once.
func writeSteering(w io.Writer, l *Loop) {
	st := l.State
	if !st.Set.Empty() {
		fmt.Fprintf(w, "Set: %s\n", st.Set)
	}
	var notes []string
	for _, n := range st.Notes {
		notes = append(notes, noteLine(n.Text, n.Sticky))
	}
	cleared := false
	if l.Store != nil {
		for _, s := range l.Store.Steers() {
			if slices.Contains(st.Steered, s.ID) {
				continue
			}
			switch s.Kind {
			case state.SteerNote:
				notes = append(notes, noteLine(s.Text, s.Sticky))
			case state.SteerClear:
				notes, cleared = nil, true
			case state.SteerSet:
				fmt.Fprintf(w, "Set at the next iteration: %s\n", s.Set)
			}
		}
	}
	switch {
	case len(notes) == 0 && cleared:
		fmt.Fprintln(w, "Notes for the next iteration: none (cleared)")
	case len(notes) > 0:
		fmt.Fprintf(w, "Notes for the next iteration: %d%s\n", len(notes), map[bool]string{true: " (those before cleared)"}[cleared])
		for _, n := range notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
}

func noteLine(text string, sticky bool) string {
	line, _, more := strings.Cut(strings.TrimSpace(text), "\n")
	if more {
		line += " …"
	}
	if sticky {
		line += " (sticky)"
	}
	return line
}

// EndIteration asks a running loop's watcher to end its iteration now, the
// agent's work left as it is: request is state.RequestSkip (with a plan,
// its task is set aside) or state.RequestRetry (its task starts again in a
// fresh agent, the try not counted).
func EndIteration(l *Loop, request string, out io.Writer, clk clock.Clock) error {
	what := map[string]string{state.RequestSkip: "skip", state.RequestRetry: "retry"}[request]
	if l.State.Status != state.Running || !l.Watched {
		return Errorf(contract.ExitFailed, "ralph loop for '%s' has status '%s': no iteration running to %s", l.Name, l.Status(), what)
	}
	n, task := l.State.CurrentIteration, ""
	if t := l.State.Tasks; t != nil && t.Current != "" {
		task = " (task " + t.Current + ")"
	}
	if err := tell(l, request); err != nil {
		return err
	}
	taken := func(*state.State) bool {
		_, err := os.Stat(l.Store.Path(state.RequestFile))
		return os.IsNotExist(err)
	}
	if !waitFor(l, clk, answerWait, taken) {
		return Errorf(contract.ExitFailed, "the watcher of '%s' did not answer the %s request", l.Name, what)
	}
	if request == state.RequestSkip {
		fmt.Fprintf(out, "skipped iteration %d%s of %s\n", n, task, l.Name)
	} else {
		fmt.Fprintf(out, "ended iteration %d%s of %s; it starts again in a fresh agent\n", n, task, l.Name)
	}
	return nil
}
