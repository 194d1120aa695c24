package watch_test

// Gemini CLI: its fixture, and the case only it has (hooks a person
// configured by hand). Checked with Gemini CLI 0.61.0.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// geminiCLI's turns end as its screen tells (the Thinking line gone, the
// input box back): its hooks cannot be added for one run.
var geminiCLI = agentFixture{
	name:     "gemini",
	title:    "Gemini CLI",
	variable: "RALPH_TEST_GEMINI",
	protocol: "gemini",
	ends:     []turnEnd{{name: "screen", profile: true, via: watch.ViaScreen}},
	timeout:  300 * time.Second,
}

// Gemini CLI's hooks cannot be added for one run (see NOTES.md), but a
// person can configure them once: `ralph-watch hook NAME` with no --state
// finds the loop by the RALPH_NAME and RALPH_STATE_DIR every looped agent
// has. Then each turn ends by its AfterAgent hook, not its screen.
func TestGeminiHooksConfiguredByHandEndEachTurn(t *testing.T) {
	t.Parallel()
	gemini := geminiCLI.find(t)
	tmuxtest.Require(t)
	r := newAgentRun(t, geminiCLI, gemini, loopPrompt, "Still working on it.")
	defer r.explain()
	exe := tmuxtest.Build(t, "cmd/ralph-watch")
	hooks := map[string]any{}
	for event, name := range map[string]string{"SessionStart": agent.HookSessionStart, "BeforeAgent": agent.HookPromptSubmit,
		"AfterAgent": agent.HookTurnEnd, "Notification": agent.HookNeedsInput} {
		hooks[event] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": exe + " hook " + name}}}}
	}
	settings, _ := json.Marshal(map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"hooks":    hooks,
	})
	if err := os.WriteFile(filepath.Join(r.srv.Dir, "home", ".gemini", "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	r.wake = turnHookWake(t)
	res := r.run(300 * time.Second)
	if res.Code != watch.ExitLimit || res.Reason != "max_iterations" {
		t.Errorf("result %+v, want exit 3 max_iterations", res)
	}
	r.wantVia(2, turnEnd{via: watch.ViaHook})
	r.wantPrompts(2, strings.TrimRight(loopPrompt, "\n"))
}
