package watch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// TestMain removes what the tests built (tmuxtest.Main) and gives git, which the loops of these tests run to commit, one
// author and no person's configuration. It is set once for the whole test
// binary: the tests run in parallel, where t.Setenv cannot be used.
func TestMain(m *testing.M) {
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME": "ralph test", "GIT_AUTHOR_EMAIL": "ralph@example.invalid",
		"GIT_COMMITTER_NAME": "ralph test", "GIT_COMMITTER_EMAIL": "ralph@example.invalid",
		"GIT_CONFIG_GLOBAL": "/dev/null",
	} {
		if err := os.Setenv(k, v); err != nil {
			panic(err)
		}
	}
	os.Exit(tmuxtest.Main(m))
}

// shQuote quotes s as one word for sh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// gitInit makes dir a git repository with one commit.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("state/\nhome/\ntmp/\n*.script\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "start")
}

// git runs git in dir and returns what it printed.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
