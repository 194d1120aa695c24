package watch_test

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
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
			u.cfg.InactivityTimeout = 30 * time.Second // the turn ends by inactivity: what counts is how the agent started
			u.wantResult(u.run(), contract.ExitDone, "max_iterations")
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

// Gemini CLI started with its own HOME (env HOME=/x gemini) gets an overlay
// of that home's .gemini, not the watcher's: the folders the person trusted
// there stay trusted. What the agent writes in its home (chats, logs, the
// projects it saw) stays in the overlay: the person's folder is left byte
// for byte as it was, but for their login, which the overlay links rather
// than copies (the loop writes no key to disk), so a refreshed login is
// theirs.
func TestUnitGeminisOverlayIsMadeFromTheHomeItRunsWithAndNeverWritesIt(t *testing.T) {
	person, watcher := t.TempDir(), t.TempDir()
	files := map[string]string{".gemini/trustedFolders.json": `{"/work/proj": "TRUST_FOLDER"}`, ".gemini/settings.json": `{"ui": {"theme": "dark"}}`,
		".gemini/oauth_creds.json": `{"refresh_token": "theirs"}`, ".gemini/tmp/proj/chats/old.json": `[]`, ".gemini/projects.json": `{}`}
	for name, body := range files {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(person, name)), 0o700)
		if err := os.WriteFile(filepath.Join(person, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.MkdirAll(filepath.Join(watcher, ".gemini"), 0o700)
	_ = os.WriteFile(filepath.Join(watcher, ".gemini", "trustedFolders.json"), []byte(`{}`), 0o600)
	before := tree(t, person)
	var trusted string
	u := newUnit(t, "work", nil)
	u.simulate()
	u.launch(func(n int) *tmuxfake.Program {
		p := working(func(*tmuxfake.Term) {
			u.plan(time.Second, func(t *tmuxfake.Term) { t.Write("all done\n>") })
		})(n)
		start := p.Start
		p.Start = func(term *tmuxfake.Term) { // as Gemini CLI: reads its home, writes its chats, refreshes its login
			home := filepath.Join(agent.Getenv(term.Env, nil)(agent.GeminiHomeVar), ".gemini")
			b, _ := os.ReadFile(filepath.Join(home, "trustedFolders.json"))
			trusted = string(b)
			for _, name := range []string{"tmp/proj/chats/new.json", "projects.json", "oauth_creds.json", "history/proj/.project_root"} {
				_ = os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o700)
				_ = os.WriteFile(filepath.Join(home, name), []byte("written by the agent"), 0o600)
			}
			if start != nil {
				start(term)
			}
		}
		return p
	})
	u.cfg.Agent = knownAgent()
	u.cfg.Agent.Name, u.cfg.Agent.Commands, u.cfg.Agent.TurnHook = "gemini", []string{"gemini"}, agent.HookGeminiHome
	u.cfg.Command = []string{"env", "HOME=" + person, "gemini"}
	u.cfg.TurnHook, u.cfg.Executable, u.cfg.AgentHome = true, "/usr/bin/ralph-watch", watcher
	u.cfg.InactivityTimeout = 30 * time.Second // the turn ends by inactivity: what counts is the agent's home
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if trusted != files[".gemini/trustedFolders.json"] {
		t.Errorf("the agent's trusted folders %q, want those of the HOME it runs with", trusted)
	}
	before[".gemini/oauth_creds.json"] = "written by the agent"
	if after := tree(t, person); !maps.Equal(after, before) {
		t.Errorf("the person's Gemini home changed:\nbefore %q\nafter  %q", before, after)
	}
}

// tree is every entry under dir: a file's content, a link's target, "dir".
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	_ = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			got[rel], _ = os.Readlink(path)
		case info.IsDir():
			got[rel] = "dir"
		default:
			b, _ := os.ReadFile(path)
			got[rel] = string(b)
		}
		return nil
	})
	return got
}
