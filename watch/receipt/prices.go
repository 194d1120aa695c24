package receipt

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// Prices maps a model name to its price. A name matches the model of that
// name and its dated releases (claude-sonnet-4-5 matches
// claude-sonnet-4-5-20250929); a name ending in * matches every model it
// begins. The longest matching name wins.
type Prices map[string]Price

// DefaultPrices are list prices (standard tier, short prompts) as published
// in late 2025, and later where a line says so. A model missing here has no
// cost; add it with a prices file.
var DefaultPrices = Prices{
	// Anthropic: cache writes (5 minutes) at 1.25× input. Claude Opus 5.5
	// (the default model of Claude Code 2.1.330) and Claude Opus 5: as each
	// model's overview page of Anthropic's platform documentation lists them
	// (models/opus-5-5/overview, models/opus-5/overview), read 2026-11-24;
	// Opus 5.5's cache reads are a twentieth of input, not a tenth.
	"claude-opus-5-5": {4, 20, 0.20, 5},
	"claude-opus-5":   {5, 25, 0.50, 6.25},
	// Cache reads at a tenth of input.
	"claude-opus-4-5":   {5, 25, 0.50, 6.25},
	"claude-opus-4-1":   {15, 75, 1.50, 18.75},
	"claude-opus-4":     {15, 75, 1.50, 18.75},
	"claude-sonnet-4-5": {3, 15, 0.30, 3.75},
	"claude-sonnet-4":   {3, 15, 0.30, 3.75},
	"claude-3-7-sonnet": {3, 15, 0.30, 3.75},
	"claude-haiku-4-5":  {1, 5, 0.10, 1.25},
	"claude-3-5-haiku":  {0.80, 4, 0.08, 1},
	// OpenAI: cached input at a tenth of input (a quarter for o-series and
	// gpt-4.1); no charge for writing the cache.
	"gpt-5":              {1.25, 10, 0.125, 0},
	"gpt-5-codex":        {1.25, 10, 0.125, 0},
	"gpt-5-mini":         {0.25, 2, 0.025, 0},
	"gpt-5-nano":         {0.05, 0.40, 0.005, 0},
	"gpt-5.1":            {1.25, 10, 0.125, 0},
	"gpt-5.1-codex":      {1.25, 10, 0.125, 0},
	"gpt-5.1-codex-max":  {1.25, 10, 0.125, 0},
	"gpt-5.1-codex-mini": {0.25, 2, 0.025, 0},
	"gpt-5.2":            {1.75, 14, 0.175, 0},
	"gpt-5.2-codex":      {1.75, 14, 0.175, 0},
	"gpt-4.1":            {2, 8, 0.50, 0},
	"o3":                 {2, 8, 0.50, 0},
	"o4-mini":            {1.10, 4.40, 0.275, 0},
	// Google: prompts up to 200k tokens; cache storage is billed by the hour, not here.
	"gemini-2.5-pro":         {1.25, 10, 0.125, 0},
	"gemini-2.5-flash":       {0.30, 2.50, 0.03, 0},
	"gemini-2.5-flash-lite":  {0.10, 0.40, 0.01, 0},
	"gemini-3-pro-preview":   {2, 12, 0.20, 0},
	"gemini-3-flash-preview": {0.50, 3, 0.05, 0},
}

// LoadPrices reads a JSON object of model name to price, such as
// {"my-model*": {"input": 5, "output": 25, "cache_read": 0.5,
// "cache_write": 6.25}}, over the default prices: a name given in the file
// replaces the default of that name.
func LoadPrices(path string) (Prices, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file map[string]Price
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("read prices %s: %v", path, err)
	}
	p := maps.Clone(DefaultPrices)
	for name, price := range file {
		if price.Input < 0 || price.Output < 0 || price.CacheRead < 0 || price.CacheWrite < 0 {
			return nil, fmt.Errorf("read prices %s: negative price for %q", path, name)
		}
		p[name] = price
	}
	return p, nil
}

// releaseSuffix is what a release adds to a model's name without changing
// the model: a date (Anthropic's -20250929, OpenAI's -2025-08-07, Vertex's @20250929).
var releaseSuffix = regexp.MustCompile(`^(-\d{8}|-\d{4}-\d{2}-\d{2}|@\d{8})$`)

// Lookup finds the price of a model.
func (p Prices) Lookup(model string) (Price, bool) {
	return lookupModel(p, model)
}

// lookupModel finds model in m: by its name, else by the longest name that
// is model without its release suffix, or a prefix of it ending in "*".
func lookupModel[V any](m map[string]V, model string) (V, bool) {
	if v, ok := m[model]; ok {
		return v, true
	}
	best, found := "", false
	for name := range m {
		prefix, wild := strings.CutSuffix(name, "*")
		rest, ok := strings.CutPrefix(model, prefix)
		if !ok || !(wild || releaseSuffix.MatchString(rest)) {
			continue
		}
		if !found || len(name) > len(best) || len(name) == len(best) && name < best {
			best, found = name, true
		}
	}
	return m[best], found
}

// Cost is what u cost at these prices. It is known only when every token of
// u is under a named model and every model that used tokens has a price:
// never a guess.
func (p Prices) Cost(u Usage) (usd float64, known bool) {
	var priced Tokens
	for model, t := range u.Models {
		priced = priced.plus(t)
		price, ok := p.Lookup(model)
		if !ok {
			if t.Sum() == 0 {
				continue
			}
			return 0, false
		}
		usd += (float64(t.Input)*price.Input + float64(t.Output)*price.Output +
			float64(t.CacheRead)*price.CacheRead + float64(t.CacheWrite)*price.CacheWrite) / 1e6
	}
	// Tokens of no named model, or no tokens at all: nothing to price.
	if len(u.Models) == 0 || priced != u.Tokens {
		return 0, false
	}
	return usd, true
}

// Cost is what u cost at the default prices.
func Cost(u Usage) (usd float64, known bool) {
	return DefaultPrices.Cost(u)
}
