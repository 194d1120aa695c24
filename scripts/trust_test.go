package scripts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// A person presses the loop key in a cloned project whose .ralph/config names
// a check: the menu shows the command and offers "Trust and start", never
// plain start; the check has not run. Chosen, the file is trusted and the
// loop starts; the check runs after its iteration.
func TestLoopKeyShowsUntrustedCommandsAndTrustsThemOnRequest(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	dir := filepath.Join(srv.Dir, "cloned")
	if err := os.MkdirAll(filepath.Join(dir, ".ralph"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "PROMPT.md"), []byte("do the next task\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ralph", "config"), []byte("check touch checked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := srv.FakeAgent("agent", "ready\nread\nprint working\nexit 0\n")
	p.configure(map[string]string{
		"@ralph-command":        command(agent),
		"@ralph-max-iterations": "1",
	})
	pane := strings.TrimSpace(srv.Must("new-window", "-P", "-F", "#{pane_id}", "-t", "main:", "-c", dir))
	p.source()
	p.attach()

	p.press("A")
	p.choose("Trust and start", "")
	// The menu shortens a long path in its middle (a long TMPDIR makes one).
	for _, want := range []string{"/cloned/.ralph/config would run:", "check 'touch checked'"} {
		// The client may still be drawing the menu's other lines.
		tmuxtest.Eventually(t, 30*time.Second, "the menu line "+want, func() bool { return strings.Contains(p.screen.String(), want) })
	}
	if strings.Contains(p.screen.String(), "Start the loop") {
		t.Errorf("the menu offers to start without trust")
	}
	if _, err := os.Stat(filepath.Join(dir, "checked")); err == nil {
		t.Fatal("the check ran before it was trusted")
	}
	if _, err := os.Stat(filepath.Join(srv.Dir, "state", "trust.json")); err == nil {
		t.Fatal("trusted before the person chose to")
	}
	if _, err := p.tty.Write([]byte("t")); err != nil {
		t.Fatal(err)
	}
	tmuxtest.Eventually(t, 60*time.Second, "the trusted check to run", func() bool {
		_, err := os.Stat(filepath.Join(dir, "checked"))
		return err == nil
	})
	p.waitOption(pane, "@ralph-state", "limit") // the plugin sets a done pattern the fake never prints

	// Trusted as it is, the file gets a plain start in another pane.
	srv.Must("new-window", "-t", "main:", "-c", dir)
	p.press("A")
	p.choose("Start the loop", "q")
}
