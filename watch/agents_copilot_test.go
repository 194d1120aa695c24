package watch_test

// GitHub Copilot CLI: its fixture, and the case only it has (a usage limit
// it retries silently, told only by its errorOccurred hook). Checked with
// Copilot CLI 1.0.102, offline, the fake API as its own model provider.

import (
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// copilotCLI's turns end by its agentStop hook, from the plugin each loop
// passes by --plugin-dir, or by its screen (the footer back, no "Working"
// line) when the hook is off.
var copilotCLI = agentFixture{
	name:     "copilot",
	title:    "Copilot CLI",
	protocol: "openai",
	ends:     byHookOrScreen,
	timeout:  240 * time.Second,
	receipts: "always",
	unwrap: func(s string) string {
		p, _ := agent.Lookup("copilot")
		return p.PromptPrefix.ReplaceAllString(s, "") // the date it puts in front
	},
}

// At a usage limit Copilot CLI retries silently, its screen at "◉ Working";
// its errorOccurred hook tells the API's error each time: the loop takes it
// for a limit and waits, the iteration not counted.
func TestCopilotUsageLimitIsToldByItsErrorHook(t *testing.T) {
	t.Parallel()
	copilot := copilotCLI.find(t)
	r := newAgentRun(t, copilotCLI, copilot, loopPrompt, "!limit 3600")
	defer r.explain()
	r.cfg.LimitWait = time.Hour
	r.useTurnHook(turnHookWake(t))
	r.waitsForItsLimit(120 * time.Second)
	if _, via, ok := r.ev.first(1, contract.EventLimit); !ok || via != contract.ViaHook {
		t.Errorf("limit known by %q (%v), want %q", via, ok, contract.ViaHook)
	}
}
