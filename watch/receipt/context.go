package receipt

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
)

// Context is how full the model's context window was at the agent's last
// model call, as its session file tells: what that call read (fresh and
// cached) and wrote.
type Context struct {
	Tokens int64  `json:"tokens"`
	Model  string `json:"model,omitempty"`
	// Window is the window the agent itself reports (Codex's
	// model_context_window); 0: look the model up (Windows).
	Window int64 `json:"window,omitempty"`
}

// Percent is how full the window is, 0 when the window is not known.
func (c Context) Percent(w Windows) (pct int, window int64) {
	window = c.Window
	if window <= 0 {
		window, _ = w.Lookup(c.Model)
	}
	if window <= 0 {
		return 0, 0
	}
	return int(c.Tokens * 100 / window), window
}

// Windows are the models' context windows in tokens, by name as Prices
// names them ("claude-*" any Claude model).
type Windows map[string]int64

// DefaultWindows are the context windows of the models the agents that
// report their context use (Claude Code, Codex, Gemini CLI) run by default.
// Codex writes its own into its rollout, which wins. Claude Code 2.1.331's
// /context gives Opus 5.5 a window of 1m tokens.
var DefaultWindows = Windows{
	"claude-*":       200_000,
	"claude-opus-5*": 1_000_000,
	"gpt-5*":         400_000,
	"gpt-4.1*":       1_047_576,
	"o3*":            200_000,
	"o4-mini*":       200_000,
	"gemini-2.5-*":   1_048_576,
	"gemini-3*":      1_048_576,
	"gemini-2.0-*":   1_048_576,
	"gemini-1.5-pro": 2_097_152,
}

// Lookup is the window of model, as Prices.Lookup finds a price.
func (w Windows) Lookup(model string) (int64, bool) {
	return lookupModel(w, model)
}

// LoadWindows reads a JSON file of windows ({"model": tokens}) over the
// defaults.
func LoadWindows(path string) (Windows, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file map[string]int64
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("read context windows %s: %v", path, err)
	}
	w := maps.Clone(DefaultWindows)
	for name, n := range file {
		if n <= 0 {
			return nil, fmt.Errorf("read context windows %s: %q: a window must be more than 0 tokens", path, name)
		}
		w[name] = n
	}
	return w, nil
}
