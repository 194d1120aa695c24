package pane

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// What the server runs when a watcher's lifeline ends marks the pane's
// loop only while the pane still shows it as its watcher ran it: live, not
// paused (a paused loop has no watcher), and of the watcher's name (another
// loop may have the pane now).
func TestALifelinesEndMarksOnlyTheLoopItsWatcherRan(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	pane := srv.NewPane()
	command := filepath.Join(srv.Dir, "gone.tmux")
	if err := os.WriteFile(command, []byte(gone(pane, "mine")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, live, state string
		marked            bool
	}{
		{"mine", "1", "running", true},
		{"mine", "1", "needs-input", true},
		{"mine", "1", "paused", false},
		{"mine", "", "stopped", false},
		{"other", "1", "running", false},
	} {
		for option, value := range map[string]string{contract.OptionName: tc.name, contract.OptionLive: tc.live, contract.OptionState: tc.state} {
			if value == "" {
				srv.Must("set-option", "-p", "-u", "-t", pane, option)
			} else {
				srv.Must("set-option", "-p", "-t", pane, option, value)
			}
		}
		srv.Must("set-option", "-p", "-u", "-t", pane, contract.OptionBeat)
		srv.Must("source-file", command)
		if beat := srv.Option(pane, contract.OptionBeat); (beat != "") != tc.marked {
			t.Errorf("loop %s (live %q, %s): %s = %q, want marked %v", tc.name, tc.live, tc.state, contract.OptionBeat, beat, tc.marked)
		}
	}
}
