package receipt

// What goal mode's judge spent (--goal): a one-shot agent tells its use in
// its JSON output form, where the loop knows it (Claude Code's `claude -p
// --output-format json`); any other output reports nothing, and nothing is
// invented for it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// JudgeSpend is what the judge's calls about one iteration spent: the
// calls, those that reported their use, and the use they reported, priced.
type JudgeSpend struct {
	Calls    int   `json:"calls"`
	Reported int   `json:"reported"` // calls whose output told their use; the rest are unreported
	Usage    Usage `json:"usage"`
	// CostUSD is absent when a reporting call's cost is not known, or no
	// call reported.
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// Unpriced reports whether some of the judge's reported tokens have no
// known cost.
func (j JudgeSpend) Unpriced() bool { return j.Reported > 0 && j.CostUSD == nil && j.Usage.Sum() > 0 }

// Add is the spend of j's calls and o's.
func (j JudgeSpend) Add(o JudgeSpend) JudgeSpend {
	sum := JudgeSpend{Calls: j.Calls + o.Calls, Reported: j.Reported + o.Reported, Usage: j.Usage.Add(o.Usage)}
	sum.Usage.Context = nil // a judge's window is not the agent's
	if !j.Unpriced() && !o.Unpriced() && sum.Reported > 0 {
		usd := 0.0
		for _, c := range []*float64{j.CostUSD, o.CostUSD} {
			if c != nil {
				usd += *c
			}
		}
		sum.CostUSD = &usd
	}
	return sum
}

// LogLine is the judge's part of a receipt's line: "judge tokens in=812
// out=64 cache=0/0 cost=$0.0031", "judge tokens unreported" when no call
// told its use, "cost=unknown" when its price is not known.
func (j JudgeSpend) LogLine() string {
	if j.Reported == 0 {
		return "judge tokens unreported"
	}
	u := j.Usage
	s := fmt.Sprintf("judge tokens in=%d out=%d cache=%d/%d", u.Input, u.Output, u.CacheRead, u.CacheWrite)
	if j.CostUSD == nil {
		return s + " cost=unknown"
	}
	return s + " cost=" + Dollars(*j.CostUSD)
}

// claudeResult is Claude Code's one JSON object of `claude -p
// --output-format json`: the answer, what it used, what that cost.
type claudeResult struct {
	Type       string                      `json:"type"`
	Result     *string                     `json:"result"`
	NumTurns   int                         `json:"num_turns"`
	TotalCost  *float64                    `json:"total_cost_usd"`
	Usage      *claudeUsage                `json:"usage"`
	ModelUsage map[string]claudeModelUsage `json:"modelUsage"`
}

type claudeModelUsage struct {
	Input      int64 `json:"inputTokens"`
	Output     int64 `json:"outputTokens"`
	CacheRead  int64 `json:"cacheReadInputTokens"`
	CacheWrite int64 `json:"cacheCreationInputTokens"`
}

// JudgeCall reads one judge's output: when it is a one-shot agent's JSON
// form the loop knows (Claude Code's --output-format json: one object with
// "type": "result", or, with --verbose, a list of messages ending in one),
// its answer is the "result" text and its use is reported, priced by its
// own total_cost_usd, else by its tokens at prices; any other output is the
// answer itself and its use unreported.
func JudgeCall(out string, prices Prices) (answer string, spent JudgeSpend) {
	spent.Calls = 1
	r, ok := readClaudeResult(out)
	if !ok {
		return out, spent
	}
	spent.Reported = 1
	var u Usage
	u.Turns = r.NumTurns
	for model, m := range r.ModelUsage {
		if sane(m.Input, m.Output, m.CacheRead, m.CacheWrite) {
			u.add(model, Tokens(m))
		}
	}
	if u.Tokens.Sum() == 0 && r.Usage != nil && sane(r.Usage.Input, r.Usage.Output, r.Usage.CacheRead, r.Usage.CacheWrite) {
		u = Usage{Turns: r.NumTurns, Tokens: Tokens{Input: r.Usage.Input, Output: r.Usage.Output, CacheRead: r.Usage.CacheRead, CacheWrite: r.Usage.CacheWrite}}
	}
	spent.Usage = u
	switch usd, known := prices.Cost(u); {
	case r.TotalCost != nil && *r.TotalCost >= 0:
		c := *r.TotalCost
		spent.CostUSD = &c
	case known:
		spent.CostUSD = &usd
	case u.Sum() == 0:
		zero := 0.0
		spent.CostUSD = &zero
	}
	return *r.Result, spent
}

// readClaudeResult finds Claude Code's result object in out, alone or as
// the last "result" message of a list.
func readClaudeResult(out string) (claudeResult, bool) {
	data := bytes.TrimSpace([]byte(out))
	var r claudeResult
	switch {
	case bytes.HasPrefix(data, []byte("{")):
		if json.Unmarshal(data, &r) != nil {
			return r, false
		}
	case bytes.HasPrefix(data, []byte("[")):
		var list []json.RawMessage
		if json.Unmarshal(data, &list) != nil {
			return r, false
		}
		for i := len(list) - 1; i >= 0 && r.Type != "result"; i-- {
			r = claudeResult{}
			_ = json.Unmarshal(list[i], &r)
		}
	default:
		return r, false
	}
	return r, strings.EqualFold(r.Type, "result") && r.Result != nil && (r.Usage != nil || r.TotalCost != nil || r.ModelUsage != nil)
}

// WithJudge is the receipts file data with j added to the judge's spend
// of iteration n's receipt, the last of that number; found is false when
// data holds none (the caller appends one). Every other line stays as it
// was, byte for byte.
func WithJudge(data []byte, n int, j JudgeSpend) (out []byte, found bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var r Receipt
		if json.Unmarshal(lines[i], &r) != nil || r.Iteration != n {
			continue
		}
		sum := j.Add(JudgeSpend{})
		if r.Judge != nil {
			sum = r.Judge.Add(j)
		}
		r.Judge = &sum
		line, err := json.Marshal(r)
		if err != nil {
			return data, false
		}
		lines[i] = append(line, '\n')
		return bytes.Join(lines, nil), true
	}
	return data, false
}
