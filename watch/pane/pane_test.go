package pane

import (
	"path/filepath"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// A pane taken over runs with remain-on-exit on, and is given back the one
// it had before the loop: read from the pane, or on resume the one the
// record kept (the pane then has the last watcher's "on"); what the record
// is to keep comes back from the takeover. A paused loop keeps the pane.
func TestAPaneIsGivenBackTheRemainOnExitItHadBeforeTheLoop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		option  string // the pane's remain-on-exit at the takeover; "": unset
		resume  bool
		kept    *state.PaneOption
		want    state.PaneOption
		reason  contract.Reason
		wantNow string // the pane's remain-on-exit once given back
	}{
		{name: "its own", option: "off", want: state.PaneOption{Value: "off", Set: true}, reason: contract.ReasonMaxIterations, wantNow: "off"},
		{name: "unset", want: state.PaneOption{}, reason: contract.ReasonDonePattern, wantNow: ""},
		{name: "resumed", option: "on", resume: true, kept: &state.PaneOption{Value: "failed", Set: true}, want: state.PaneOption{Value: "failed", Set: true}, reason: contract.ReasonMaxIterations, wantNow: "failed"},
		{name: "resumed, nothing kept", option: "off", resume: true, want: state.PaneOption{Value: "off", Set: true}, reason: contract.ReasonMaxIterations, wantNow: "off"},
		{name: "a kept one without resume", option: "off", kept: &state.PaneOption{Value: "failed", Set: true}, want: state.PaneOption{Value: "off", Set: true}, reason: contract.ReasonMaxIterations, wantNow: "off"},
		{name: "paused", option: "off", want: state.PaneOption{Value: "off", Set: true}, reason: contract.ReasonPaused, wantNow: "on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client := tmuxfake.New(nil)
			id, err := client.NewWindow(tmux.NewWindowRequest{Session: "s"})
			if err != nil {
				t.Fatal(err)
			}
			if tc.option != "" {
				if err := client.SetPaneOptions(id, []tmux.Option{{Name: "remain-on-exit", Value: tc.option}}); err != nil {
					t.Fatal(err)
				}
			}
			store, err := state.Open(filepath.Join(t.TempDir(), "state"), "loop")
			if err != nil {
				t.Fatal(err)
			}
			p := New(Given{Tmux: client, Clock: clock.Real{}, Store: store, Warnf: t.Logf})
			kept, err := p.TakeOver(Settings{Pane: id, Resume: tc.resume}, Kept{Remain: tc.kept, ServerPID: 7})
			if err != nil {
				t.Fatal(err)
			}
			if kept.Remain == nil || *kept.Remain != tc.want {
				t.Errorf("kept %+v, want %+v", kept.Remain, tc.want)
			}
			info, _ := client.Pane(id)
			if kept.ServerPID != info.ServerPID {
				t.Errorf("kept server %d, want the pane's %d", kept.ServerPID, info.ServerPID)
			}
			if v, _, _ := client.PaneOption(id, "remain-on-exit"); v != "on" {
				t.Errorf("remain-on-exit %q while the loop runs, want on", v)
			}
			if p.Output() == nil {
				t.Error("a live pane's output is not read")
			}
			if shell := p.GiveBack(tc.reason); shell != 0 {
				t.Errorf("a shell %d started in a live pane", shell)
			}
			if v, _, _ := client.PaneOption(id, "remain-on-exit"); v != tc.wantNow {
				t.Errorf("remain-on-exit %q given back, want %q", v, tc.wantNow)
			}
		})
	}
}

// A pane lives in the loop's server when either server is unknown or they
// are one; the loop's is the one the takeover read, not the record's.
func TestAPaneTellsTheLoopsServerFromAnother(t *testing.T) {
	t.Parallel()
	client := tmuxfake.New(nil)
	id, err := client.NewWindow(tmux.NewWindowRequest{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	store, err := state.Open(filepath.Join(t.TempDir(), "state"), "loop")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Given{Tmux: client, Clock: clock.Real{}, Store: store, Warnf: t.Logf})
	kept, err := p.TakeOver(Settings{Pane: id}, Kept{ServerPID: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer p.GiveBack(contract.ReasonPaused)
	for _, tc := range []struct {
		server int
		same   bool
	}{{kept.ServerPID, true}, {0, true}, {kept.ServerPID + 1, false}, {7, false}} {
		if got := p.Same(tmux.Pane{ID: id, ServerPID: tc.server}); got != tc.same {
			t.Errorf("server %d (the loop's %d): same %v, want %v", tc.server, kept.ServerPID, got, tc.same)
		}
	}
}
