package tmux_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

func TestSnapshotReadsAPaneAndItsScreenInOneCall(t *testing.T) {
	srv := tmuxtest.Start(t)
	pane := srv.NewPane()
	srv.Must("set-option", "-p", "-t", pane, "remain-on-exit", "on")
	srv.Must("respawn-pane", "-k", "-t", pane, "sleep 0.3; printf 'first\\nlast line\\n'; exit 7")
	tmuxtest.Eventually(t, 10*time.Second, "the pane to die", func() bool {
		p, _ := srv.Client.Pane(pane)
		return p.Dead
	})
	p, screen, err := srv.Client.Snapshot(tmux.CaptureRequest{Pane: pane, Start: -20, Join: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != pane || !p.Dead || p.PID == 0 {
		t.Errorf("pane = %+v", p)
	}
	if !strings.Contains(screen, "first\nlast line\n") {
		t.Errorf("screen = %q", screen)
	}
}

func TestAPaneThatDoesNotExistIsErrNoPane(t *testing.T) {
	srv := tmuxtest.Start(t)
	for _, target := range []string{"%999", "nosuch:1.2"} {
		if _, err := srv.Client.Pane(target); !errors.Is(err, tmux.ErrNoPane) {
			t.Errorf("Pane(%s) = %v, want ErrNoPane", target, err)
		}
		if _, _, err := srv.Client.Snapshot(tmux.CaptureRequest{Pane: target}); !errors.Is(err, tmux.ErrNoPane) {
			t.Errorf("Snapshot(%s) = %v, want ErrNoPane", target, err)
		}
	}
}

func TestEscapedArgumentsKeepATrailingSemicolon(t *testing.T) {
	srv := tmuxtest.Start(t)
	pane := srv.NewPane()
	for _, v := range []string{"a;", ";", `a\;`, "#{pane_id};", "x"} {
		if err := srv.Client.SetPaneOptions(pane, []tmux.Option{{Name: "@v", Value: v}}); err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if got, _, _ := srv.Client.PaneOption(pane, "@v"); got != v {
			t.Errorf("set %q, read back %q", v, got)
		}
	}
}
