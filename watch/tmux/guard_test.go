package tmux_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// deadPane starts a pane whose program has exited, remain-on-exit on: the
// state in which tmux 3.3a crashes on a paste or send-keys.
func deadPane(t *testing.T, srv *tmuxtest.Server) string {
	t.Helper()
	pane := srv.NewPane()
	srv.Must("set-option", "-p", "-t", pane, "remain-on-exit", "on")
	srv.Must("respawn-pane", "-k", "-t", pane, "echo hi")
	tmuxtest.Eventually(t, 10*time.Second, "the pane to die", func() bool {
		p, _ := srv.Client.Pane(pane)
		return p.Dead
	})
	return pane
}

func alive(t *testing.T, srv *tmuxtest.Server) {
	t.Helper()
	if _, err := srv.Client.Version(); err != nil {
		t.Fatal(err)
	}
	if out, err := srv.Tmux("list-sessions"); err != nil {
		t.Fatalf("the server is gone: %v %s", err, out)
	}
}

func TestAWriteIntoADeadPaneIsRefusedAndTheServerLives(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	pane := deadPane(t, srv)
	if err := srv.Client.Paste(pane, "ralph-test-buf", []byte("hello\n")); !errors.Is(err, tmux.ErrPaneDead) {
		t.Errorf("Paste into a dead pane = %v, want ErrPaneDead", err)
	}
	alive(t, srv)
	if out, _ := srv.Tmux("list-buffers", "-F", "#{buffer_name}"); strings.Contains(out, "ralph-test-buf") {
		t.Errorf("the refused paste left its buffer: %q", out)
	}
	for _, keys := range [][]string{{"Enter"}, {"C-u"}, {"x", "Enter"}} {
		if err := srv.Client.SendKeys(pane, keys...); !errors.Is(err, tmux.ErrPaneDead) {
			t.Errorf("SendKeys(%q) into a dead pane = %v, want ErrPaneDead", keys, err)
		}
		alive(t, srv)
	}
	if err := srv.Client.Paste("%999", "b", []byte("x")); !errors.Is(err, tmux.ErrNoPane) {
		t.Errorf("Paste into no pane = %v, want ErrNoPane", err)
	}
	if err := srv.Client.SendKeys("%999", "Enter"); !errors.Is(err, tmux.ErrNoPane) {
		t.Errorf("SendKeys into no pane = %v, want ErrNoPane", err)
	}
}

func TestAGuardedWriteIntoALivePaneArrivesAsWritten(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	pane := srv.NewPane()
	out := srv.Dir + "/typed"
	srv.Must("respawn-pane", "-k", "-t", pane, "stty raw -echo; exec cat > "+out)
	time.Sleep(300 * time.Millisecond)
	// Words tmux's own parser would take apart unquoted.
	text := "it's ; $HOME ~ #{pane_id} \"q\" \\n;"
	if err := srv.Client.Paste(pane, "ralph-b", []byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client.SendKeys(pane, "-l", text); err != nil {
		t.Fatal(err)
	}
	want := text + text // cat asks for no bracketed paste: no markers
	tmuxtest.Eventually(t, 10*time.Second, "the text to arrive", func() bool {
		got, _ := readFile(out)
		return got == want
	})
}

// The moments between steps: an agent that dies while the writes come.
// Each write is refused or goes; the server never dies.
func TestWritesRacingAnExitingAgentNeverCrashTheServer(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	pane := srv.NewPane()
	srv.Must("set-option", "-p", "-t", pane, "remain-on-exit", "on")
	refused := 0
	for i := 0; i < 40; i++ {
		srv.Must("respawn-pane", "-k", "-t", pane, fmt.Sprintf("sleep 0.0%d", i%10))
		for j := 0; j < 6; j++ {
			var err error
			if j%2 == 0 {
				err = srv.Client.Paste(pane, fmt.Sprintf("ralph-r%d", i), []byte("x\n"))
			} else {
				err = srv.Client.SendKeys(pane, "Enter")
			}
			switch {
			case errors.Is(err, tmux.ErrPaneDead):
				refused++
			case err != nil:
				t.Fatalf("trial %d write %d: %v", i, j, err)
			}
			time.Sleep(time.Duration(j) * 3 * time.Millisecond)
		}
		alive(t, srv)
	}
	if refused == 0 {
		t.Errorf("no write met a dead pane in 40 trials: the test did not test the race")
	}
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}
