package watch_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// recordedTurn is Claude Code's last recorded model message (testdata/receipts,
// Claude Code 2.1.330), its context made to hold cacheRead tokens read from
// the prompt cache.
func recordedTurn(t *testing.T, cacheRead string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "receipts", "claude-2.1.330.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, `"type":"assistant"`) {
			last = line
		}
	}
	const field = `"cache_read_input_tokens":0`
	if !strings.Contains(last, field) {
		t.Fatalf("the recorded turn has no %s: %s", field, last)
	}
	return strings.Replace(last, field, `"cache_read_input_tokens":`+cacheRead, 1) + "\n"
}

// At --max-context the agent is nudged once; 15 points further the
// iteration ends ([CONTEXT], the reason on the receipt) and a fresh agent
// starts, the work left as it was.
func TestUnitAFillingContextWindowNudgesTheAgentThenEndsTheIteration(t *testing.T) {
	var mu sync.Mutex
	var said []string
	var u *unit
	u = newUnit(t, "go", func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) {
			mu.Lock()
			said = append(said, input)
			mu.Unlock()
			if n > 1 { // a new session, which writes no turn here
				_ = os.WriteFile(u.store.Path(state.TranscriptFile), []byte(filepath.Join(u.cfg.Dir, "session-2.jsonl")), 0o600)
				term.Exit(0)
				return
			}
			transcript := filepath.Join(u.cfg.Dir, "session.jsonl")
			fill := "719895" // with the turn's 105: 720000 of claude-opus-5-5's 1000000, 72%
			if strings.HasPrefix(input, "Wrap up") {
				fill = "869895" // 87%
			}
			f, err := os.OpenFile(transcript, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err == nil {
				_, _ = f.WriteString(recordedTurn(t, fill))
				f.Close()
			}
			_ = os.WriteFile(u.store.Path(state.TranscriptFile), []byte(transcript), 0o600)
		})
	})
	u.simulate() // the loop looks at the session every few seconds while the agent sits still
	u.cfg.Agent = agent.Profile{Name: "claude"}
	u.cfg.MaxIterations = 2
	u.cfg.MaxContext = 70
	u.cfg.ContextNudge = "Wrap up now."
	u.cfg.BudgetEvery = time.Second
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	mu.Lock()
	if len(said) != 3 || said[0] != "go" || said[1] != "Wrap up now." || said[2] != "go" {
		t.Errorf("the agents were told %q; want the prompt, the nudge once, the next prompt", said)
	}
	mu.Unlock()
	u.wantLog("[START] iteration 1/2", "[CONTEXT] iteration 1 context=72% (720000 of 1000000 tokens, claude-opus-5-5) nudged (max 70%)",
		"[CONTEXT] iteration 1 context=87% (870000 of 1000000 tokens, claude-opus-5-5) ended (max 70%+15)",
		"[END] iteration 1 context", "[START] iteration 2/2")
	rs, err := receipt.Load(u.store.Path(state.ReceiptsFile))
	if err != nil || len(rs) != 2 {
		t.Fatalf("receipts: %+v, %v", rs, err)
	}
	if !strings.HasPrefix(rs[0].Reason, "context 87% (870000 of 1000000 tokens") || rs[0].Usage.Context == nil || rs[0].Usage.Context.Tokens != 870000 {
		t.Errorf("receipt 1: reason %q, context %+v", rs[0].Reason, rs[0].Usage.Context)
	}
	if rs[1].Reason != "" {
		t.Errorf("receipt 2: reason %q", rs[1].Reason)
	}
}
