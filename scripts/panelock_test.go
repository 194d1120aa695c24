package scripts_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The loop key's menu is open when another loop takes the pane: its start
// is then refused, naming that loop, which loops on alone.
func TestLoopKeyRefusesAPaneAnotherLoopTookMeanwhile(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	p := install(t, srv, filepath.Join(srv.Dir, "home", ".tmux", "plugins", "ralph.tmux"), true)
	agent := srv.FakeAgent("agent", "ready\nread\nprint working on it\nsleep 120s\nexit 0\n")
	p.configure(map[string]string{"@ralph-command": command(agent)})
	p.source()
	p.attach()
	dir, pane := p.project("taken", "go\n")
	tmuxtest.Eventually(t, 10*time.Second, "a shell prompt", func() bool { return strings.TrimSpace(srv.Capture(pane)) != "" })
	p.press("A")
	tmuxtest.Eventually(t, 30*time.Second, "the loop key's menu", func() bool { return strings.Contains(p.shown(), "Start the loop") })

	other := exec.Command(filepath.Join(p.dir, "bin", "ralph-watch"), append([]string{"run", "--detach", "-S", srv.Socket, "-t", pane,
		"--name", "other", "--prompt-file", filepath.Join(dir, "PROMPT.md"), "--"}, agent...)...)
	other.Dir, other.Env = dir, srv.Env
	if out, err := other.CombinedOutput(); err != nil {
		t.Fatalf("the other loop: %v\n%s", err, out)
	}
	p.waitOption(pane, "@ralph-name", "other")
	p.waitOption(pane, "@ralph-state", "running") // its agent has its prompt: the pane is in the project's folder again
	p.choose("Start the loop", "y")
	p.waitMessage(`pane ` + pane + ` is looped by "other" (ralph-watch stop other, or --replace to take it over)`)
	time.Sleep(time.Second)
	if name := srv.Option(pane, "@ralph-name"); name != "other" {
		t.Errorf("the pane is looped by %q, want other alone", name)
	}
}
