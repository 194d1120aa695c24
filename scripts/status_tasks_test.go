package scripts_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// A loop with a plan shows its tasks beside its iterations, live or with
// its watcher gone.
func TestTheStatusLineShowsALoopsTasks(t *testing.T) {
	srv := tmuxtest.Start(t)
	p := install(t, srv, filepath.Join(srv.Dir, "plugin"), false)
	p.configure(map[string]string{"status-right": "#{ralph_status}| %H:%M", "@ralph-beat-timeout": "4"})
	pane := strings.TrimSpace(srv.Must("display-message", "-p", "-t", "main:0", "#{pane_id}"))
	loopOptions(srv, pane, map[string]string{"@ralph-name": "plan", "@ralph-state": "running", "@ralph-live": "1",
		"@ralph-iteration": "7", "@ralph-max": "50", "@ralph-tasks": "4/12", "@ralph-status": "⟳ 7/50 · 4/12"})
	p.source()
	if loops, _ := loopsShown(p.statusRight()); loops != "0:⟳ 7/50 · 4/12 " {
		t.Errorf("the loop shows as %q, want its tasks beside its iterations", loops)
	}
	loopOptions(srv, pane, map[string]string{"@ralph-beat": "1"}) // a beat of 1970: the watcher is gone
	if loops, _ := loopsShown(p.statusRight()); loops != "0:⚠ 7/50 · 4/12 no watcher " {
		t.Errorf("the lost loop shows as %q, want its tasks too", loops)
	}
}
