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

// A fan's row in the popup shows the fan as it stands (running, what
// landed), and its keys act on the fan: p pauses and resumes its loops at
// work, x and r say they end one loop's iteration, f is not offered while
// it runs.
func TestPopupShowsAFanAndItsKeysActOnTheFan(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	repo, gitEnv := popupFanRepo(t, srv, "- [ ] Make file-a\n- [ ] Make file-b\n")
	fan := startPopupFan(t, srv, p, gitEnv, repo, "fp", "2")
	t.Cleanup(func() {
		_ = p.ralphWatch("stop", "--kill", "fp").Run()
		_ = fan.Wait()
	})
	status := func() string { out, _ := p.ralphWatch("status", "fp").CombinedOutput(); return string(out) }
	tmuxtest.Eventually(t, 30*time.Second, "the fan's two loops at work", func() bool {
		s := status()
		return strings.Contains(s, "  fan-fp-1: running") && strings.Contains(s, "  fan-fp-2: running")
	})
	p.load(nil)
	p.press("W")
	tmuxtest.Eventually(t, 10*time.Second, "the popup on the fan's row", func() bool {
		return strings.Contains(p.shown(), "fan fp in fp:0.0: running (⟳ 2 loops · 0/2 landed)") && strings.Contains(p.shown(), "q: close")
	})
	for _, wrong := range []string{"(ended)", "no ralph state found", "f finish", "x skip"} {
		if strings.Contains(p.shown(), wrong) {
			t.Errorf("the popup on a running fan shows %q:\n%s", wrong, p.shown())
		}
	}
	p.typeKeys("p")
	tmuxtest.Eventually(t, 30*time.Second, "the fan's loops paused", func() bool {
		s := status()
		return strings.Contains(s, "  fan-fp-1: paused") && strings.Contains(s, "  fan-fp-2: paused")
	})
	p.typeKeys("p")
	tmuxtest.Eventually(t, 30*time.Second, "the fan's loops resumed", func() bool {
		s := status()
		return strings.Contains(s, "  fan-fp-1: running") && strings.Contains(s, "  fan-fp-2: running")
	})
	p.typeKeys("x")
	tmuxtest.Eventually(t, 10*time.Second, "what x says of a fan", func() bool {
		return strings.Contains(p.shown(), "x ends one loop's iteration: choose one of fan fp's loops")
	})
	p.typeKeys("q")
}

// popupFanRepo makes a repository holding plan and a prompt, committed, and
// the environment git and the fan take in it.
func popupFanRepo(t *testing.T, srv *tmuxtest.Server, plan string) (repo string, gitEnv []string) {
	t.Helper()
	repo = filepath.Join(srv.Dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"PLAN.md": plan, "PROMPT.md": "do the task\n"} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitEnv = append(append([]string(nil), srv.Env...), "GIT_AUTHOR_NAME=ralph test", "GIT_AUTHOR_EMAIL=ralph@example.invalid",
		"GIT_COMMITTER_NAME=ralph test", "GIT_COMMITTER_EMAIL=ralph@example.invalid")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo, gitEnv
}

// startPopupFan starts fan name on the repository's plan, at most max loops
// of an agent that sleeps.
func startPopupFan(t *testing.T, srv *tmuxtest.Server, p *plugin, gitEnv []string, repo, name, max string) *exec.Cmd {
	t.Helper()
	fan := p.ralphWatch("fan", "-S", srv.Socket, "--name", name, "--tasks", filepath.Join(repo, "PLAN.md"), "--max", max,
		"--prompt-mode", "arg", "--max-iterations", "3", "--", "sh", "-c", "sleep 60")
	fan.Env, fan.Stdout, fan.Stderr = gitEnv, &bytes.Buffer{}, &bytes.Buffer{}
	if err := fan.Start(); err != nil {
		t.Fatal(err)
	}
	return fan
}
