package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A loop on a plan of issues: finish --pr closes the issue whose task it
// did, says of the one it did not that it is not done and why, and names
// neither way the issue a person closed on GitHub meanwhile.
func TestFinishPRClosesTheIssuesDoneAndSaysWhichAreNot(t *testing.T) {
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"README": "repo\n"})
	// Issue 2's title is data: in the prompt of the iteration on it, and in the body.
	two := "two $(touch pwned) `touch pwned` #{pane_id} #(touch pwned)"
	plan := "# Plan\n\n- [ ] #1 one\n- [ ] #2 " + two + "\n- [ ] #3 three\n"
	if err := os.WriteFile(filepath.Join(repo, "PLAN.md"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	// Iteration 1 does task gh-1 and ticks it; iteration 2 does nothing.
	agent := `if [ "$RALPH_ITERATION" = 1 ]; then sed -i "0,/- \[ \]/s//- [x]/" PLAN.md; echo one >> work; fi; exit 0`
	c.wantEnv(gitEnv, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "iss", "--worktree", "--commit", "--restart-delay", "0",
		"--tasks", filepath.Join(repo, "PLAN.md"), "--prompt-mode", "arg", "--max-iterations", "2", "--", "sh", "-c", agent}, 3, "task gh-1 done", "")
	bare := filepath.Join(c.srv.Dir, "remote.git")
	c.git(c.srv.Dir, "init", "-q", "--bare", bare)
	c.git(repo, "remote", "add", "origin", bare)
	gh := scriptedGh(t, map[string]string{
		"issue-1.json": `{"number": 1, "title": "one", "state": "OPEN"}`,
		"issue-2.json": `{"number": 2, "title": "two", "state": "OPEN"}`,
		"issue-3.json": `{"number": 3, "title": "three", "state": "CLOSED"}`,
	})
	env := append([]string{"PATH=" + gh + ":" + os.Getenv("PATH")}, gitEnv...)
	c.wantEnv(env, []string{"finish", "iss", "--pr"}, 0, "opened a pull request into main: https://forge.invalid/acme/web/pull/9\n", "")
	body, err := os.ReadFile(filepath.Join(gh, "pr-body.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "### Issues\n\nCloses #1\n\n- #2 "+two+": not done (it was not marked done)\n\n### Iterations") {
		t.Errorf("the body lacks the issues part:\n%s", body)
	}
	for _, not := range []string{"Closes #2", "Closes #3", "#3 three: not done"} {
		if strings.Contains(string(body), not) {
			t.Errorf("the body has %q:\n%s", not, body)
		}
	}
	for _, dir := range []string{repo, filepath.Join(repo, ".ralph", "worktrees", "iss"), c.srv.Dir, gh} {
		if _, err := os.Stat(filepath.Join(dir, "pwned")); !os.IsNotExist(err) {
			t.Errorf("issue 2's title ran in %s", dir)
		}
	}
	if calls := strings.Join(ghCalls(gh), "\n"); !strings.Contains(calls, "issue view 1 --json number,title,state\nissue view 2 --json number,title,state\nissue view 3 --json number,title,state\npr create") {
		t.Errorf("gh ran as\n%s", calls)
	}
}
