package scripts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The loop key's menu shows what the loop will really do: the plan, the
// worktree and the checks the folder's .ralph/config gives; and a plan
// that ralph-watch init --tasks wrote, with none configured, is offered
// (p), and looped on when chosen, never passed over.
func TestLoopKeyShowsAndOffersThePlan(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (*tmuxtest.Server, *plugin) {
		t.Parallel()
		srv, p := installTPM(t)
		agent := srv.FakeAgent("agent", "ready\nread\nprint working on it\nsleep 120s\nexit 0\n")
		p.load(map[string]string{"@ralph-command": command(agent)})
		return srv, p
	}
	write := func(t *testing.T, path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("the plan init --tasks writes is offered and looped on", func(t *testing.T) {
		srv, p := setup(t)
		dir, pane := p.project("offered", "do the next task\n")
		write(t, filepath.Join(dir, "IMPLEMENTATION_PLAN.md"), "- [ ] Make file-a\n- [ ] Make file-b\n")
		p.atPrompt(pane)
		p.press("A")
		p.choose("Loop on the plan IMPLEMENTATION_PLAN.md", "p")
		if !strings.Contains(p.shown(), "Start the loop") {
			t.Errorf("the menu lacks the plain start beside the plan:\n%s", p.shown())
		}
		p.waitOption(pane, "@ralph-state", "running")
		b, err := os.ReadFile(filepath.Join(srv.Dir, "state", srv.Option(pane, "@ralph-name"), "state.json"))
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Tasks *struct {
				File string `json:"file"`
			} `json:"tasks"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, "IMPLEMENTATION_PLAN.md"); st.Tasks == nil || st.Tasks.File != want {
			t.Errorf("the loop works plan %+v, want %s", st.Tasks, want)
		}
	})

	t.Run("the plan, worktree and checks of .ralph/config are shown", func(t *testing.T) {
		srv, p := setup(t)
		dir, pane := p.project("configured", "do the next task\n")
		write(t, filepath.Join(dir, "PLAN.md"), "- [ ] Make file-a\n")
		write(t, filepath.Join(dir, "IMPLEMENTATION_PLAN.md"), "- [ ] Not this one\n")
		write(t, filepath.Join(dir, ".ralph", "config"), "# the project's loop\ntasks PLAN.md\nworktree\ncheck test -f file-a\n")
		trust := p.ralphWatch("trust", dir)
		trust.Dir = dir
		if out, err := trust.CombinedOutput(); err != nil { // trusted: its checks are shown as settings, not as what it would run
			t.Fatalf("trust: %v\n%s", err, out)
		}
		p.atPrompt(pane)
		p.press("A")
		p.choose("Cancel", "q")
		shown := p.shown()
		for _, line := range []string{"PLAN.md (one task an iteration)", "its own git worktree", "check                 test -f file-a"} {
			if !strings.Contains(shown, line) {
				t.Errorf("the menu lacks %q:\n%s", line, shown)
			}
		}
		if strings.Contains(shown, "Loop on the plan") || strings.Contains(shown, "would run") {
			t.Errorf("the menu offers another plan than the configured one, or asks trust again:\n%s", shown)
		}
		time.Sleep(time.Second)
		if name := srv.Option(pane, "@ralph-name"); name != "" {
			t.Errorf("Cancel started loop %s", name)
		}
	})
}
