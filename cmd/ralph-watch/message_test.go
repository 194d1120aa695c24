package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// clientScreen attaches a real client to the server's session main inside a
// pane of a second private server, whose capture is what the client shows.
func clientScreen(t *testing.T, srv *tmuxtest.Server) func() string {
	t.Helper()
	outer := tmuxtest.Start(t)
	outer.Must("respawn-pane", "-k", "-t", "main:", "env -u TMUX TERM=tmux-256color tmux -S '"+srv.Socket+"' attach-session -t main")
	tmuxtest.Eventually(t, 10*time.Second, "the client to attach", func() bool {
		out, _ := srv.Tmux("list-clients", "-F", "#{client_name}")
		return strings.TrimSpace(out) != ""
	})
	return func() string {
		out, _ := outer.Tmux("capture-pane", "-p", "-t", "main:")
		return out
	}
}

// A failure's sentence stays on the person's screen long enough to read
// (tmux's own display time, 750 ms, is not), and the watcher does not wait
// for it to go: it has exited before the sentence goes.
func TestAFailuresSentenceStaysOnTheClientLongEnoughToRead(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	screen := clientScreen(t, c.srv)
	pane := c.srv.NewPane()
	type result struct {
		code   int
		stderr string
	}
	ran := make(chan result, 1)
	go func() {
		code, _, stderr := c.run(nil, "run", "-S", c.srv.Socket, "-t", pane, "--name", "typo", "--prompt-mode", "arg",
			"--max-iterations", "2", "--", "claud-no-such-program")
		ran <- result{code, stderr}
	}()
	const sentence = "[ralph] typo: failed (fatal_exit) after 1 iteration: command not found: claud-no-such-program"
	tmuxtest.Eventually(t, 30*time.Second, "the sentence on the client", func() bool { return strings.Contains(screen(), sentence) })
	shown := time.Now()
	for time.Since(shown) < 4*time.Second {
		if s := screen(); !strings.Contains(s, sentence) {
			t.Fatalf("the sentence went after %s; the client shows:\n%s", time.Since(shown).Round(10*time.Millisecond), s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// It goes in the end, as any message does; by then the watcher has exited.
	tmuxtest.Eventually(t, 10*time.Second, "the sentence to go", func() bool { return !strings.Contains(screen(), sentence) })
	select {
	case res := <-ran:
		if res.code != 1 {
			t.Fatalf("exit %d, want 1: %s", res.code, res.stderr)
		}
	default:
		t.Errorf("the watcher had not exited when its message went: it waited for it")
		if res := <-ran; res.code != 1 {
			t.Fatalf("exit %d, want 1: %s", res.code, res.stderr)
		}
	}
}
