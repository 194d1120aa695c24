package scripts_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The loop key on a pane that loops opens a menu of its loop: what it is
// doing, pause or resume, stop, a note, the popup. It stays until closed,
// and the q that closes it never reaches the agent.
func TestLoopKeyOnALoopingPaneOpensItsActionsAndNoKeyReachesTheAgent(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	// An agent that says so when a key reaches it.
	agent := srv.FakeAgent("agent", "ready\nread\nprint working on it\ndrop-input 2s\nprint listening\nkey\nprint a key reached the agent\nsleep 120s\nexit 0\n")
	p.load(map[string]string{"@ralph-command": command(agent)})
	_, pane := p.project("looping", "do the next task\n")
	p.startWithLoopKey(pane)
	name := srv.Option(pane, "@ralph-name")
	tmuxtest.Eventually(t, 30*time.Second, "the agent at work", func() bool { return strings.Contains(srv.Capture(pane), "listening") })
	reached := func() bool { return strings.Contains(srv.Capture(pane), "a key reached the agent") }

	p.press("A")
	p.choose("is looping this pane (running)", "")
	for _, line := range []string{"ralph: " + name, "⟳ 1/20", "Pause the loop", "Stop it", "A note for its next iteration", "Every loop", "Cancel"} {
		if !strings.Contains(p.shown(), line) {
			t.Errorf("the menu lacks %q", line)
		}
	}
	p.typeKeys("q")
	time.Sleep(time.Second)
	if reached() {
		t.Errorf("the q that closed the menu reached the agent:\n%s", srv.Capture(pane))
	}

	p.press("A")
	p.choose("Pause the loop", "p")
	p.waitOption(pane, "@ralph-state", "paused")
	p.press("A")
	p.choose("Resume the loop", "p")
	p.waitOption(pane, "@ralph-state", "running")

	note := `mind 100% of #{pane_id} and $(this)`
	p.press("A")
	p.choose("A note for its next iteration", "n")
	tmuxtest.Eventually(t, 10*time.Second, "the note prompt", func() bool { return strings.Contains(p.shown(), "note for "+name+": ") })
	if _, err := p.tty.Write([]byte(note + "\r")); err != nil {
		t.Fatal(err)
	}
	p.waitMessage("note for the next iteration of " + name)
	store, err := state.Open(filepath.Join(srv.Dir, "state"), name)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range store.Steers() {
		texts = append(texts, s.Text)
	}
	if fmt.Sprint(texts) != fmt.Sprint([]string{note}) {
		t.Errorf("the loop got the notes %q, want %q", texts, note)
	}
	if reached() {
		t.Errorf("keys meant for ralph reached the agent:\n%s", srv.Capture(pane))
	}
}
