package judge

import (
	"slices"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

// oneShot are the agents whose one-shot form (their profile's --prompt-mode
// arg arguments) can judge: each answers once and exits.
var oneShot = []string{"claude", "codex", "gemini"}

// reports are the words that have an agent's one-shot form tell its use
// in the JSON form package receipt reads (the verdict then stands in its
// "result"), where the loop knows one.
var reports = map[string][]string{"claude": {"--output-format", "json"}}

// Default is the judge a loop without --judge asks: its own agent in its
// one-shot form, the input as its last argument (claude → claude -p
// --output-format json, which tells its tokens and cost; codex → codex
// exec, gemini → gemini -p); ok false when the profile knows none, and
// --goal then needs --judge.
func Default(profile string) (command, mode string, ok bool) {
	if !slices.Contains(oneShot, profile) {
		return "", "", false
	}
	p, found := agent.Lookup(profile)
	m, has := p.Modes[agent.ModeArg]
	if !found || !has || len(m.First)+len(m.Last) == 0 {
		return "", "", false
	}
	words := append(append(append([]string{profile}, m.First...), m.Last...), reports[profile]...)
	return strings.Join(words, " "), ModeArg, true
}
