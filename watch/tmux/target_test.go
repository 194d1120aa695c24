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

// A pane id or an exact window that is not there is told without a failed
// tmux command: tmux keeps each one's error in show-messages, where restore
// and list asked of panes gone with the last server left a line each.
func TestLookingForAPaneThatIsGoneLeavesNoErrorInTheServersMessages(t *testing.T) {
	srv := tmuxtest.Start(t)
	srv.Must("new-window", "-d", "-t", "main:", "-n", "work")
	active := strings.TrimSpace(srv.Must("display", "-p", "-t", "=main:=work", "#{pane_id}"))
	srv.Must("split-window", "-d", "-t", active)
	if p, err := srv.Client.Pane("=main:=work"); err != nil || p.ID != active {
		t.Errorf("Pane(=main:=work) = %+v, %v; want its active pane %s", p, err, active)
	}
	for _, target := range []string{"%999", "=main:=nosuch", "=ralph:=work"} {
		if p, err := srv.Client.Pane(target); !errors.Is(err, tmux.ErrNoPane) {
			t.Errorf("Pane(%q) = %+v, %v; want ErrNoPane", target, p, err)
		}
	}
	if _, err := srv.Client.NewWindow(tmux.NewWindowRequest{Session: "ralph", Name: "loop"}); err != nil {
		t.Fatal(err)
	}
	// show-messages needs a client: a control client, which leaves at once.
	if messages := srv.Must("-C", "attach", "-t", "main", ";", "show-messages"); strings.Contains(messages, "can't find") {
		t.Errorf("the server's messages hold errors:\n%s", messages)
	}
}
