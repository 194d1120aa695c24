package tmux_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

func TestPaneResolvesOnlyATargetThatExists(t *testing.T) {
	srv := tmuxtest.Start(t)
	first := strings.TrimSpace(srv.Must("display", "-p", "-t", "main", "#{pane_id}"))
	for _, target := range []string{"main:99", "main:99.5", "main:0.7", "nosuch", "%999", "$(touch x)", "#{pane_id}"} {
		// display-message alone answers with the current pane for these.
		if p, err := srv.Client.Pane(target); !errors.Is(err, tmux.ErrNoPane) {
			t.Errorf("Pane(%q) = %+v, %v; want ErrNoPane", target, p, err)
		}
	}
	for _, target := range []string{first, "main", "main:0", "main:0.0"} {
		if p, err := srv.Client.Pane(target); err != nil || p.ID != first {
			t.Errorf("Pane(%q) = %+v, %v; want %s", target, p, err, first)
		}
	}
}
