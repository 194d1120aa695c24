package watch_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// Gemini CLI, OpenCode and Copilot CLI get their hooks for the loop alone:
// Gemini CLI a home of its own by GEMINI_CLI_HOME (the person's settings
// and files kept, their settings.json not written), OpenCode a plugin by
// OPENCODE_CONFIG_CONTENT, Copilot CLI a plugin folder by --plugin-dir. A
// command that sets the variable itself keeps its own.
func TestUnitEachAgentGetsItsHooksForTheLoopAlone(t *testing.T) {
	for _, c := range []struct {
		name, hook string
		command    []string
		want       string // in the agent's environment or its command line; "": none of ours
	}{
		{"gemini", agent.HookGeminiHome, []string{"gemini"}, "GEMINI_CLI_HOME="},
		{"gemini, its own home", agent.HookGeminiHome, []string{"env", "GEMINI_CLI_HOME=/theirs", "gemini"}, ""},
		{"opencode", agent.HookOpenCode, []string{"opencode"}, "OPENCODE_CONFIG_CONTENT={\"plugin\":[\"file://"},
		{"opencode, its own config", agent.HookOpenCode, []string{"env", "OPENCODE_CONFIG_CONTENT={}", "opencode"}, ""},
		{"copilot", agent.HookCopilot, []string{"copilot"}, "--plugin-dir"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			settings := filepath.Join(home, ".gemini", "settings.json")
			_ = os.MkdirAll(filepath.Dir(settings), 0o700)
			const theirs = `{"ui": {"theme": "dark"}}`
			_ = os.WriteFile(settings, []byte(theirs), 0o600)
			var mu sync.Mutex
			var env []string
			u := newUnit(t, "work", nil)
			u.simulate()
			u.launch(func(n int) *tmuxfake.Program {
				p := working(func(*tmuxfake.Term) {
					u.plan(time.Second, func(t *tmuxfake.Term) { t.Write("all done\n>") })
				})(n)
				start := p.Start
				p.Start = func(t *tmuxfake.Term) {
					mu.Lock()
					env = t.Env
					mu.Unlock()
					if start != nil {
						start(t)
					}
				}
				return p
			})
			u.cfg.Agent = knownAgent()
			u.cfg.Agent.Name, u.cfg.Agent.Commands = strings.Fields(c.name)[0], []string{strings.Fields(c.name)[0]}
			u.cfg.Agent.TurnHook = c.hook
			u.cfg.Command = c.command
			u.cfg.TurnHook, u.cfg.Executable, u.cfg.AgentHome = true, "/usr/bin/ralph-watch", home
			u.cfg.InactivityTimeout = 10 * time.Minute
			u.wantResult(u.run(), words.ExitDone, "max_iterations")
			mu.Lock()
			seen := strings.Join(append(env, u.tmux.Calls("respawn")[0].Args...), "\n")
			mu.Unlock()
			ours := []string{"GEMINI_CLI_HOME=" + u.store.Dir, `OPENCODE_CONFIG_CONTENT={"plugin"`, "--plugin-dir"}
			if c.want == "" {
				for _, o := range ours {
					if strings.Contains(seen, o) {
						t.Errorf("the agent got %s though its command sets its own:\n%s", o, seen)
					}
				}
			} else if !strings.Contains(seen, c.want) {
				t.Errorf("the agent's environment and command lack %s:\n%s", c.want, seen)
			}
			if b, _ := os.ReadFile(settings); string(b) != theirs {
				t.Errorf("the person's settings.json became %s", b)
			}
			if c.name == "gemini" {
				b, err := os.ReadFile(filepath.Join(u.store.Dir, "gemini-home", ".gemini", "settings.json"))
				if err != nil || !strings.Contains(string(b), `"theme": "dark"`) || !strings.Contains(string(b), "AfterAgent") {
					t.Errorf("the loop's Gemini settings: %s (%v)", b, err)
				}
			}
		})
	}
}
