package control

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
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

// A loop whose watcher was killed, then stopped: the iteration it was in
// gets its receipt, with what its agent wrote to its session file.
func TestStoppingALoopWithNoWatcherWritesTheReceiptOfItsIteration(t *testing.T) {
	root := t.TempDir()
	store, err := state.Open(root, "orphan")
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now().Add(-time.Minute).Truncate(time.Second)
	transcript := filepath.Join(root, "session.jsonl")
	line := `{"type":"assistant","timestamp":"` + time.Now().UTC().Format(time.RFC3339Nano) +
		`","message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":10,"output_tokens":5}}}` + "\n"
	if err := os.WriteFile(transcript, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store.Path(state.TranscriptFile), []byte(transcript+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := &state.State{WorkerName: "orphan", Status: state.Running, CurrentIteration: 2, Agent: "claude", Dir: root,
		LastIterationStarted: state.Stamp(started), TmuxSocket: filepath.Join(root, "no-server")}
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	l, err := Find(root, "orphan")
	if err != nil {
		t.Fatal(err)
	}
	if err := Stop(l, false, io.Discard, clock.Real{}); err != nil {
		t.Fatal(err)
	}
	rs := l.Receipts()
	if len(rs) != 1 || rs[0].Iteration != 2 || rs[0].Source != transcript || rs[0].Usage.Output != 5 || rs[0].CostUSD == nil {
		t.Fatalf("receipts %+v, want iteration 2's with what its agent wrote", rs)
	}
	if log, _ := os.ReadFile(store.Path(state.LogFile)); !strings.Contains(string(log), "[COST] iteration 2 tokens in=10 out=5") {
		t.Errorf("log:\n%s", log)
	}
}
