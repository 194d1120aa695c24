package scripts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// An ended fan (here one whose plan has no task left to work)'s row in the popup offers only what applies to it, as an
// ended loop's row does: f finish (which shows what it did and how to land
// it), a attach; never a note, ten more, pause, stop, skip or retry.
func TestPopupOffersAnEndedFanOnlyWhatApplies(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	repo, gitEnv := popupFanRepo(t, srv, "- [x] Made file-a\n")
	fan := startPopupFan(t, srv, p, gitEnv, repo, "fe", "1")
	t.Cleanup(func() { _ = p.ralphWatch("stop", "--kill", "fe").Run() })
	status := func() string { out, _ := p.ralphWatch("status", "fe").CombinedOutput(); return string(out) }
	done := make(chan struct{})
	go func() { _ = fan.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the fan did not end:\n%s", status())
	}
	p.load(nil)
	p.press("W")
	tmuxtest.Eventually(t, 10*time.Second, "the popup on the ended fan's row", func() bool {
		return strings.Contains(p.shown(), "fan fe in fe:0.0: ") && strings.Contains(p.shown(), "q: close")
	})
	p.typeKeys("1")
	tmuxtest.Eventually(t, 10*time.Second, "the popup redrawn on the ended fan's row", func() bool {
		return strings.Contains(p.shown(), "fan fe in fe:0.0: ") && strings.Contains(p.shown(), "q: close")
	})
	shown := p.shown()
	if strings.Contains(shown, "fan fe in fe:0.0: running") {
		t.Fatalf("the fan's row still says running:\n%s", shown)
	}
	if !strings.Contains(shown, "f finish") {
		t.Errorf("the popup on an ended fan lacks f finish:\n%s", shown)
	}
	for _, wrong := range []string{"n note", "+ 10 more", "p pause/resume", "s stop", "x skip"} {
		if strings.Contains(shown, wrong) {
			t.Errorf("the popup on an ended fan offers %q:\n%s", wrong, shown)
		}
	}
	p.typeKeys("+")
	tmuxtest.Eventually(t, 10*time.Second, "what + says of an ended fan", func() bool {
		return strings.Contains(p.shown(), "fan fe has ended: f finish shows what it did and how to land it")
	})
	p.typeKeys("q")
}
