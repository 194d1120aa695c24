package control

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// What a loop spent, as status, status --json and list show it: its
// receipts' totals, its last iteration's receipt, and its budget.

// Receipts are the loop's receipts, oldest first; none when it has none or
// they cannot be read.
func (l *Loop) Receipts() []receipt.Receipt {
	if l.Store == nil { // a loop known only by its state
		return nil
	}
	rs, _ := receipt.Load(l.Store.Path(state.ReceiptsFile))
	return rs
}

// budget is the loop's budget, as its state records it.
func budget(st *state.State) receipt.Budget {
	return receipt.Budget{Tokens: st.MaxTokens, CostUSD: st.MaxCostUSD}
}

// receiptsJSON is the "receipts" object of status --json: how many
// iterations have one, every token they used, their cost (null when not
// known), their totals and the last one.
func receiptsJSON(rs []receipt.Receipt) map[string]any {
	m := map[string]any{"iterations": len(rs), "tokens": int64(0), "cost_usd": nil, "totals": nil, "last": nil}
	if len(rs) == 0 {
		return m
	}
	t := receipt.Total(rs)
	m["tokens"], m["totals"], m["last"] = t.Tokens(), t, rs[len(rs)-1] // the judge's calls included
	if usd, known := t.Cost(); known {
		m["cost_usd"] = usd
	}
	return m
}

// writeSpend shows what the loop spent (in all, and in its last iteration)
// and its budget.
func writeSpend(w io.Writer, l *Loop) {
	rs := l.Receipts()
	if len(rs) > 0 {
		t := receipt.Total(rs)
		fmt.Fprintf(w, "Spent: %s over %d %s\n", t.Words(), len(rs), plural(len(rs), "iteration"))
		fmt.Fprintf(w, "  total: %s\n", strings.TrimPrefix(t.LogLine(), fmt.Sprintf("iteration %d ", t.Iteration)))
		fmt.Fprintf(w, "  last:  %s\n", rs[len(rs)-1].LogLine())
	}
	b := budget(l.State)
	if !b.Set() {
		return
	}
	spent := receipt.SpendOf(rs)
	if why, reached := b.Reached(spent); reached {
		fmt.Fprintf(w, "Budget: %s (%s)\n", b, why)
		return
	}
	fmt.Fprintf(w, "Budget: %s (spent %d tokens, %s)\n", b, spent.Tokens, receipt.Dollars(spent.CostUSD))
}

// recordStopped writes the receipt of the iteration a loop was in when it
// was stopped with no watcher (its watcher was killed): what its agent
// wrote to its session files since the iteration began, read as a watcher
// reads it (in the environment of the agent's processes, else the command's
// NAME=value words, else this command's), priced as the loop prices.
func recordStopped(l *Loop, now time.Time) {
	st := l.State
	since, err := time.ParseInLocation(state.TimeFormat, st.LastIterationStarted, time.Local)
	if l.Store == nil || st.CurrentIteration == 0 || st.LastIterationEnded != "" || err != nil {
		return
	}
	for _, r := range l.Receipts() {
		if r.Iteration == st.CurrentIteration {
			return
		}
	}
	var envs [][]string
	if p, err := l.Tmux.Pane(st.PaneID); err == nil && l.Pane == PaneRunning {
		envs = agent.Environs(p.PID)
	}
	envs = append(envs, agent.CommandEnv(st.Command, false), nil)
	transcript, _ := os.ReadFile(l.Store.Path(state.TranscriptFile))
	session := receipt.Session{Agent: st.Agent, Dir: folderOf(st), Transcript: strings.TrimSpace(string(transcript)), Since: since}
	r := receipt.Receipt{Iteration: st.CurrentIteration, Agent: st.Agent, Started: since, Ended: now}
	for _, env := range envs {
		session.Getenv = agent.Getenv(env, os.Getenv)
		if u, source, err := session.Read(); source != "" && err == nil {
			r.Usage, r.Source = u, source
			break
		}
	}
	r = r.Priced(pricesOf(st))
	if err := receipt.Append(l.Store.Path(state.ReceiptsFile), r); err == nil {
		_ = l.Store.Log(now, "COST", r.LogLine())
	}
}

// pricesOf are the prices a loop was started with (its --prices file over
// the built-in table).
func pricesOf(st *state.State) receipt.Prices {
	for _, a := range st.WatcherArgs {
		if file, ok := strings.CutPrefix(a, "--prices="); ok {
			if !filepath.IsAbs(file) {
				file = filepath.Join(st.WatcherDir, file)
			}
			if p, err := receipt.LoadPrices(file); err == nil {
				return p
			}
		}
	}
	return receipt.DefaultPrices
}

// costColumn is list's COST cell: "58k tok $1.20", "-" when nothing was reported.
func costColumn(l *Loop) string {
	if s := receipt.Total(l.Receipts()).Compact(); s != "" {
		return s
	}
	return "-"
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
