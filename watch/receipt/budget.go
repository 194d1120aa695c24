package receipt

import (
	"fmt"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
)

// What a loop may spend (--max-tokens, --max-cost), what it has spent, and
// when the spend is looked at while an iteration runs.

// Budget is the most a loop may spend over all its iterations; a zero field
// sets no limit.
type Budget struct {
	Tokens  int64   // every token of every kind, as Tokens.Sum counts them
	CostUSD float64 // US dollars at the loop's prices
}

// Set reports whether the budget limits anything.
func (b Budget) Set() bool { return b.Tokens > 0 || b.CostUSD > 0 }

// Spend is what a loop has spent, as far as its receipts tell.
type Spend struct {
	Tokens  int64
	CostUSD float64 // of the tokens whose price is known
	// Unpriced: some tokens were used by a model of unknown price, so
	// CostUSD is less than the truth (a cost is never guessed).
	Unpriced bool
}

// Add returns the spend with r's added, its judge's calls included.
func (s Spend) Add(r Receipt) Spend {
	s.Tokens += r.Usage.Sum()
	if r.CostUSD != nil {
		s.CostUSD += *r.CostUSD
	} else if r.Usage.Sum() > 0 {
		s.Unpriced = true
	}
	if j := r.Judge; j != nil {
		s.Tokens += j.Usage.Sum()
		if j.CostUSD != nil {
			s.CostUSD += *j.CostUSD
		} else if j.Usage.Sum() > 0 {
			s.Unpriced = true
		}
	}
	return s
}

// SpendOf is the spend of receipts.
func SpendOf(receipts []Receipt) Spend {
	var s Spend
	for _, r := range receipts {
		s = s.Add(r)
	}
	return s
}

// Reached says whether spent has reached the budget, and why in words, such
// as "budget reached: 120034 tokens of 100000".
func (b Budget) Reached(spent Spend) (why string, reached bool) {
	if b.Tokens > 0 && spent.Tokens >= b.Tokens {
		return fmt.Sprintf("budget reached: %d tokens of %d", spent.Tokens, b.Tokens), true
	}
	if b.CostUSD > 0 && spent.CostUSD >= b.CostUSD {
		return fmt.Sprintf("budget reached: %s of %s", Dollars(spent.CostUSD), Dollars(b.CostUSD)), true
	}
	return "", false
}

// String is the budget for status: "100000 tokens, $5.00".
func (b Budget) String() string {
	switch {
	case b.Tokens > 0 && b.CostUSD > 0:
		return fmt.Sprintf("%d tokens, %s", b.Tokens, Dollars(b.CostUSD))
	case b.Tokens > 0:
		return fmt.Sprintf("%d tokens", b.Tokens)
	case b.CostUSD > 0:
		return Dollars(b.CostUSD)
	}
	return "none"
}

// BudgetMeter watches the spend while an iteration runs: it reads the
// iteration's receipt so far at most every Every, and says when that and
// the iterations before reach the budget.
type BudgetMeter struct {
	Budget Budget
	Before Spend // the iterations before this one
	Every  time.Duration
	Clock  clock.Clock
	// Read is the iteration's receipt so far, priced.
	Read func() (Receipt, error)

	last time.Time // when Read was called last; zero: never
}

// Check reads the spend if it is time to, and says whether it reached the
// budget. A session that cannot be read reaches nothing.
func (m *BudgetMeter) Check() (why string, reached bool) {
	if !m.Budget.Set() || m.Read == nil {
		return "", false
	}
	now := m.Clock.Now()
	if !m.last.IsZero() && now.Sub(m.last) < m.Every {
		return "", false
	}
	m.last = now
	r, err := m.Read()
	if err != nil {
		return "", false
	}
	return m.Budget.Reached(m.Before.Add(r))
}
