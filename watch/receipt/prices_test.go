package receipt

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLookupMatchesAModelAndItsReleasesButNoOtherModel(t *testing.T) {
	for _, tt := range []struct {
		model string
		want  string // the name whose price applies; "" for none
	}{
		{"claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5@20250929", "claude-sonnet-4-5"},
		{"claude-sonnet-4-20250514", "claude-sonnet-4"},
		{"claude-opus-4-1-20250805", "claude-opus-4-1"},
		{"gpt-5-2025-08-07", "gpt-5"},
		{"gpt-5.1-codex-mini", "gpt-5.1-codex-mini"},
		{"gemini-2.5-flash-lite", "gemini-2.5-flash-lite"},
		// Another model, not a release: no price rather than a neighbour's.
		{"claude-sonnet-4-6", ""},
		{"claude-opus-5-5-20261101", "claude-opus-5-5"},
		{"claude-opus-5", "claude-opus-5"},
		{"claude-opus-5-7", ""},
		{"claude-opus-9-9", ""},
		{"gpt-5-pro", ""},
		{"gpt-5.3", ""},
		{"gemini-3.8-flash", ""},
		{"", ""},
	} {
		price, ok := DefaultPrices.Lookup(tt.model)
		if ok != (tt.want != "") || ok && price != DefaultPrices[tt.want] {
			t.Errorf("Lookup(%q) = %v, %v; want the price of %q", tt.model, price, ok, tt.want)
		}
	}
}

func TestAStarPricesEveryModelItBegins(t *testing.T) {
	p := Prices{"claude-opus-5*": {5, 25, 0.5, 6.25}, "claude-opus-5-5": {1, 1, 1, 1}}
	if got, ok := p.Lookup("claude-opus-5-1"); !ok || got.Input != 5 {
		t.Errorf("claude-opus-5-1: %v %v", got, ok)
	}
	if got, ok := p.Lookup("claude-opus-5-5-20261101"); !ok || got.Input != 1 {
		t.Errorf("the longer name wins: %v %v", got, ok)
	}
}

func TestCostIsKnownOnlyWhenEveryTokenHasAPrice(t *testing.T) {
	sonnet := Tokens{Input: 10, Output: 405, CacheRead: 41200, CacheWrite: 1500}
	unpriced := Tokens{Input: 1, Output: 1}
	for _, tt := range []struct {
		name  string
		u     Usage
		usd   float64
		known bool
	}{
		{"one priced model", oneModel("claude-sonnet-4-5-20250929", sonnet), 0.02409, true},
		{"two priced models", Usage{Tokens: sonnet.plus(Tokens{Input: 1e6}),
			Models: map[string]Tokens{"claude-sonnet-4-5": sonnet, "gpt-5": {Input: 1e6}}}, 1.27409, true},
		{"a model without a price", Usage{Tokens: sonnet.plus(unpriced),
			Models: map[string]Tokens{"claude-sonnet-4-5": sonnet, "claude-opus-9-9": unpriced}}, 0, false},
		{"an unpriced model that used nothing", Usage{Tokens: sonnet,
			Models: map[string]Tokens{"claude-sonnet-4-5": sonnet, "claude-opus-9-9": {}}}, 0.02409, true},
		{"tokens of no model", Usage{Tokens: sonnet}, 0, false},
		{"tokens beyond the models'", Usage{Tokens: sonnet.plus(unpriced), Models: map[string]Tokens{"claude-sonnet-4-5": sonnet}}, 0, false},
		{"nothing", Usage{}, 0, false},
	} {
		usd, known := Cost(tt.u)
		if known != tt.known || math.Abs(usd-tt.usd) > 1e-9 {
			t.Errorf("%s: Cost = %v, %v; want %v, %v", tt.name, usd, known, tt.usd, tt.known)
		}
	}
}

func TestLoadPricesAddsAndReplacesOverTheDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(path, []byte(`{"claude-opus-9*": {"input": 5, "output": 25, "cache_read": 0.5, "cache_write": 6.25},
		"gpt-5": {"input": 1, "output": 8}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPrices(path)
	if err != nil {
		t.Fatal(err)
	}
	if usd, ok := p.Cost(oneModel("claude-opus-9-9", Tokens{Input: 1e6, Output: 1e6})); !ok || usd != 30 {
		t.Errorf("added model: %v %v, want 30", usd, ok)
	}
	if got, _ := p.Lookup("gpt-5"); got != (Price{Input: 1, Output: 8}) {
		t.Errorf("replaced price: %+v", got)
	}
	if got, _ := p.Lookup("claude-haiku-4-5"); got != DefaultPrices["claude-haiku-4-5"] {
		t.Errorf("a default kept: %+v", got)
	}
	if _, ok := DefaultPrices.Lookup("claude-opus-9-9"); ok {
		t.Error("loading prices changed the defaults")
	}

	for name, bad := range map[string]string{"not JSON": `{`, "negative": `{"x": {"input": -1}}`, "a list": `[]`} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadPrices(path); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := LoadPrices(filepath.Join(t.TempDir(), "missing.json")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

// Claude Code 2.1.330 runs Claude Opus 5.5 unless told otherwise: its turns
// have a cost out of the box, at the published list price.
func TestClaudeCodesDefaultModelHasAPrice(t *testing.T) {
	u, err := ReadClaudeFile(fixture("claude-2.1.330.jsonl"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	usd, known := DefaultPrices.Cost(u)
	if want := (200*4.0 + 6*20.0) / 1e6; !known || math.Abs(usd-want) > 1e-12 {
		t.Errorf("claude-opus-5-5's turns cost %v (known %v), want %v", usd, known, want)
	}
	if p, _ := DefaultPrices.Lookup("claude-opus-5-5"); p.CacheRead != 0.20 || p.CacheWrite != 5 {
		t.Errorf("claude-opus-5-5's cache prices: %+v", p)
	}
}
