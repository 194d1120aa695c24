package scripts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// Every key of the plugin on a dead pane (remain-on-exit on), with a client
// attached: tmux 3.3a crashes on some writes into a dead pane, and a key
// must never take the person's server down.
func TestThePluginsKeysOnADeadPaneLeaveTheServerRunning(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	p.source()
	p.attach()
	_, pane := p.project("dead", "go\n")
	srv.Must("set-option", "-p", "-t", pane, "remain-on-exit", "on")
	srv.Must("respawn-pane", "-k", "-t", pane, "exit 3")
	tmuxtest.Eventually(t, 10*time.Second, "the pane to die", func() bool {
		_, _ = srv.Tmux("run-shell", "true") // tmux may see the exit only when another child exits
		out, _ := srv.Tmux("display-message", "-p", "-t", pane, "#{pane_dead}")
		return strings.TrimSpace(out) == "1"
	})
	alive := func(after string) {
		t.Helper()
		if out, err := srv.Tmux("list-sessions"); err != nil {
			t.Fatalf("after %s the tmux server is gone: %v %s", after, err, out)
		}
	}
	for _, key := range []string{"Z", "Q", "W", "A"} {
		p.press(key)
		time.Sleep(700 * time.Millisecond) // the key's script runs, its menu or popup opens
		alive("prefix " + key)
		p.typeKeys("\x1bq") // close what it opened
		time.Sleep(300 * time.Millisecond)
		alive("closing what prefix " + key + " opened")
	}
	srv.Must("resize-window", "-t", pane, "-x", "70", "-y", "20") // a width change reaches the dead pane
	alive("a resize")
}

// The pane is closed while its loop menu is open: choosing to start says
// the pane was closed, never that a prompt file is missing.
func TestAPaneClosedWhileItsLoopMenuIsOpenIsSaidSo(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	p.source()
	p.attach()
	_, pane := p.project("closing", "go\n")
	srv.Must("split-window", "-d", "-t", pane) // the window stays when the pane goes
	p.press("A")
	tmuxtest.Eventually(t, 10*time.Second, "the loop menu", func() bool { return strings.Contains(p.shown(), "Start the loop") })
	srv.Must("kill-pane", "-t", pane)
	p.typeKeys("y")
	p.waitMessage("pane " + pane + " was closed: nothing to loop")
	p.noMessage("prompt file not found")
}
