package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// gitProject is a git repository on main with one commit and a
// .ralph/config that loops in a worktree; its agent commits a file and
// prints the done token.
func (p *plugin) gitProject(name string) (dir, pane string) {
	p.t.Helper()
	dir, pane = p.project(name, "do the next task\n")
	_ = os.MkdirAll(filepath.Join(dir, ".ralph"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".ralph", "config"), []byte("worktree true\nprompt-mode arg\nmax-iterations 3\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".ralph/\n"), 0o644)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"config", "user.name", "ralph test"}, {"config", "user.email", "ralph@example.invalid"},
		{"add", "-A"}, {"commit", "-q", "-m", "start"},
	} {
		p.git(dir, args...)
	}
	return dir, pane
}

func (p *plugin) git(dir string, args ...string) string {
	p.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), p.srv.Env...), "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// With @ralph-finish-on-done merge, a loop the loop key starts in its
// worktree lands its commit on main by itself when it ends done. Without
// it, the popup offers finish for the ended loop (f, then m) and shows
// what finish said.
func TestFinishOnDoneAndThePopupsFinishKeyLandALoopsWork(t *testing.T) {
	srv, p := installTPM(t)
	p.load(map[string]string{
		"@ralph-command":        `sh -c 'echo "$0" > work && git add work && git commit -q -m "agent did it" && echo RALPH_DONE'`,
		"@ralph-finish-on-done": "merge",
	})

	alpha, pane := p.gitProject("alpha")
	p.press("A")
	p.choose("finish-on-done", "y")
	p.waitOption(pane, "@ralph-state", "done")
	tmuxtest.Eventually(t, 20*time.Second, "main to have the loop's commit", func() bool {
		return p.git(alpha, "log", "--format=%s", "main") == "agent did it\nstart\n"
	})

	srv.Must("set-option", "-gu", "@ralph-finish-on-done")
	beta, pane := p.gitProject("beta")
	p.press("A")
	p.choose("Start the loop", "y")
	p.waitOption(pane, "@ralph-state", "done")
	if got := p.git(beta, "log", "--format=%s", "main"); got != "start\n" {
		t.Fatalf("main moved without finish:\n%s", got)
	}
	name := srv.Option(pane, "@ralph-name")
	srv.Must("select-window", "-t", pane)
	p.press("W")
	tmuxtest.Eventually(t, 10*time.Second, "the popup to offer finish", func() bool {
		return strings.Contains(p.shown(), "> ") && strings.Contains(p.shown(), "f finish")
	})
	p.typeKeys("f")
	tmuxtest.Eventually(t, 10*time.Second, "the finish question", func() bool {
		return strings.Contains(p.shown(), "finish "+name+"?")
	})
	p.typeKeys("m")
	tmuxtest.Eventually(t, 30*time.Second, "finish's output", func() bool {
		return strings.Contains(p.shown(), "Merged ralph/"+name+" into main") && strings.Contains(p.shown(), "(any key: back)")
	})
	p.typeKeys("xq")
	if got := p.git(beta, "log", "--format=%s", "main"); got != "agent did it\nstart\n" {
		t.Errorf("main after the popup's finish:\n%s", got)
	}
}
