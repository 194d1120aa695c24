package scripts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The loop key on a command with a typo, with a real client attached (in a
// pane of a second private server, whose capture is what the client shows):
// the loop fails at once, and its sentence stays on the client long enough
// to read, the plugin's word that the loop started shown before it.
func TestAFailureAtOnceStaysOnTheClientAfterTheLoopKey(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	p.configure(map[string]string{"@ralph-command": "claud-no-such-program", "@ralph-prompt-mode": "arg"})
	_, pane := p.project("project", "do the next task\n")
	p.source()

	outer := tmuxtest.Start(t)
	outer.Must("respawn-pane", "-k", "-t", "main:", "env -u TMUX TERM=tmux-256color tmux -S '"+srv.Socket+"' attach-session -t main")
	screen := func() string { out, _ := outer.Tmux("capture-pane", "-p", "-t", "main:"); return out }
	tmuxtest.Eventually(t, 10*time.Second, "the client to attach", func() bool {
		out, _ := srv.Tmux("list-clients", "-F", "#{client_name}")
		return strings.TrimSpace(out) != ""
	})
	outer.Must("send-keys", "-t", "main:", "C-b", "A")
	tmuxtest.Eventually(t, 10*time.Second, "the loop menu", func() bool { return strings.Contains(screen(), "Start the loop") })
	outer.Must("send-keys", "-t", "main:", "y")
	p.waitOption(pane, "@ralph-state", "failed")

	const sentence = "command not found: claud-no-such-program"
	tmuxtest.Eventually(t, 5*time.Second, "the sentence on the client", func() bool { return strings.Contains(screen(), sentence) })
	shown := time.Now()
	for time.Since(shown) < 4*time.Second {
		if s := screen(); !strings.Contains(s, sentence) {
			t.Fatalf("the sentence went after %s; the client shows:\n%s", time.Since(shown).Round(10*time.Millisecond), s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// show-messages lists the newest first: the failure came after the
	// plugin's word that the loop started.
	var ralph []string
	for _, line := range strings.Split(p.messages(), "\n") {
		if _, text, ok := strings.Cut(line, " message: "); ok && strings.HasPrefix(text, "[ralph] ") {
			ralph = append(ralph, text)
		}
	}
	if len(ralph) == 0 || !strings.Contains(ralph[0], sentence) {
		t.Errorf("the newest message is not the failure's sentence: %q", ralph)
	}
}

// What a key says stays on the client as long as it takes to read, not
// tmux's 0.75 s: the pause key on a pane with no loop, seen through a real
// client (in a pane of a second server, whose capture is what it shows).
func TestWhatAKeySaysStaysLongEnoughToRead(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	p.source()
	outer := tmuxtest.Start(t)
	outer.Must("respawn-pane", "-k", "-t", "main:", "env -u TMUX TERM=tmux-256color tmux -S '"+srv.Socket+"' attach-session -t main")
	screen := func() string { out, _ := outer.Tmux("capture-pane", "-p", "-t", "main:"); return out }
	tmuxtest.Eventually(t, 10*time.Second, "the client to attach", func() bool {
		out, _ := srv.Tmux("list-clients", "-F", "#{client_name}")
		return strings.TrimSpace(out) != ""
	})
	outer.Must("send-keys", "-t", "main:", "C-b", "Z")
	const sentence = "the loop key starts one"
	tmuxtest.Eventually(t, 10*time.Second, "the message on the client", func() bool { return strings.Contains(screen(), sentence) })
	shown := time.Now()
	for time.Since(shown) < 2500*time.Millisecond {
		if s := screen(); !strings.Contains(s, sentence) {
			t.Fatalf("the message went after %s; the client shows:\n%s", time.Since(shown).Round(10*time.Millisecond), s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
