package scripts_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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
	repo := filepath.Join(srv.Dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"PLAN.md": "- [x] Made file-a\n", "PROMPT.md": "do the task\n"} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitEnv := append(append([]string(nil), srv.Env...), "GIT_AUTHOR_NAME=ralph test", "GIT_AUTHOR_EMAIL=ralph@example.invalid",
		"GIT_COMMITTER_NAME=ralph test", "GIT_COMMITTER_EMAIL=ralph@example.invalid")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	fan := p.ralphWatch("fan", "-S", srv.Socket, "--name", "fe", "--tasks", filepath.Join(repo, "PLAN.md"), "--max", "1",
		"--prompt-mode", "arg", "--max-iterations", "3", "--", "sh", "-c", "sleep 60")
	fan.Env, fan.Stdout, fan.Stderr = gitEnv, &bytes.Buffer{}, &bytes.Buffer{}
	if err := fan.Start(); err != nil {
		t.Fatal(err)
	}
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
