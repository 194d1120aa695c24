package receipt_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// Claude Code's `claude -p --output-format json`, as 2.1.330 prints it
// (trimmed of its ids).
const claudeResult = `{"type":"result","subtype":"success","is_error":false,"duration_ms":2104,"num_turns":1,` +
	`"result":"{\"met\": true, \"missing\": [], \"evidence\": [\"go test passes\"]}","session_id":"s",` +
	`"total_cost_usd":0.0123,"usage":{"input_tokens":5,"cache_creation_input_tokens":1200,"cache_read_input_tokens":300,"output_tokens":40,"service_tier":"standard"},` +
	`"modelUsage":{"claude-haiku-4-5-20251001":{"inputTokens":5,"outputTokens":40,"cacheReadInputTokens":300,"cacheCreationInputTokens":1200,"costUSD":0.0123}}}`

func TestAJudgeInClaudeCodesJSONFormReportsItsTokensAndCost(t *testing.T) {
	answer, spent := receipt.JudgeCall(claudeResult+"\n", receipt.DefaultPrices)
	if answer != `{"met": true, "missing": [], "evidence": ["go test passes"]}` {
		t.Errorf("answer = %q, want the result's text", answer)
	}
	u := spent.Usage
	if spent.Calls != 1 || spent.Reported != 1 || u.Input != 5 || u.Output != 40 || u.CacheRead != 300 || u.CacheWrite != 1200 || u.Turns != 1 {
		t.Errorf("spent = %+v", spent)
	}
	if spent.CostUSD == nil || *spent.CostUSD != 0.0123 {
		t.Errorf("cost = %v, want its own total_cost_usd", spent.CostUSD)
	}
	if got := spent.LogLine(); got != "judge tokens in=5 out=40 cache=300/1200 cost=$0.012" {
		t.Errorf("LogLine = %q", got)
	}

	// With --verbose: a list of messages, the result last.
	answer, spent = receipt.JudgeCall(`[{"type":"system","subtype":"init"},{"type":"assistant","message":{}},`+claudeResult+`]`, receipt.DefaultPrices)
	if !strings.Contains(answer, `"met": true`) || spent.Reported != 1 || spent.Usage.Sum() != 1545 {
		t.Errorf("verbose form: %q, %+v", answer, spent)
	}

	// No total_cost_usd: its tokens at the loop's prices, by model.
	noCost := strings.Replace(claudeResult, `"total_cost_usd":0.0123,`, "", 1)
	_, spent = receipt.JudgeCall(noCost, receipt.DefaultPrices)
	want := (5*1 + 40*5 + 300*0.10 + 1200*1.25) / 1e6
	if spent.CostUSD == nil || *spent.CostUSD != want {
		t.Errorf("cost at the prices = %v, want %v", spent.CostUSD, want)
	}
	_, spent = receipt.JudgeCall(noCost, receipt.Prices{})
	if spent.CostUSD != nil || !spent.Unpriced() || spent.LogLine() != "judge tokens in=5 out=40 cache=300/1200 cost=unknown" {
		t.Errorf("unpriced: %+v %q", spent, spent.LogLine())
	}
}

func TestAJudgeWhoseOutputIsNotAnAgentsJSONFormReportsNothing(t *testing.T) {
	for _, out := range []string{
		"Looks done to me.",
		`{"met": true, "missing": []}`,
		`{"type":"result","total_cost_usd":0.5}`, // no result text: not the form
		`{"type":"assistant","result":"x","usage":{"input_tokens":5}}`,
		`[1, 2]`,
	} {
		answer, spent := receipt.JudgeCall(out, receipt.DefaultPrices)
		if answer != out || spent.Calls != 1 || spent.Reported != 0 || spent.Usage.Sum() != 0 || spent.CostUSD != nil {
			t.Errorf("JudgeCall(%q) = %q, %+v; want the output itself, unreported", out, answer, spent)
		}
		if spent.LogLine() != "judge tokens unreported" {
			t.Errorf("LogLine = %q", spent.LogLine())
		}
	}
}

func TestTheJudgesSpendJoinsItsIterationsReceiptAndTheSpend(t *testing.T) {
	_, call := receipt.JudgeCall(claudeResult, receipt.DefaultPrices)
	data := []byte(`{"iteration":1,"started":"2026-03-14T09:00:00Z","ended":"2026-03-14T09:01:00Z","usage":{"turns":0,"tool_calls":0,"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0},"changes":{"files":0,"insertions":0,"deletions":0}}` + "\n" +
		`{"iteration":2,"source":"s.jsonl","started":"2026-03-14T09:01:00Z","ended":"2026-03-14T09:02:00Z","usage":{"turns":1,"tool_calls":0,"input_tokens":1000,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0},"cost_usd":0.5,"changes":{"files":1,"insertions":2,"deletions":0}}` + "\n")
	out, found := receipt.WithJudge(data, 2, call)
	if !found {
		t.Fatal("iteration 2's receipt not found")
	}
	out, _ = receipt.WithJudge(out, 2, receipt.JudgeSpend{Calls: 1}) // a second call, unreported
	first := strings.SplitAfter(string(data), "\n")[0]
	if !strings.HasPrefix(string(out), first) {
		t.Errorf("iteration 1's line changed:\n%s", out)
	}
	if _, found := receipt.WithJudge(out, 3, call); found {
		t.Error("found a receipt of iteration 3")
	}
	rs := load(t, out)
	j := rs[1].Judge
	if len(rs) != 2 || rs[0].Judge != nil || j == nil || j.Calls != 2 || j.Reported != 1 || j.Usage.Sum() != 1545 || j.CostUSD == nil || *j.CostUSD != 0.0123 {
		t.Fatalf("receipts = %+v, judge %+v", rs, j)
	}
	if *rs[1].CostUSD != 0.5 || rs[1].Usage.Sum() != 1000 {
		t.Errorf("the agent's own usage and cost changed: %+v", rs[1])
	}
	spent := receipt.SpendOf(rs)
	if spent.Tokens != 2545 || spent.CostUSD != 0.5123 || spent.Unpriced {
		t.Errorf("spend = %+v, want the judge's counted", spent)
	}
	total := receipt.Total(rs)
	if total.Words() != "2545 tokens, $0.51" || total.Compact() != "3k tok $0.51" {
		t.Errorf("total: %q, %q", total.Words(), total.Compact())
	}
	if line := rs[1].LogLine(); !strings.HasSuffix(line, " judge tokens in=5 out=40 cache=300/1200 cost=$0.012") {
		t.Errorf("LogLine = %q", line)
	}
	unpriced := receipt.Receipt{Judge: &receipt.JudgeSpend{Calls: 1, Reported: 1, Usage: receipt.Usage{Tokens: receipt.Tokens{Input: 9}}}}
	if s := receipt.SpendOf([]receipt.Receipt{unpriced}); s.Tokens != 9 || !s.Unpriced || unpriced.Words() != "9 tokens, cost unknown" {
		t.Errorf("an unpriced judge: %+v, %q", s, unpriced.Words())
	}
}

// load reads receipts data as the receipts file.
func load(t *testing.T, data []byte) []receipt.Receipt {
	t.Helper()
	path := t.TempDir() + "/receipts.jsonl"
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	rs, err := receipt.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// What Claude Code 2.1.332 prints for `claude -p --output-format json`
// (testdata/receipts/NOTES.md): its result is the verdict, its use told.
func TestARealClaudeCodesJSONOutputIsReadAsAJudgesCall(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("..", "..", "testdata", "receipts", "claude-2.1.332-print-json.json"))
	if err != nil {
		t.Fatal(err)
	}
	answer, spent := receipt.JudgeCall(string(out), receipt.DefaultPrices)
	if answer != `{"met": true, "missing": [], "evidence": ["x"]}` {
		t.Errorf("answer = %q", answer)
	}
	if spent.Reported != 1 || spent.Usage.Input != 100 || spent.Usage.Output != 7 || spent.Usage.Models["claude-opus-5-5"].Sum() != 107 ||
		spent.CostUSD == nil || *spent.CostUSD != 0.00054 {
		t.Errorf("spent = %+v", spent)
	}
	if usd, known := receipt.DefaultPrices.Cost(spent.Usage); !known || fmt.Sprintf("%.5f", usd) != "0.00054" {
		t.Errorf("its tokens at the default prices: %v %v, want its own total_cost_usd", usd, known)
	}
}
