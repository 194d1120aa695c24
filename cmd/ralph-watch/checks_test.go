package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// gitEnv gives git an identity of its own and no global configuration.
var gitEnv = []string{"GIT_AUTHOR_NAME=ralph test", "GIT_AUTHOR_EMAIL=ralph@example.invalid",
	"GIT_COMMITTER_NAME=ralph test", "GIT_COMMITTER_EMAIL=ralph@example.invalid", "GIT_CONFIG_GLOBAL=/dev/null"}

func (c *cli) git(dir string, args ...string) string {
	c.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), c.srv.Env...), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// gitRepo is a git repository, "repo", on main with one commit ("start")
// of files (name: text).
func (c *cli) gitRepo(files map[string]string) string {
	c.t.Helper()
	repo := filepath.Join(c.srv.Dir, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		c.t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			c.t.Fatal(err)
		}
	}
	c.git(repo, "init", "-q", "-b", "main")
	c.git(repo, "add", "-A")
	c.git(repo, "commit", "-q", "-m", "start")
	return repo
}

func (c *cli) config(text string) {
	c.t.Helper()
	if err := os.MkdirAll(filepath.Join(c.srv.Dir, ".ralph"), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.srv.Dir, ".ralph", "config"), []byte(text), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

func TestChecksAndHintsFromTheConfigFileSurviveResume(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.config("# guardrails\ncheck test -f fixed\ncheck-hint create the file named fixed\ncheck echo fine\nprompt-mode arg\nrestart-delay 0\n")
	c.want([]string{"trust"}, 0, "trusted "+filepath.Join(c.srv.Dir, ".ralph", "config"), "")
	agent := `printf %s "$1" > "prompt-$RALPH_ITERATION"; [ "$RALPH_ITERATION" = 2 ] && touch fixed; exit 0`
	code, stdout, stderr := c.run(nil, "run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "cfg", "--no-run",
		"--max-iterations", "3", "--check-output-chars", "100", "--", "sh", "-c", agent, "agent")
	if code != 0 {
		t.Fatalf("run --no-run: exit %d\n%s%s", code, stdout, stderr)
	}
	args := strings.Join(c.state("cfg").WatcherArgs, "\n")
	if !strings.Contains(args, "\n--check=test -f fixed\n--check-hint=create the file named fixed\n--check=echo fine\n--") {
		t.Errorf("recorded arguments:\n%s", args)
	}
	c.config("prompt-mode arg\nrestart-delay 0\n") // the recorded checks hold, whatever the file says now
	c.want([]string{"resume", "cfg"}, 0, "resumed ralph loop for cfg", "")
	st := c.until("cfg", "the loop to end", func(st *state.State) bool { return st.Status == state.Stopped })
	if len(st.Checks) != 3 || st.Checks[0].Results[0].Passed || !st.Checks[1].Results[0].Passed {
		t.Errorf("checks: %+v", st.Checks)
	}
	prompt2, _ := os.ReadFile(filepath.Join(c.srv.Dir, "prompt-2"))
	if !strings.HasPrefix(string(prompt2), "do the next task\n\nCheck \"test -f fixed\" failed with exit code 1.\nHint: create the file named fixed\nOutput file: ") {
		t.Errorf("prompt of iteration 2:\n%s", prompt2)
	}
	status := c.want([]string{"status", "cfg"}, 0, "Checks (iteration 3): 2 of 2 passed\n  pass  test -f fixed\n  pass  echo fine\n", "")
	if !strings.Contains(status, "Exit reason: max_iterations") {
		t.Errorf("status:\n%s", status)
	}
	logs := c.want([]string{"logs", "cfg"}, 0, `[CHECK] iteration 1 fail exit=1 duration=0s check="test -f fixed"`, "")
	if !strings.Contains(logs, `[CHECK] iteration 3 pass exit=0 duration=0s check="echo fine"`) {
		t.Errorf("logs:\n%s", logs)
	}
	c.want([]string{"status", "--json", "cfg"}, 0, `"command": "test -f fixed"`, "")
}

func TestCommandLineChecksReplaceTheConfigFilesWithTheirHints(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.config("check false\ncheck-hint not this one\nprompt-mode arg\nrestart-delay 0\n")
	c.runLoop("cl", "--max-iterations", "1", "--check", "exit 0", "--", "true")
	if got := c.state("cl").Checks[0].Results; len(got) != 1 || got[0].Command != "exit 0" || got[0].Hint != "" {
		t.Errorf("checks: %+v", got)
	}
	c.config("check-hint a hint with no check\n")
	c.want([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--", "true"}, 2, "",
		"ralph-watch: error: config file: a check-hint line must follow the check line it explains")
}

func TestAWorktreeIsMadeOnceReusedAndKeptByClean(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"README": "repo\n"})
	agent := `pwd > "$RALPH_STATE_DIR/where-$RALPH_ITERATION"; echo x >> work; exit 0`
	args := []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "wt", "--worktree", "--commit", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "2", "--", "sh", "-c", agent}
	tree := filepath.Join(repo, ".ralph", "worktrees", "wt")
	c.wantEnv(gitEnv, args, 0, "[ralph] wt: created worktree "+tree+" (branch ralph/wt)\n", "")
	where, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "where-1"))
	if strings.TrimSpace(string(where)) != tree {
		t.Errorf("the agent ran in %q, want %s", where, tree)
	}
	if got := c.git(tree, "log", "--format=%s", "ralph/wt"); got != "ralph wt: iteration 2\nralph wt: iteration 1\nstart\n" {
		t.Errorf("commits on ralph/wt:\n%s", got)
	}
	if got := c.git(repo, "status", "--porcelain"); got != "" {
		t.Errorf("the main working tree changed: %q", got)
	}
	// Again, on another pane: the same worktree, not reset.
	args[4] = c.pane(repo)
	c.wantEnv(gitEnv, args, 0, "[ralph] wt: using worktree "+tree+" (branch ralph/wt)\n", "")
	if work, _ := os.ReadFile(filepath.Join(tree, "work")); string(work) != "x\nx\nx\nx\n" {
		t.Errorf("work after two runs: %q", work)
	}
	c.want([]string{"status", "wt"}, 0, "Worktree: "+tree+" (branch ralph/wt)\n", "")
	c.want([]string{"clean", "wt"}, 0, "kept worktree "+tree+" (branch ralph/wt); remove it with: git worktree remove "+tree+"\n", "")
	if _, err := os.Stat(filepath.Join(tree, "work")); err != nil {
		t.Errorf("clean removed the worktree: %v", err)
	}
}

func (c *cli) wantEnv(env, args []string, code int, inStdout, inStderr string) string {
	c.t.Helper()
	got, stdout, stderr := c.run(env, args...)
	if got != code || !strings.Contains(stdout, inStdout) || !strings.Contains(stderr, inStderr) {
		c.t.Errorf("ralph-watch %v: exit %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", args, got, code, stdout, inStdout, stderr, inStderr)
	}
	return stdout
}
