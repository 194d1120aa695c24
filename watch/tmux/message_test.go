package tmux_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// tmux expands formats in -c and takes a trailing ; as a command separator:
// a folder named like either still is the folder the agent starts in.
func TestRespawnAndNewWindowStartInAFolderNamedLikeTmuxSyntax(t *testing.T) {
	srv := tmuxtest.Start(t)
	dir := filepath.Join(srv.Dir, `a #{pane_id} #S "dir" ;`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pane := srv.NewPane()
	if _, err := srv.Client.Respawn(tmux.RespawnRequest{Pane: pane, Dir: dir, Env: []string{"X=1"}, Command: []string{"sleep", "30"}}); err != nil {
		t.Fatal(err)
	}
	window, err := srv.Client.NewWindow(tmux.NewWindowRequest{Session: "main", Name: "w", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{pane, window} {
		tmuxtest.Eventually(t, 5*time.Second, p+" in the folder", func() bool {
			got, _ := srv.Client.Pane(p)
			return got.Path == dir
		})
	}
}

func TestGlobalOptionAndMessageReachTheServer(t *testing.T) {
	srv := tmuxtest.Start(t)
	srv.Must("set-option", "-g", "@ralph-x", tmux.Escape("value ;"))
	if v, err := srv.Client.GlobalOption("@ralph-x"); err != nil || v != "value ;" {
		t.Errorf("GlobalOption = %q, %v", v, err)
	}
	if v, err := srv.Client.GlobalOption("@ralph-unset"); err != nil || v != "" {
		t.Errorf("GlobalOption of an unset option = %q, %v", v, err)
	}
	// No client is attached: nobody to tell, and no error.
	if err := srv.Client.Message(strings.TrimSpace(srv.Must("display-message", "-p", "#{pane_id}")), "[ralph] x: done #{pane_id};"); err != nil {
		t.Errorf("Message without clients: %v", err)
	}
}
