package tmux_test

import (
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The cursor is where the program left it, shown or hidden by it.
func TestCursorTellsWhereTheProgramLeftIt(t *testing.T) {
	srv := tmuxtest.Start(t)
	pane := srv.NewPane()
	// Row 3, column 5 (1-based), then hide it; sleep keeps the screen.
	if _, err := srv.Client.Respawn(tmux.RespawnRequest{Pane: pane, Command: []string{"/bin/sh", "-c",
		`printf '\033[2J\033[3;5H'; sleep 1; printf '\033[?25l'; sleep 30`}}); err != nil {
		t.Fatal(err)
	}
	tmuxtest.Eventually(t, 5*time.Second, "the cursor at 4,2 shown", func() bool {
		p, err := srv.Client.Pane(pane)
		return err == nil && p.Cursor == tmux.Cursor{X: 4, Y: 2, Visible: true}
	})
	tmuxtest.Eventually(t, 5*time.Second, "the cursor hidden", func() bool {
		p, err := srv.Client.Pane(pane)
		return err == nil && p.Cursor == tmux.Cursor{X: 4, Y: 2, Visible: false}
	})
	if p, _, err := srv.Client.Snapshot(tmux.CaptureRequest{Pane: pane}); err != nil || p.Cursor != (tmux.Cursor{X: 4, Y: 2, Visible: false}) {
		t.Errorf("a snapshot's cursor: %+v, %v", p.Cursor, err)
	}
}
