package watch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// While its agent sits still, a watcher starts no tmux to tell the status
// line it lives (a tmux every 2 s was 25 times the idle cost of the seed's
// monitor): the server holds its lifeline, which marks the beat only once
// the watcher is gone, and the beat is left unset, which the status line
// reads as a watcher that runs.
func TestAnIdleWatcherStartsNoTmuxToSayItLives(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ready\nread\nprint working on it\nquiet\n")
	h.cfg.BeatEvery = 100 * time.Millisecond
	calls := filepath.Join(h.srv.Dir, "tmux-calls")
	counting := filepath.Join(h.srv.Dir, "counting-tmux")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>" + shQuote(calls) + "\nexec tmux \"$@\"\n"
	if err := os.WriteFile(counting, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	client := &tmux.Exec{Server: h.srv.Client.Server, Binary: counting}
	beats := func() int {
		data, _ := os.ReadFile(calls)
		return strings.Count(string(data), words.OptionBeat)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan watch.Result)
	go func() {
		done <- (&watch.Loop{Config: h.cfg, Tmux: client, Store: h.store, Out: &h.out, Err: &h.out}).Run(ctx)
	}()
	tmuxtest.Eventually(t, 30*time.Second, "the agent to work", func() bool {
		return strings.Contains(h.srv.Capture(h.cfg.Pane), "working on it")
	})
	before := beats()
	time.Sleep(time.Second) // ten beats' time
	if n := beats() - before; n > 0 {
		t.Errorf("the watcher started tmux %d times in a second to renew %s", n, words.OptionBeat)
	}
	if beat := h.srv.Option(h.cfg.Pane, words.OptionBeat); beat != "" {
		t.Errorf("%s = %q while the watcher runs, want it unset (its lifeline sets it)", words.OptionBeat, beat)
	}
	cancel()
	h.wantResult(<-done, words.ExitInterrupted, "interrupted")
}
