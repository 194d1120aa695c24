package watch_test

// Gemini CLI: its fixture, and the case only it has (hooks a person
// configured by hand). Checked with Gemini CLI 0.61.0.

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/doctor"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// geminiCLI's turns end by its AfterAgent hook, which each loop gives it
// through GEMINI_CLI_HOME (an overlay of its home, the person's files
// untouched), or as its screen tells when the hook is off (the Thinking
// line gone, the input box back).
var geminiCLI = agentFixture{
	name:     "gemini",
	title:    "Gemini CLI",
	protocol: "gemini",
	ends:     byHookOrScreen,
	timeout:  300 * time.Second,
	settings: ".gemini/settings.json",
}

// A person can also configure Gemini CLI's hooks once, by hand: `ralph-watch hook NAME` with no --state
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
	if res.Code != contract.ExitLimit || res.Reason != "max_iterations" {
		t.Errorf("result %+v, want exit 3 max_iterations", res)
	}
	r.wantVia(2, turnEnd{via: contract.ViaHook})
	r.wantPrompts(2, strings.TrimRight(loopPrompt, "\n"))
}

// Each loop gives Gemini CLI its hooks by an overlay of its home: its turns
// end by AfterAgent, the person's settings.json is not written, and its
// loops of two iterations take at most 1.5 times as long as Claude Code's on
// the same machine in the same run (one after the other, twice each in
// turn, so that a busy moment of the machine weighs on both).
//
// A measurement, run by make bench (RALPH_TIMING=1): make test skips it,
// as its eight agent starts would only repeat what the table test checks of
// each loop (TestRealAgentsEndEachTurnAndStopOnlyOnTheRepliedToken, "turn
// hook true": ended by the hook, the hook's report, the person's settings).
func TestGeminiLoopByItsHooksTakesAboutAsLongAsClaudeCodes(t *testing.T) {
	if os.Getenv("RALPH_TIMING") == "" {
		t.Skip("a timing for make bench (RALPH_TIMING=1); each loop's checks run in TestRealAgentsEndEachTurnAndStopOnlyOnTheRepliedToken")
	}
	gemini := geminiCLI.find(t)
	claude := claudeCode.find(t)
	tmuxtest.Require(t)
	tmuxtest.Build(t, "cmd/ralph-watch")
	wake := turnHookWake(t)
	took := map[string]time.Duration{}
	for range 2 {
		for _, run := range []struct {
			fx  agentFixture
			exe string
		}{{claudeCode, claude}, {geminiCLI, gemini}} {
			r := newAgentRun(t, run.fx, run.exe, loopPrompt, "Still working on it.")
			settings := filepath.Join(r.srv.Dir, "home", "."+run.fx.name, "settings.json")
			before, _ := os.ReadFile(settings)
			r.useTurnHook(wake)
			started := time.Now()
			res := r.run(run.fx.timeout)
			took[run.fx.name] += time.Since(started)
			r.explain()
			if res.Code != contract.ExitLimit || res.Reason != "max_iterations" {
				t.Errorf("%s: result %+v, want exit 3 max_iterations", run.fx.name, res)
			}
			r.wantVia(2, turnEnd{via: contract.ViaHook})
			r.wantHookEnded(2)
			if after, _ := os.ReadFile(settings); string(after) != string(before) {
				t.Errorf("%s: the person's %s changed:\n%s\nto\n%s", run.fx.name, settings, before, after)
			}
		}
	}
	t.Logf("two loops of two iterations: Claude Code %s, Gemini CLI %s (%.2f×)", took["claude"].Round(100*time.Millisecond),
		took["gemini"].Round(100*time.Millisecond), float64(took["gemini"])/float64(took["claude"]))
	// A ratio of wall-clock times: asserted on a machine not busy with the whole suite.
	if took["gemini"] > took["claude"]*3/2 {
		t.Errorf("Gemini CLI's loops took %s, over 1.5 × Claude Code's %s", took["gemini"], took["claude"])
	}
}

// Gemini CLI started with its own HOME (env HOME=/x gemini, as a wrapper
// does): the loop's overlay is made from /x/.gemini, where the person
// trusted the folder, not from the watcher's home, where they did not; its
// turns end by its hooks; and /x/.gemini is left byte for byte as it was.
func TestGeminiWithItsOwnHomeGetsItsOverlayFromThatHomeAndNeverWritesIt(t *testing.T) {
	t.Parallel()
	gemini := geminiCLI.find(t)
	tmuxtest.Require(t)
	r := newAgentRun(t, geminiCLI, gemini, loopPrompt, "Still working on it.")
	defer r.explain()
	person := filepath.Join(r.srv.Dir, "person")
	if _, err := doctor.Prepare("gemini", person, r.proj, r.api.URL); err != nil {
		t.Fatal(err)
	}
	// The watcher's (and the server's) home has never trusted the folder.
	if err := os.Remove(filepath.Join(r.srv.Dir, "home", ".gemini", "trustedFolders.json")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, filepath.Join(person, ".gemini"))
	r.useTurnHook(turnHookWake(t))
	r.cfg.Command = append([]string{"env", "HOME=" + person, gemini}, r.setup.Last...)
	r.cfg.AgentHome, r.cfg.MaxIterations = "", 1
	res := r.run(geminiCLI.timeout)
	if res.Code != contract.ExitLimit || res.Reason != "max_iterations" {
		t.Errorf("result %+v, want exit 3 max_iterations", res)
	}
	r.wantVia(1, turnEnd{via: contract.ViaHook})
	if after := tree(t, filepath.Join(person, ".gemini")); !maps.Equal(after, before) {
		t.Errorf("the person's Gemini home changed:\nbefore %q\nafter  %q", before, after)
	}
}
