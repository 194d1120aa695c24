package receipt

// One iteration's receipt, the receipts file (one JSON line each) and the
// forms it is shown in.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// Receipt is what one iteration cost and did.
type Receipt struct {
	Iteration int       `json:"iteration"`
	Agent     string    `json:"agent,omitempty"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended"`
	// Source is the agent's file the usage was read from; "" when the agent
	// reported nothing, and Usage is then empty, not zero.
	Source  string    `json:"source,omitempty"`
	Usage   Usage     `json:"usage"`
	CostUSD *float64  `json:"cost_usd,omitempty"` // absent when a model's price is unknown
	Changes DiffStat  `json:"changes"`
	Checks  *CheckSum `json:"checks,omitempty"` // absent when no check ran
	Notes   []string  `json:"notes,omitempty"`  // the person's notes the iteration's prompt carried
	Reason  string    `json:"reason,omitempty"` // why the loop ended the iteration early (its context window)
	Task    string    `json:"task,omitempty"`   // the plan's task the iteration worked on (--tasks)
	// Judge is what goal mode's judge spent judging the iteration (--goal);
	// absent when it was not asked. Usage and CostUSD are the agent's alone.
	Judge *JudgeSpend `json:"judge,omitempty"`
}

// CheckSum counts the checks that ran after an iteration.
type CheckSum struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

// Priced sets the receipt's cost from its usage at prices; the cost stays
// absent when it is not known.
func (r Receipt) Priced(p Prices) Receipt {
	r.CostUSD = nil
	if usd, ok := p.Cost(r.Usage); ok && r.Source != "" {
		r.CostUSD = &usd
	}
	return r
}

// Append adds r as one line to the receipts file at path.
func Append(path string, r Receipt) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	// One write per line: a reader never sees half a receipt.
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Load reads the receipts file at path, oldest first, skipping lines it
// cannot read. A missing file has no receipts.
func Load(path string) ([]Receipt, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var receipts []Receipt
	err = eachLine(f, func(line []byte) {
		var r Receipt
		if json.Unmarshal(line, &r) == nil {
			receipts = append(receipts, r)
		}
	})
	return receipts, err
}

// Unpriced reports whether the receipt's cost is unknown: its agent
// reported usage of a model whose price is not known. One that reported
// nothing (an iteration interrupted before its agent wrote a turn) spent
// nothing the loop can see, and leaves a total's cost known.
// So is one whose judge reported tokens of unknown price.
func (r Receipt) Unpriced() bool {
	return r.Source != "" && r.CostUSD == nil || r.Judge != nil && r.Judge.Unpriced()
}

// Total sums receipts into one: usage, changes and checks added, the last
// iteration's number, the first start and the last end. Its cost is known
// when some receipt reported usage and none is Unpriced; its source is set
// when any reported usage.
func Total(receipts []Receipt) Receipt {
	var t Receipt
	costKnown := true
	var usd float64
	for i, r := range receipts {
		if i == 0 || r.Started.Before(t.Started) {
			t.Started = r.Started
		}
		if r.Ended.After(t.Ended) {
			t.Ended = r.Ended
		}
		t.Iteration = max(t.Iteration, r.Iteration)
		if t.Agent == "" {
			t.Agent = r.Agent
		}
		if r.Source != "" {
			t.Source = r.Source
		}
		t.Usage = t.Usage.Add(r.Usage)
		if r.Unpriced() {
			costKnown = false
		} else if r.CostUSD != nil {
			usd += *r.CostUSD
		}
		t.Changes = t.Changes.Add(r.Changes)
		if r.Judge != nil {
			j := r.Judge.Add(JudgeSpend{})
			if t.Judge != nil {
				j = t.Judge.Add(*r.Judge)
			}
			t.Judge = &j
		}
		if r.Checks != nil {
			if t.Checks == nil {
				t.Checks = &CheckSum{}
			}
			t.Checks.Passed += r.Checks.Passed
			t.Checks.Failed += r.Checks.Failed
		}
	}
	if costKnown && t.Source != "" {
		t.CostUSD = &usd
	}
	return t
}

// LogLine is the receipt as one line of iterations.log (the caller adds the
// event word), such as
//
//	iteration 3 tokens in=12034 out=2311 cache=45000/1200 turns=4 tools=7 cost=$0.23 files=3 +40 -12 checks=pass
//
// where cache is read/written; "tokens unreported" when the agent wrote
// nothing, "cost=unknown" when a model's price is not known.
func (r Receipt) LogLine() string {
	var b strings.Builder
	fmt.Fprintf(&b, "iteration %d", r.Iteration)
	if r.Source == "" {
		b.WriteString(" tokens unreported")
	} else {
		u := r.Usage
		fmt.Fprintf(&b, " tokens in=%d out=%d cache=%d/%d turns=%d tools=%d",
			u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Turns, u.ToolCalls)
		if r.CostUSD != nil {
			fmt.Fprintf(&b, " cost=%s", Dollars(*r.CostUSD))
		} else {
			b.WriteString(" cost=unknown")
		}
	}
	fmt.Fprintf(&b, " files=%d +%d -%d", r.Changes.Files, r.Changes.Insertions, r.Changes.Deletions)
	if c := r.Checks; c != nil {
		if c.Failed == 0 {
			b.WriteString(" checks=pass")
		} else {
			fmt.Fprintf(&b, " checks=fail(%d/%d)", c.Failed, c.Passed+c.Failed)
		}
	}
	if r.Judge != nil {
		b.WriteString(" " + r.Judge.LogLine())
	}
	return b.String()
}

// Reported reports whether the agent or its judge told any use.
func (r Receipt) Reported() bool { return r.Source != "" || r.Judge != nil && r.Judge.Reported > 0 }

// Tokens are every token the iteration used, its judge's calls included.
func (r Receipt) Tokens() int64 { return Spend{}.Add(r).Tokens }

// Cost is what the iteration cost, its judge's calls included; known is
// false when nothing was reported or some of it has no price.
func (r Receipt) Cost() (usd float64, known bool) {
	if !r.Reported() || r.Unpriced() {
		return 0, false
	}
	return Spend{}.Add(r).CostUSD, true
}

// Words is a total in words: "120034 tokens, $0.42", "120034 tokens, cost
// unknown", or "no usage reported".
func (r Receipt) Words() string {
	if !r.Reported() {
		return "no usage reported"
	}
	s := fmt.Sprintf("%d tokens", r.Tokens())
	usd, known := r.Cost()
	if !known {
		return s + ", cost unknown"
	}
	return s + ", " + Dollars(usd)
}

// Compact is the receipt in a few characters for a list column or a status
// line: "58k tok $1.20", "58k tok" when the cost is unknown, "" when the
// agent reported nothing.
func (r Receipt) Compact() string {
	if !r.Reported() {
		return ""
	}
	s := count(r.Tokens()) + " tok"
	if usd, known := r.Cost(); known {
		s += " " + Dollars(usd)
	}
	return s
}

// count is n in at most four characters: 950, 58k, 1.2M.
func count(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 999_500:
		return fmt.Sprintf("%dk", (n+500)/1000)
	case n < 9_950_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n < 999_500_000:
		return fmt.Sprintf("%dM", (n+500_000)/1_000_000)
	}
	return fmt.Sprintf("%.1fG", float64(n)/1e9)
}

// Dollars is an amount to the cent, with more digits under ten cents so a
// cheap turn does not read as free.
func Dollars(usd float64) string {
	switch {
	case usd > 0 && usd < 0.01:
		return fmt.Sprintf("$%.4f", usd)
	case usd > 0 && usd < 0.1:
		return fmt.Sprintf("$%.3f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}
