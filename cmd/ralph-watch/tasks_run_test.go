package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/progress"
)

func TestRunTasksWorksThroughAPlanAndTheCommandsShowIt(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	plan := filepath.Join(c.srv.Dir, "PLAN.md")
	if err := os.WriteFile(plan, []byte("# Plan\n\n- [ ] Add the parser\n- [ ] Add the command\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := `sed -i '0,/- \[ \]/s//- [x]/' PLAN.md; echo "$1" > "work-$RALPH_ITERATION"; exit 0`
	c.want([]string{"run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "planned", "--restart-delay", "0", "--prompt-mode", "arg",
		"--max-iterations", "5", "--tasks", "PLAN.md", "--", "sh", "-c", agent, "agent"}, 0, "all 2 tasks done, stopping loop", "")
	if prompt, _ := os.ReadFile(filepath.Join(c.srv.Dir, "work-2")); !strings.Contains(string(prompt), "Add the command") || !strings.Contains(string(prompt), plan) {
		t.Errorf("prompt of iteration 2 lacks its task and the plan file:\n%s", prompt)
	}
	c.want([]string{"tasks", "planned"}, 0, "ID  STATE  LINE  ATTEMPTS  TITLE\n1   done   3     1         Add the parser\n", "")
	c.want([]string{"status", "planned"}, 0, "Tasks: 2 of 2 done, 0 open, 0 skipped ("+plan+")\n", "")
	c.want([]string{"status", "--json", "planned"}, 0, `"total": 2`, "")
	c.want([]string{"logs", "planned"}, 0, "[TASK] iteration 2 task 2 done", "")
	c.want([]string{"list"}, 0, "2/2", "")
}

func TestRunRefusesAPlanItCannotReadWithItsLine(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "tasks.json"), []byte("{\n  \"userStories\": [\n    {\"id\": \"US-1\",,}\n  ]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := c.panes()
	code, stdout, stderr := c.run(nil, "run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--tasks", "tasks.json", "--", "sh")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "ralph-watch: error: tasks file: "+filepath.Join(c.srv.Dir, "tasks.json")+" line 3") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and the plan's line", code, stdout, stderr)
	}
	if strings.Count(before, "\n")+1 != strings.Count(c.panes(), "\n") { // the new pane only
		t.Logf("panes before:\n%s\nafter:\n%s", before, c.panes())
	}
	c.want([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--review", "--", "sh"}, 2, "", "--review needs --tasks FILE")
	c.want([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--tasks", "none.md", "--", "sh"}, 2, "", "tasks file: read plan "+filepath.Join(c.srv.Dir, "none.md"))
	if code, _, stderr := c.run([]string{"RALPH_TASKS=none.md"}, "run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--", "sh"); code != 2 || !strings.Contains(stderr, "tasks file: read plan") {
		t.Errorf("RALPH_TASKS of a missing plan: exit %d, stderr %q", code, stderr)
	}
}

func TestInitTasksWritesAStartingPlanTheLoopCanRead(t *testing.T) {
	dir := t.TempDir()
	was, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil { // init writes into the current folder (this test runs alone: not parallel)
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chdir(was) })
	var out, errb strings.Builder
	e := env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	if code := run(context.Background(), []string{"init", "--tasks"}, e); code != 0 {
		t.Fatalf("init --tasks: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "created IMPLEMENTATION_PLAN.md\ncreated PROMPT.md\n") {
		t.Errorf("output: %q", out.String())
	}
	p, _, err := progress.ReadPlan(filepath.Join(dir, "IMPLEMENTATION_PLAN.md"))
	if err != nil {
		t.Fatal(err)
	}
	if total, _, open := p.Counts(); total != 2 || open != 2 {
		t.Errorf("the starting plan has %d tasks, %d open; want 2 open", total, open)
	}
	prompt, _ := os.ReadFile(filepath.Join(dir, "PROMPT.md"))
	if !strings.Contains(string(prompt), "one task\nan iteration") || strings.Contains(string(prompt), "RALPH_DONE") {
		t.Errorf("PROMPT.md:\n%s", prompt)
	}
	out.Reset()
	if code := run(context.Background(), []string{"init", "--tasks"}, e); code != 0 || !strings.Contains(out.String(), "kept IMPLEMENTATION_PLAN.md") || !strings.Contains(out.String(), "kept PROMPT.md") {
		t.Errorf("a second init --tasks: exit %d, %q", code, out.String())
	}
}

// A config file that names a plan brings the plan's verifyCommands: they
// need the file's trust, and a change to them needs it again.
func TestAPlanNamedByTheConfigFileNeedsTrustForItsVerifyCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	story := func(verify string) {
		data := `{"verifyCommands": ["` + verify + `"], "userStories": [{"id": "US-1", "title": "One", "passes": false}]}`
		if err := os.WriteFile(filepath.Join(c.srv.Dir, "prd.json"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	story("touch verified")
	c.config("tasks prd.json\nprompt-mode arg\nrestart-delay 0\nmax-iterations 1\n")
	pane := c.pane(c.srv.Dir)
	c.want([]string{"run", "-S", c.srv.Socket, "-t", pane, "--name", "trusted", "--", "true"}, 2, "", "would run commands: verifyCommands 'touch verified'")
	if _, err := os.Stat(filepath.Join(c.srv.Dir, "verified")); err == nil {
		t.Fatal("a verify command of an untrusted plan ran")
	}
	c.want([]string{"trust"}, 0, "trusted", "")
	c.want([]string{"run", "-S", c.srv.Socket, "-t", pane, "--name", "trusted", "--", "true"}, 3, "", "")
	if _, err := os.Stat(filepath.Join(c.srv.Dir, "verified")); err != nil {
		t.Errorf("the trusted plan's verify command did not run: %v", err)
	}
	story("touch other")
	c.want([]string{"run", "-S", c.srv.Socket, "-t", pane, "--name", "trusted", "--replace", "--", "true"}, 2, "", "would run commands: verifyCommands 'touch other'")
}

// In its own worktree the agent ticks the worktree's copy of the plan: the
// loop reads that one.
func TestRunTasksInAWorktreeReadsTheWorktreesPlan(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"PLAN.md": "- [ ] One\n- [ ] Two\n"})
	agent := `sed -i '0,/- \[ \]/s//- [x]/' PLAN.md; echo "$RALPH_ITERATION" >> work; exit 0`
	c.wantEnv(gitEnv, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "wtplan", "--worktree", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "4", "--tasks", "repo/PLAN.md", "--", "sh", "-c", agent}, 0, "all 2 tasks done", "")
	tree := filepath.Join(repo, ".ralph", "worktrees", "wtplan")
	if st := c.state("wtplan"); st.Tasks == nil || st.Tasks.File != filepath.Join(tree, "PLAN.md") {
		t.Errorf("the loop read %+v, want the worktree's plan", st.Tasks)
	}
	if got := c.git(repo, "status", "--porcelain"); got != "" {
		t.Errorf("the main working tree changed: %q", got)
	}
}

// The README's flow: init --tasks, edit the plan, run --tasks --worktree,
// with nothing committed. The worktree's commit has no plan (or an older
// one): the loop carries the person's plan into the worktree, where the
// agent ticks it, and says so.
func TestRunTasksInAWorktreeCarriesInAPlanNotCommitted(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"README": "a project\n", "OLD.md": "- [ ] Old\n"})
	if err := os.WriteFile(filepath.Join(repo, "PLAN.md"), []byte("- [ ] One\n- [ ] Two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "OLD.md"), []byte("- [ ] New\n"), 0o644); err != nil { // committed, then edited
		t.Fatal(err)
	}
	agent := func(plan string) string {
		return `sed -i '0,/- \[ \]/s//- [x]/' ` + plan + `; echo "$RALPH_ITERATION" >> work; exit 0`
	}
	out := c.wantEnv(gitEnv, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "fresh", "--worktree", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "4", "--tasks", "repo/PLAN.md", "--", "sh", "-c", agent("PLAN.md")}, 0, "all 2 tasks done", "")
	tree := filepath.Join(repo, ".ralph", "worktrees", "fresh")
	if !strings.Contains(out, "[ralph] fresh: carried the plan "+filepath.Join(repo, "PLAN.md")+" into the worktree") {
		t.Errorf("run did not say it carried the plan in:\n%s", out)
	}
	if st := c.state("fresh"); st.Tasks == nil || st.Tasks.File != filepath.Join(tree, "PLAN.md") || st.Tasks.Done != 2 {
		t.Errorf("the loop read %+v, want the worktree's plan, 2 done", st.Tasks)
	}
	if mine, _ := os.ReadFile(filepath.Join(repo, "PLAN.md")); string(mine) != "- [ ] One\n- [ ] Two\n" {
		t.Errorf("the person's plan changed: %q", mine)
	}
	// A plan the worktree's commit has, edited since: the person's as it is now.
	out = c.wantEnv(gitEnv, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "edited", "--worktree", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "2", "--tasks", "repo/OLD.md", "--", "sh", "-c", agent("OLD.md")}, 0, "all 1 tasks done", "")
	if got, _ := os.ReadFile(filepath.Join(repo, ".ralph", "worktrees", "edited", "OLD.md")); string(got) != "- [x] New\n" {
		t.Errorf("the worktree's plan: %q, want the person's edited one, ticked\n%s", got, out)
	}
}
