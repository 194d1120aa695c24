package receipt

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func usd(v float64) *float64 { return &v }

func TestLogLineSaysWhatTheIterationCostAndDid(t *testing.T) {
	full := Receipt{Iteration: 3, Source: "/t.jsonl",
		Usage:   Usage{Turns: 4, ToolCalls: 7, Tokens: Tokens{Input: 12034, Output: 2311, CacheRead: 45000, CacheWrite: 1200}},
		CostUSD: usd(0.2312), Changes: DiffStat{3, 40, 12}, Checks: &CheckSum{Passed: 2}}
	for _, tt := range []struct {
		name string
		r    Receipt
		want string
	}{
		{"everything", full,
			"iteration 3 tokens in=12034 out=2311 cache=45000/1200 turns=4 tools=7 cost=$0.23 files=3 +40 -12 checks=pass"},
		{"unknown price, a failed check", func() Receipt {
			r := full
			r.CostUSD, r.Checks = nil, &CheckSum{Passed: 1, Failed: 2}
			return r
		}(), "iteration 3 tokens in=12034 out=2311 cache=45000/1200 turns=4 tools=7 cost=unknown files=3 +40 -12 checks=fail(2/3)"},
		{"an agent that reports nothing, no checks", Receipt{Iteration: 9, Changes: DiffStat{1, 2, 0}},
			"iteration 9 tokens unreported files=1 +2 -0"},
		{"a cheap turn", Receipt{Iteration: 1, Source: "x", CostUSD: usd(0.000434)},
			"iteration 1 tokens in=0 out=0 cache=0/0 turns=0 tools=0 cost=$0.0004 files=0 +0 -0"},
	} {
		if got := tt.r.LogLine(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestCompactFitsAColumn(t *testing.T) {
	for _, tt := range []struct {
		r    Receipt
		want string
	}{
		{Receipt{Source: "x", Usage: Usage{Tokens: Tokens{Input: 8000, CacheRead: 50000}}, CostUSD: usd(1.2)}, "58k tok $1.20"},
		{Receipt{Source: "x", Usage: Usage{Tokens: Tokens{Output: 950}}}, "950 tok"},
		{Receipt{Source: "x", Usage: Usage{Tokens: Tokens{CacheRead: 1_234_567}}, CostUSD: usd(0.05)}, "1.2M tok $0.050"},
		{Receipt{Source: "x", Usage: Usage{Tokens: Tokens{CacheRead: 45_600_000}}}, "46M tok"},
		{Receipt{Source: "x", Usage: Usage{Tokens: Tokens{CacheRead: 999_999}}}, "1.0M tok"},
		{Receipt{}, ""},
	} {
		if got := tt.r.Compact(); got != tt.want {
			t.Errorf("Compact() = %q, want %q", got, tt.want)
		}
	}
}

func TestReceiptsSurviveTheFileAndAddUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "receipts.jsonl")
	if got, err := Load(path); err != nil || got != nil {
		t.Fatalf("no file yet: %v, %v", got, err)
	}
	first := Receipt{Iteration: 1, Agent: "claude", Started: at("2026-11-22T11:00:00Z"), Ended: at("2026-11-22T11:05:00Z"),
		Source: "/t.jsonl", Usage: withCounts(oneModel("claude-sonnet-4-5", Tokens{Input: 10, Output: 20}), 2, 3)}.Priced(DefaultPrices)
	second := Receipt{Iteration: 2, Agent: "claude", Started: at("2026-11-22T11:05:01Z"), Ended: at("2026-11-22T11:09:00Z"),
		Source: "/t.jsonl", Usage: withCounts(oneModel("claude-haiku-4-5", Tokens{CacheRead: 100}), 1, 0),
		Changes: DiffStat{2, 5, 1}, Checks: &CheckSum{Passed: 1, Failed: 1}}.Priced(DefaultPrices)
	for _, r := range []Receipt{first, second} {
		if err := Append(path, r); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("{\"iteration\": 3, \"usage\": broken\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()

	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []Receipt{first, second}) {
		t.Fatalf("loaded\n%+v\nwant\n%+v", got, []Receipt{first, second})
	}

	total := Total(got)
	wantUsage := Usage{Turns: 3, ToolCalls: 3, Tokens: Tokens{Input: 10, Output: 20, CacheRead: 100},
		Models: map[string]Tokens{"claude-sonnet-4-5": {Input: 10, Output: 20}, "claude-haiku-4-5": {CacheRead: 100}}}
	if !reflect.DeepEqual(total.Usage, wantUsage) || total.Iteration != 2 || total.Changes != (DiffStat{2, 5, 1}) ||
		*total.Checks != (CheckSum{1, 1}) || !total.Started.Equal(first.Started) || !total.Ended.Equal(second.Ended) {
		t.Errorf("total %+v", total)
	}
	if total.CostUSD == nil || *total.CostUSD != *first.CostUSD+*second.CostUSD {
		t.Errorf("total cost %v", total.CostUSD)
	}
	unknown := Receipt{Iteration: 2, Source: "/t.jsonl", Usage: oneModel("a-model-of-no-price", Tokens{Input: 5})}.Priced(DefaultPrices)
	if unpriced := Total([]Receipt{first, unknown}); unpriced.CostUSD != nil {
		t.Errorf("a receipt of a model of unknown price left the total's cost known: %v", *unpriced.CostUSD)
	}
	// An iteration cut short before its agent wrote a turn reported nothing: the total stays known.
	if cut := Total([]Receipt{first, {Iteration: 2}}); cut.CostUSD == nil || *cut.CostUSD != *first.CostUSD {
		t.Errorf("a receipt that reported nothing made the total's cost %v, want %v", cut.CostUSD, *first.CostUSD)
	}
	if none := Total([]Receipt{{Iteration: 1}, {Iteration: 2}}); none.CostUSD != nil {
		t.Errorf("receipts that reported nothing have a cost: %v", *none.CostUSD)
	}
	if first.Usage.Models["claude-haiku-4-5"] != (Tokens{}) {
		t.Error("Total changed a receipt's usage")
	}
}

func TestPricedLeavesTheCostOutWhenTheAgentReportedNothing(t *testing.T) {
	r := Receipt{Usage: oneModel("gpt-5", Tokens{Input: 5})}.Priced(DefaultPrices)
	if r.CostUSD != nil {
		t.Errorf("cost %v without a source", *r.CostUSD)
	}
	r.Source = "/r.jsonl"
	if r = r.Priced(DefaultPrices); r.CostUSD == nil {
		t.Error("no cost for a priced model")
	}
}

func TestParseShortstat(t *testing.T) {
	for _, tt := range []struct {
		out  string
		want DiffStat
		ok   bool
	}{
		{" 3 files changed, 40 insertions(+), 12 deletions(-)\n", DiffStat{3, 40, 12}, true},
		{" 1 file changed, 1 insertion(+)\n", DiffStat{1, 1, 0}, true},
		{" 2 files changed, 7 deletions(-)", DiffStat{2, 0, 7}, true},
		{"", DiffStat{}, true},
		{"\n", DiffStat{}, true},
		{"fatal: not a git repository", DiffStat{}, false},
		{" 99999999999999999999 files changed", DiffStat{}, false},
	} {
		got, ok := ParseShortstat(tt.out)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseShortstat(%q) = %+v, %v; want %+v, %v", tt.out, got, ok, tt.want, tt.ok)
		}
	}
}
