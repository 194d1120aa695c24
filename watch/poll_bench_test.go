package watch

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// BenchmarkPoll measures one inactivity poll as the loop does it: the pane's
// state, a capture of the last lines, and their hash.
func BenchmarkPoll(b *testing.B) {
	srv := tmuxtest.Start(b)
	pane := srv.NewPane()
	srv.Must("send-keys", "-t", pane, "seq 1 200", "Enter")
	store, err := state.Open(filepath.Join(srv.Dir, "state"), "bench")
	if err != nil {
		b.Fatal(err)
	}
	l := &Loop{Config: Config{Pane: pane, Lines: 20}, Tmux: srv.Client, Store: store}
	l.assemble()
	time.Sleep(200 * time.Millisecond)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, screen, err := l.Tmux.Snapshot(tmux.CaptureRequest{Pane: pane, Start: -l.Lines, Join: true}) // as the monitor asks
		if err != nil {
			b.Fatal(err)
		}
		agent.ScreenHash(screen, l.Lines)
	}
}

// BenchmarkScreenHash is the pure part of a poll.
func BenchmarkScreenHash(b *testing.B) {
	screen := ""
	for i := 0; i < 60; i++ {
		screen += "\x1b[32m● some agent output line with colour\x1b[0m and text\n"
	}
	b.SetBytes(int64(len(screen)))
	for i := 0; i < b.N; i++ {
		agent.ScreenHash(screen, 20)
	}
}

var _ tmux.Client = (*tmux.Exec)(nil)
