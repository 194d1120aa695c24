package tmux_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The server runs a lifeline's command once its holder lets go, and not
// before; the FIFO leaves no file behind.
func TestTheServerRunsALifelinesCommandWhenItsHolderLetsGo(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	path := filepath.Join(srv.Dir, "lifeline.fifo")
	line, err := srv.Client.Lifeline(path, "set-option -g @gone yes")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the lifeline's FIFO is left at %s (%v)", path, err)
	}
	time.Sleep(300 * time.Millisecond) // time enough for a command run too soon to show
	if got := strings.TrimSpace(srv.Must("show-options", "-gqv", "@gone")); got != "" {
		t.Fatalf("@gone = %q while the line is held", got)
	}
	line.Close()
	tmuxtest.Eventually(t, 10*time.Second, "the command to run", func() bool {
		return strings.TrimSpace(srv.Must("show-options", "-gqv", "@gone")) == "yes"
	})
}
