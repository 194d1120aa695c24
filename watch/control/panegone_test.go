package control

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// A loop's pane that names no loop yet, on the loop's own server, is still
// the loop's: a watcher killed before it named its pane leaves its loop
// there, for resume to take up in place. A pane another loop named is not.
func TestAPaneItsWatcherDiedBeforeNamingIsStillTheLoops(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	pane := srv.NewPane()
	pid, err := strconv.Atoi(strings.TrimSpace(srv.Must("display-message", "-p", "#{pid}")))
	if err != nil {
		t.Fatal(err)
	}
	l := &Loop{Name: "fan-x-1", Pane: PaneRunning, Tmux: &tmux.Exec{Server: []string{"-S", srv.Socket}},
		State: &state.State{PaneID: pane, TmuxSocket: srv.Socket, ServerPID: pid}}
	if PaneGone(l) {
		t.Errorf("a pane of the loop's server that names no loop is gone")
	}
	srv.Must("set-option", "-p", "-t", pane, contract.OptionName, "fan-x-1")
	if PaneGone(l) {
		t.Errorf("the pane that names the loop is gone")
	}
	srv.Must("set-option", "-p", "-t", pane, contract.OptionName, "other")
	if !PaneGone(l) {
		t.Errorf("a pane another loop named is the loop's")
	}
	l.State.ServerPID = 0
	srv.Must("set-option", "-p", "-u", "-t", pane, contract.OptionName)
	if !PaneGone(l) {
		t.Errorf("a pane of a server the loop did not record, naming no loop, is the loop's")
	}
}
