package receipt_test

import (
	"errors"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

func priced(tokens int64, usd *float64) receipt.Receipt {
	return receipt.Receipt{Source: "s.jsonl", Usage: receipt.Usage{Tokens: receipt.Tokens{Input: tokens}}, CostUSD: usd}
}

func dollars(v float64) *float64 { return &v }

func TestABudgetIsReachedAtItsTokensOrItsPricedCost(t *testing.T) {
	for _, c := range []struct {
		name   string
		budget receipt.Budget
		spent  []receipt.Receipt
		want   string // "": not reached
	}{
		{"no budget", receipt.Budget{}, []receipt.Receipt{priced(1e9, dollars(1e4))}, ""},
		{"under the tokens", receipt.Budget{Tokens: 1000}, []receipt.Receipt{priced(600, nil), priced(399, nil)}, ""},
		{"at the tokens", receipt.Budget{Tokens: 1000}, []receipt.Receipt{priced(600, nil), priced(400, nil)}, "budget reached: 1000 tokens of 1000"},
		{"over the tokens", receipt.Budget{Tokens: 1000}, []receipt.Receipt{priced(120034, nil)}, "budget reached: 120034 tokens of 1000"},
		{"under the cost", receipt.Budget{CostUSD: 5}, []receipt.Receipt{priced(10, dollars(2)), priced(10, dollars(2.99))}, ""},
		{"at the cost", receipt.Budget{CostUSD: 5}, []receipt.Receipt{priced(10, dollars(2)), priced(10, dollars(3))}, "budget reached: $5.00 of $5.00"},
		{"unpriced tokens cost nothing known", receipt.Budget{CostUSD: 5}, []receipt.Receipt{priced(1e9, nil), priced(10, dollars(1))}, ""},
		{"tokens first when both are reached", receipt.Budget{Tokens: 10, CostUSD: 0.01}, []receipt.Receipt{priced(20, dollars(1))}, "budget reached: 20 tokens of 10"},
		{"cost when only it is reached", receipt.Budget{Tokens: 1000, CostUSD: 0.05}, []receipt.Receipt{priced(20, dollars(0.06))}, "budget reached: $0.060 of $0.050"},
		{"nothing reported", receipt.Budget{Tokens: 1}, []receipt.Receipt{{Iteration: 1}}, ""},
	} {
		why, reached := c.budget.Reached(receipt.SpendOf(c.spent))
		if why != c.want || reached != (c.want != "") {
			t.Errorf("%s: %q %v, want %q", c.name, why, reached, c.want)
		}
	}
	if s := receipt.SpendOf([]receipt.Receipt{priced(1e9, nil), priced(10, dollars(1))}); !s.Unpriced || s.CostUSD != 1 || s.Tokens != 1e9+10 {
		t.Errorf("spend with unpriced tokens: %+v", s)
	}
}

func TestTheBudgetMeterReadsARunningIterationAtItsPaceAndSaysWhenItIsOver(t *testing.T) {
	type step struct {
		advance time.Duration
		tokens  int64 // what the session reports now; -1: it cannot be read
		read    bool  // the meter read the session
		reached bool
	}
	for _, c := range []struct {
		name   string
		budget receipt.Budget
		steps  []step
	}{
		{"the first look reads at once", receipt.Budget{Tokens: 1000}, []step{{0, 100, true, false}}},
		{"no look sooner than every", receipt.Budget{Tokens: 1000}, []step{
			{0, 100, true, false}, {4 * time.Second, 2000, false, false}, {time.Second, 2000, true, true}}},
		{"the iterations before count", receipt.Budget{Tokens: 1000}, []step{
			{0, 500, true, false}, {5 * time.Second, 700, true, true}}},
		{"an unreadable session reaches nothing", receipt.Budget{Tokens: 1000}, []step{
			{0, -1, true, false}, {5 * time.Second, 2000, true, true}}},
		{"no budget, no reading", receipt.Budget{}, []step{{0, 1e9, false, false}, {time.Minute, 1e9, false, false}}},
	} {
		clk := clock.NewFake(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
		var tokens int64
		reads := 0
		m := &receipt.BudgetMeter{Budget: c.budget, Before: receipt.Spend{Tokens: 400}, Every: 5 * time.Second, Clock: clk,
			Read: func() (receipt.Receipt, error) {
				reads++
				if tokens < 0 {
					return receipt.Receipt{}, errors.New("unreadable")
				}
				return priced(tokens, nil), nil
			}}
		for i, s := range c.steps {
			clk.Advance(s.advance)
			tokens = s.tokens
			before := reads
			_, reached := m.Check()
			if read := reads > before; read != s.read || reached != s.reached {
				t.Errorf("%s: step %d: read %v reached %v, want read %v reached %v", c.name, i, read, reached, s.read, s.reached)
			}
		}
	}
}
