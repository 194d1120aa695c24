package scripts_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// A fan stopped while its loop works leaves its window saying so
// (@ralph-state stopped, not running): the status line ranks it with the
// ended ones and the popup's row offers no pause or stop. Started again,
// the window says running again.
func TestAStoppedFansWindowSaysStoppedUntilItIsStartedAgain(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	repo, gitEnv := popupFanRepo(t, srv, "- [ ] Make file-a\n")
	fan := startPopupFan(t, srv, p, gitEnv, repo, "fs", "1")
	t.Cleanup(func() { _ = p.ralphWatch("stop", "--kill", "fs").Run() })
	status := func() string { out, _ := p.ralphWatch("status", "fs").CombinedOutput(); return string(out) }
	tmuxtest.Eventually(t, 60*time.Second, "the fan's loop at work", func() bool {
		return strings.Contains(status(), "  fan-fs-1: running")
	})
	fanState := func() string { return srv.Option("fs:fan", "@ralph-state") }
	if got := fanState(); got != "running" {
		t.Fatalf("the running fan's window: @ralph-state %q", got)
	}
	done := make(chan struct{})
	go func() { _ = fan.Wait(); close(done) }()
	if out, err := p.ralphWatch("stop", "fs").CombinedOutput(); err != nil {
		t.Fatalf("stop fs: %v\n%s", err, out)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the stopped fan did not end:\n%s", status())
	}
	if got := fanState(); got != "stopped" {
		t.Errorf("the stopped fan's window: @ralph-state %q, want stopped", got)
	}
	p.load(nil)
	p.press("W")
	tmuxtest.Eventually(t, 10*time.Second, "the popup on the stopped fan's row", func() bool {
		return strings.Contains(p.shown(), "fan fs in fs:") && strings.Contains(p.shown(), "q: close")
	})
	p.typeKeys("1")
	tmuxtest.Eventually(t, 10*time.Second, "the popup redrawn on the stopped fan's row", func() bool {
		return strings.Contains(p.shown(), "fan fs in fs:") && strings.Contains(p.shown(), "q: close")
	})
	shown := p.shown()
	if !strings.Contains(shown, "fan fs in fs:0.0: stopped") {
		t.Errorf("the popup on the stopped fan does not say stopped:\n%s", shown)
	}
	for _, wrong := range []string{"p pause/resume", "s stop"} {
		if strings.Contains(shown, wrong) {
			t.Errorf("the popup on a stopped fan offers %q:\n%s", wrong, shown)
		}
	}
	p.typeKeys("q")
	again := p.ralphWatch("fan", "-S", srv.Socket, "--name", "fs", "--tasks", filepath.Join(repo, "PLAN.md"), "--max", "1",
		"--prompt-mode", "arg", "--max-iterations", "3", "--", "sh", "-c", "sleep 60")
	again.Env, again.Stdout, again.Stderr = gitEnv, &bytes.Buffer{}, &bytes.Buffer{}
	if err := again.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.ralphWatch("stop", "--kill", "fs").Run(); _ = again.Wait() })
	tmuxtest.Eventually(t, 30*time.Second, "the fan started again: its window running", func() bool { return fanState() == "running" })
}
