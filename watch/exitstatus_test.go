package watch

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// tmux 3.3a often leaves #{pane_dead_status} empty for a pane whose process
// exits fast; every one of 50 quick exits must still be read right, both
// from the pane (with the reaping nudge) and from the wrapper's marker.
func TestFiftyQuickExitsAreEachReadRight(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		stream bool
	}{{"from the pane", false}, {"with the output stream", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tmuxtest.Start(t)
			store, err := state.Open(filepath.Join(srv.Dir, "state"), "exits")
			if err != nil {
				t.Fatal(err)
			}
			l := &Loop{
				Config: Config{Name: "exits", Pane: srv.NewPane(), Dir: srv.Dir, PromptMode: agent.ModeArg,
					Command:      []string{"/bin/sh", "-c", `exit $(( (RALPH_ITERATION * 7) % 256 ))`},
					PollInterval: 100 * time.Millisecond, InactivityTimeout: time.Minute, Lines: 20},
				Tmux: srv.Client, Store: store, Out: io.Discard, Err: io.Discard,
			}
			l.assemble()
			if e := l.open(); e != nil {
				t.Fatal("open failed")
			}
			if !tc.stream {
				l.pane.CloseOutput()
			}
			defer l.pane.GiveBack("")
			for i := 1; i <= 50; i++ {
				l.rec.StartIteration(time.Now(), time.Time{}) // iteration i
				r := l.iteration(iteration.Nonce()).Run(context.Background(), "prompt")
				if want := (i * 7) % 256; r.Ending != iteration.EndExit || r.Code != want {
					t.Errorf("exit %d: got ending %d code %d", want, r.Ending, r.Code)
				}
			}
		})
	}
}
