// Package receipt answers what each iteration cost and did: the model turns,
// tool calls and tokens an agent reports in its own session files (Claude
// Code's transcript, Codex's rollout, Gemini CLI's chat), a cost where the
// model's price is known, and the diff stat and checks the loop adds. Nothing
// is invented: an agent that reports nothing gets a receipt without usage.
package receipt

import (
	"maps"
	"sort"
)

// Tokens are the tokens of one or more model calls, split the way they are
// priced.
type Tokens struct {
	Input      int64 `json:"input_tokens"`       // read fresh, not from the prompt cache
	Output     int64 `json:"output_tokens"`      // written, reasoning included
	CacheRead  int64 `json:"cache_read_tokens"`  // read from the prompt cache
	CacheWrite int64 `json:"cache_write_tokens"` // written into the prompt cache
}

// Sum is every token of every kind: what a token budget counts.
func (t Tokens) Sum() int64 {
	return t.Input + t.Output + t.CacheRead + t.CacheWrite
}

func (t Tokens) plus(o Tokens) Tokens {
	return Tokens{t.Input + o.Input, t.Output + o.Output, t.CacheRead + o.CacheRead, t.CacheWrite + o.CacheWrite}
}

// Usage is what an agent reported for some stretch of its session.
type Usage struct {
	Turns     int `json:"turns"`      // model responses
	ToolCalls int `json:"tool_calls"` // tools the model asked to run
	Tokens        // the totals over every model
	// Models holds the tokens by model name, so each is priced at its own rate.
	Models map[string]Tokens `json:"models,omitempty"`
	// Context is how full the window was at the last model call (Claude
	// Code, Codex, Gemini CLI); nil: not told.
	Context *Context `json:"context,omitempty"`
}

// Add returns the sum of u and o; neither is changed.
func (u Usage) Add(o Usage) Usage {
	sum := Usage{Turns: u.Turns + o.Turns, ToolCalls: u.ToolCalls + o.ToolCalls, Tokens: u.Tokens.plus(o.Tokens), Context: u.Context}
	if sum.Context == nil { // a session's own context, not its subagents'
		sum.Context = o.Context
	}
	if len(u.Models)+len(o.Models) > 0 {
		sum.Models = maps.Clone(u.Models)
		if sum.Models == nil {
			sum.Models = map[string]Tokens{}
		}
		for m, t := range o.Models {
			sum.Models[m] = sum.Models[m].plus(t)
		}
	}
	return sum
}

// ModelNames are the models used, sorted.
func (u Usage) ModelNames() []string {
	names := make([]string, 0, len(u.Models))
	for m := range u.Models {
		names = append(names, m)
	}
	sort.Strings(names)
	return names
}

// add counts one model call's tokens under its model.
func (u *Usage) add(model string, t Tokens) {
	u.Tokens = u.Tokens.plus(t)
	if model == "" {
		return
	}
	if u.Models == nil {
		u.Models = map[string]Tokens{}
	}
	u.Models[model] = u.Models[model].plus(t)
}
