package control

import (
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func TestStatusAndListShowTheSpendAgainstTheBudget(t *testing.T) {
	store, err := state.Open(t.TempDir(), "spender")
	if err != nil {
		t.Fatal(err)
	}
	usd := 0.5
	for _, r := range []receipt.Receipt{
		{Iteration: 1, Agent: "claude", Source: "s.jsonl", CostUSD: &usd,
			Usage:   receipt.Usage{Turns: 3, ToolCalls: 2, Tokens: receipt.Tokens{Input: 600, Output: 400}},
			Changes: receipt.DiffStat{Files: 2, Insertions: 10, Deletions: 1}},
		{Iteration: 2, Agent: "claude"}, // the agent reported nothing
	} {
		if err := receipt.Append(store.Path(state.ReceiptsFile), r); err != nil {
			t.Fatal(err)
		}
	}
	l := &Loop{Name: "spender", Store: store, Pane: PaneExited, State: &state.State{Status: state.Stopped, MaxTokens: 1000, CurrentIteration: 2}}
	var out strings.Builder
	writeSpend(&out, l)
	// The iteration that reported nothing (cut short before its agent wrote a turn) leaves the cost known.
	want := "Spent: 1000 tokens, $0.50 over 2 iterations\n" +
		"  total: tokens in=600 out=400 cache=0/0 turns=3 tools=2 cost=$0.50 files=2 +10 -1\n" +
		"  last:  iteration 2 tokens unreported files=0 +0 -0\n" +
		"Budget: 1000 tokens (budget reached: 1000 tokens of 1000)\n"
	if out.String() != want {
		t.Errorf("status shows\n%s\nwant\n%s", out.String(), want)
	}
	l.State.MaxTokens, l.State.MaxCostUSD = 0, 2
	out.Reset()
	writeSpend(&out, l)
	if !strings.HasSuffix(out.String(), "Budget: $2.00 (spent 1000 tokens, $0.50)\n") {
		t.Errorf("a cost budget counts the priced spend:\n%s", out.String())
	}
	if m := l.JSON()["receipts"].(map[string]any); m["iterations"] != 2 || m["tokens"] != int64(1000) || m["cost_usd"] != 0.5 {
		t.Errorf("status --json receipts: %v", m)
	}
	out.Reset()
	if err := WriteTable(&out, []*Loop{l, {Name: "quiet", Store: nil, State: &state.State{}}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasSuffix(lines[0], " COST          LANDED  REPORT") || !strings.HasSuffix(lines[1], " 1k tok $0.50  -       -") || !strings.HasSuffix(lines[2], " -             -       -") {
		t.Errorf("list:\n%s", out.String())
	}
}
