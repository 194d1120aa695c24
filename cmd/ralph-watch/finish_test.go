package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// finishRepo is a git repository on main with one commit, and a loop "wt"
// that ran two iterations in its worktree, each appending a line to work
// (committed by --commit). It returns the repository and the worktree.
func (c *cli) finishRepo(name string) (repo, tree string) {
	c.t.Helper()
	repo = c.gitRepo(map[string]string{"README": "repo\n", "work": "start\n"})
	agent := `echo "line $RALPH_ITERATION" >> work; exit 0`
	c.wantEnv(gitEnv, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", name, "--worktree", "--commit", "--restart-delay", "0",
		"--check", "test -f work", "--prompt-mode", "arg", "--max-iterations", "2", "--", "sh", "-c", agent}, 0, "created worktree", "")
	return repo, filepath.Join(repo, ".ralph", "worktrees", name)
}

func TestFinishMergeFastForwardsMainShowsTheRunAndRemoves(t *testing.T) {
	c := newCLI(t)
	repo, tree := c.finishRepo("wt")
	if st := c.state("wt"); st.WorktreeBase != "main" {
		t.Errorf("worktree_base %q, want main", st.WorktreeBase)
	}
	c.want([]string{"status", "wt"}, 0, "Landed: no (ralph/wt has 2 commits not in main", "")
	out := c.wantEnv(gitEnv, []string{"finish", "wt", "--merge", "--remove"}, 0, "Loop wt: 2 iterations, ended max_iterations\n", "")
	for _, want := range []string{
		"Branch ralph/wt (worktree " + tree + "), onto main: 2 commits\n",
		"ralph wt: iteration 1\n", "ralph wt: iteration 2\n",
		"work | 2 ++\n",
		"Checks (iteration 2): 1 of 1 passed\n  pass  test -f work\n",
		"Merged ralph/wt into main",
		"Removed worktree " + tree + " and branch ralph/wt.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("finish output lacks %q:\n%s", want, out)
		}
	}
	if got := c.git(repo, "log", "--format=%s", "main"); got != "ralph wt: iteration 2\nralph wt: iteration 1\nstart\n" {
		t.Errorf("main is not fast-forwarded:\n%s", got)
	}
	if data, _ := os.ReadFile(filepath.Join(repo, "work")); string(data) != "start\nline 1\nline 2\n" {
		t.Errorf("main's checkout has work %q", data)
	}
	if _, err := os.Stat(tree); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if got := c.git(repo, "branch", "--list", "ralph/wt"); got != "" {
		t.Errorf("the branch is still there: %q", got)
	}
	c.want([]string{"status", "wt"}, 0, "Landed: merged (Merged ralph/wt into main", "")
	list := c.want([]string{"list"}, 0, "LANDED", "")
	if !strings.Contains(list, "merged") {
		t.Errorf("list:\n%s", list)
	}
	c.want([]string{"list", "--json"}, 0, `"landed": "merged"`, "")
}

func TestFinishMergeMakesAMergeCommitWhenMainMoved(t *testing.T) {
	c := newCLI(t)
	repo, _ := c.finishRepo("wt")
	_ = os.WriteFile(filepath.Join(repo, "other"), []byte("other\n"), 0o644)
	c.git(repo, "add", "other")
	c.git(repo, "commit", "-q", "-m", "main moved")
	c.wantEnv(gitEnv, []string{"finish", "wt", "--merge"}, 0, "Merged ralph/wt into main", "")
	if got := c.git(repo, "log", "-1", "--format=%s%n%p", "main"); !strings.HasPrefix(got, "Merge branch 'ralph/wt' into main\n") || len(strings.Fields(got)) != 7 {
		t.Errorf("main's head is not a merge commit:\n%s", got)
	}
}

func TestFinishMergeConflictIsRefusedNamingTheFilesAndAborted(t *testing.T) {
	c := newCLI(t)
	repo, tree := c.finishRepo("wt")
	_ = os.WriteFile(filepath.Join(repo, "work"), []byte("start\nmine\n"), 0o644)
	c.git(repo, "commit", "-q", "-am", "main changed work")
	before := c.git(repo, "rev-parse", "main")
	c.wantEnv(gitEnv, []string{"finish", "wt", "--merge"}, 1, "Loop wt", "ralph-watch: error: merge ralph/wt into main: conflict in work; the merge was aborted and main is as it was\n")
	if after := c.git(repo, "rev-parse", "main"); after != before {
		t.Errorf("main moved: %s -> %s", before, after)
	}
	if got := c.git(repo, "status", "--porcelain"); got != "" {
		t.Errorf("the merge left changes in main's checkout: %q", got)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "MERGE_HEAD")); !os.IsNotExist(err) {
		t.Errorf("a merge is still in progress")
	}
	// --rebase meets the same conflict and leaves the loop's branch as it was.
	branch := c.git(tree, "rev-parse", "HEAD")
	c.wantEnv(gitEnv, []string{"finish", "wt", "--rebase"}, 1, "", "ralph-watch: error: rebase ralph/wt onto main: conflict in work; the rebase was aborted")
	if got := c.git(tree, "rev-parse", "HEAD"); got != branch {
		t.Errorf("the loop's branch moved: %s -> %s", branch, got)
	}
}

func TestFinishRefusesUncommittedWorkUnlessCommitAndADirtyTarget(t *testing.T) {
	c := newCLI(t)
	repo, tree := c.finishRepo("wt")
	_ = os.WriteFile(filepath.Join(tree, "late"), []byte("late\n"), 0o644)
	c.wantEnv(gitEnv, []string{"finish", "wt", "--merge"}, 1, "", "ralph-watch: error: "+tree+" has uncommitted changes (late): commit them, or say --commit to commit them first\n")
	_ = os.WriteFile(filepath.Join(repo, "README"), []byte("edited, not committed\n"), 0o644)
	c.wantEnv(gitEnv, []string{"finish", "wt", "--merge", "--commit"}, 1, "Committed late in ralph/wt",
		"ralph-watch: error: "+repo+" (where main is checked out) has uncommitted changes (README): commit or stash them, then finish again\n")
	if data, _ := os.ReadFile(filepath.Join(repo, "README")); string(data) != "edited, not committed\n" {
		t.Errorf("the person's change was touched: %q", data)
	}
	c.git(repo, "checkout", "README")
	c.wantEnv(gitEnv, []string{"finish", "wt", "--merge"}, 0, "ralph wt: uncommitted work at finish\n", "")
	if _, err := os.Stat(filepath.Join(repo, "late")); err != nil {
		t.Errorf("the committed file did not land: %v", err)
	}
	// No mode: the run and what is left to land. Usage: two modes, no name.
	c.want([]string{"finish", "wt"}, 0, "\nNothing left to land: ralph/wt has no commit that main lacks.\n", "")
	c.want([]string{"finish", "wt", "--merge", "--pr"}, 2, "", "(got 2)\n")
	c.want([]string{"finish", "--merge"}, 2, "", "")
}

func TestFinishRebaseReplaysTheLoopOnMainAndFastForwards(t *testing.T) {
	c := newCLI(t)
	repo, _ := c.finishRepo("wt")
	_ = os.WriteFile(filepath.Join(repo, "other"), []byte("other\n"), 0o644)
	c.git(repo, "add", "other")
	c.git(repo, "commit", "-q", "-m", "main moved")
	c.wantEnv(gitEnv, []string{"finish", "wt", "--rebase"}, 0, "Rebased ralph/wt onto main and fast-forwarded main", "")
	if got := c.git(repo, "log", "--format=%s", "main"); got != "ralph wt: iteration 2\nralph wt: iteration 1\nmain moved\nstart\n" {
		t.Errorf("main after the rebase:\n%s", got)
	}
	c.want([]string{"status", "wt"}, 0, "Landed: rebased", "")
}

func TestFinishPRPushesTheBranchAndOpensAPullRequestWithGh(t *testing.T) {
	c := newCLI(t)
	repo, tree := c.finishRepo("wt")
	bare := filepath.Join(c.srv.Dir, "remote.git")
	c.git(c.srv.Dir, "init", "-q", "--bare", bare)
	c.git(repo, "remote", "add", "origin", bare)
	env, record := fakeGh(c)
	c.wantEnv(env, []string{"finish", "wt", "--pr"}, 0, "Pushed ralph/wt and opened a pull request into main: https://forge.invalid/o/r/pull/7\n", "")
	if got := c.git(bare, "log", "--format=%s", "ralph/wt"); got != "ralph wt: iteration 2\nralph wt: iteration 1\nstart\n" {
		t.Errorf("the remote's ralph/wt:\n%s", got)
	}
	args, _ := os.ReadFile(record)
	body := filepath.Join(c.srv.Dir, "state", "wt", "pr-body.md")
	want := tree + "\npr\ncreate\n--base\nmain\n--head\nralph/wt\n--title\nralph wt: 2 iterations, ended max_iterations\n--body-file\n" + body + "\n"
	if string(args) != want {
		t.Errorf("gh ran as\n%s\nwant\n%s", args, want)
	}
	gotBody, _ := os.ReadFile(record + ".body")
	for _, part := range []string{"| 1 | exit=0 |", "| 2 | exit=0, loop ended max_iterations |", "### Checks (iteration 2): 1 of 1 passed", "- pass `test -f work`",
		"### Files changed (1)", "work | 2 ++", "ralph-watch replay wt N"} {
		if !strings.Contains(string(gotBody), part) {
			t.Errorf("the body lacks %q:\n%s", part, gotBody)
		}
	}
	if got := c.git(repo, "log", "-1", "--format=%s", "main"); got != "start\n" {
		t.Errorf("--pr moved main: %s", got)
	}
	c.want([]string{"status", "wt"}, 0, "Landed: pr", "")
	// A push that fails is exit 1, and gh is not run.
	_ = os.Remove(record)
	c.git(repo, "remote", "set-url", "origin", filepath.Join(c.srv.Dir, "nowhere.git"))
	c.wantEnv(env, []string{"finish", "wt", "--pr"}, 1, "", "ralph-watch: error: push ralph/wt to origin: ")
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("gh ran after a failed push")
	}
}

// A goal loop's pull request quotes the judge's final verdict: the goal in
// the person's words, met, and the evidence it named.
func TestFinishPRQuotesTheJudgesFinalVerdict(t *testing.T) {
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"README": "repo\n", "work": "start\n"})
	agent := `echo "line $RALPH_ITERATION" >> work; [ "$RALPH_ITERATION" -ge 2 ] && echo ALL_DONE; exit 0`
	judge := `grep -q '^+line 2' && echo '{"met": true, "missing": [], "evidence": ["work gains line 1 and line 2", "the diff holds nothing else"]}'`
	// No check: one naming the file work (test -f work) would protect it from the agent.
	c.wantEnv(gitEnv, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "wt", "--worktree", "--commit", "--restart-delay", "0",
		"--done-pattern", "ALL_DONE", "--goal", "two lines in work\nnumbered", "--judge", judge,
		"--prompt-mode", "arg", "--max-iterations", "3", "--", "sh", "-c", agent}, 0, "the judge found the goal met", "")
	bare := filepath.Join(c.srv.Dir, "remote.git")
	c.git(c.srv.Dir, "init", "-q", "--bare", bare)
	c.git(repo, "remote", "add", "origin", bare)
	env, record := fakeGh(c)
	c.wantEnv(env, []string{"finish", "wt", "--pr"}, 0, "Goal: met (the judge, after iteration 2)\n", "")
	body, _ := os.ReadFile(record + ".body")
	want := "### Goal: met (the judge's verdict after iteration 2)\n\n> two lines in work\n> numbered\n\n" +
		"Evidence the judge named:\n\n- work gains line 1 and line 2\n- the diff holds nothing else\n\n"
	if !strings.Contains(string(body), want) {
		t.Errorf("the body lacks\n%s\nin\n%s", want, body)
	}
	if !strings.Contains(string(body), "ended goal_met") {
		t.Errorf("the body does not say the loop ended goal_met:\n%s", body)
	}
}

// fakeGh is a gh on PATH that records its folder and arguments in record
// (the body it was given in record.body) and answers a pull request's
// address; env puts it first on PATH.
func fakeGh(c *cli) (env []string, record string) {
	bin := filepath.Join(c.srv.Dir, "fakebin")
	_ = os.Mkdir(bin, 0o755)
	record = filepath.Join(c.srv.Dir, "gh-args")
	script := "#!/bin/sh\npwd > " + record + "\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> " + record + "; done\n" +
		"while [ $# -gt 0 ]; do [ \"$1\" = --body-file ] && cp \"$2\" " + record + ".body; shift; done\n" +
		"echo https://forge.invalid/o/r/pull/7\n"
	_ = os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755)
	return append([]string{"PATH=" + bin + ":" + os.Getenv("PATH")}, gitEnv...), record
}

func TestFinishPatchWritesASeriesThatGitAmApplies(t *testing.T) {
	c := newCLI(t)
	repo, _ := c.finishRepo("wt")
	file := filepath.Join(c.srv.Dir, "wt.mbox")
	c.wantEnv(gitEnv, []string{"finish", "wt", "--patch", file, "--remove"}, 0, "Wrote the patch series of ralph/wt against main to "+file, "")
	c.want([]string{"status", "wt"}, 0, "Landed: patch", "")
	if _, err := os.Stat(filepath.Join(repo, ".ralph", "worktrees", "wt")); err != nil {
		t.Errorf("--remove removed an unmerged worktree: %v", err)
	}
	clone := filepath.Join(c.srv.Dir, "clone")
	c.git(c.srv.Dir, "clone", "-q", "--branch", "main", repo, clone)
	c.git(clone, "am", "-q", file)
	if got := c.git(clone, "log", "--format=%s"); got != "ralph wt: iteration 2\nralph wt: iteration 1\nstart\n" {
		t.Errorf("after git am:\n%s", got)
	}
}

func TestOnDoneRunsFinishForALoopThatEndsDone(t *testing.T) {
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"README": "repo\n"})
	c.git(repo, "config", "user.name", "agent") // the agent's commit runs in the pane, without the test's identity
	c.git(repo, "config", "user.email", "agent@example.invalid")
	agent := `echo done > work; git add work; git commit -q -m "agent did it"; echo ALL_DONE; exit 0`
	env := append([]string{"PATH=" + filepath.Dir(c.bin) + ":" + os.Getenv("PATH")}, gitEnv...)
	c.wantEnv(env, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "od", "--worktree", "--restart-delay", "0",
		"--done-pattern", "ALL_DONE", "--on-done", `ralph-watch finish "$RALPH_NAME" --merge --remove`,
		"--prompt-mode", "arg", "--max-iterations", "3", "--", "sh", "-c", agent}, 0, "created worktree", "")
	if got := c.git(repo, "log", "--format=%s", "main"); got != "agent did it\nstart\n" {
		hooks, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "od", "hooks.log"))
		t.Errorf("main after the loop ended done:\n%s\nhooks.log:\n%s", got, hooks)
	}
	c.want([]string{"status", "od"}, 0, "Landed: merged", "")
}

// A loop that ran on a branch of its own, without --worktree, lands with
// --into; main, checked out nowhere, is merged in a working tree of the
// moment, which is gone afterwards.
func TestFinishIntoLandsALoopThatRanOnABranchOfItsOwn(t *testing.T) {
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"README": "repo\n"})
	c.git(repo, "checkout", "-q", "-b", "feature")
	c.wantEnv(gitEnv, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "own", "--commit", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "1", "--", "sh", "-c", "echo more >> README"}, 0, "", "")
	c.wantEnv(gitEnv, []string{"finish", "own", "--merge"}, 2, "",
		"ralph-watch: error: loop own ran on branch feature in "+repo+", not in a worktree of its own: say where it lands with --into BRANCH\n")
	c.wantEnv(gitEnv, []string{"finish", "own", "--merge", "--into", "main", "--remove"}, 0,
		"Branch feature ("+repo+"), onto main: 1 commit\n", "")
	if got := c.git(repo, "log", "--format=%s", "main"); got != "ralph own: iteration 1\nstart\n" {
		t.Errorf("main:\n%s", got)
	}
	if got := c.git(repo, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Errorf("a working tree was left behind:\n%s", got)
	}
	if got := c.git(repo, "symbolic-ref", "--short", "HEAD"); got != "feature\n" {
		t.Errorf("the person's checkout moved to %s", got)
	}
}

// finish leaves a loop that still runs alone.
func TestFinishRefusesALoopThatStillRuns(t *testing.T) {
	c := newCLI(t)
	repo, _ := c.finishRepo("wt")
	c.wantEnv(gitEnv, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "wt", "--worktree", "--detach", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "3", "--", "sh", "-c", "sleep 30"}, 0, "", "")
	c.until("wt", "the loop to run", func(st *state.State) bool { return st.Status == state.Running && st.CurrentIteration >= 1 })
	c.wantEnv(gitEnv, []string{"finish", "wt", "--merge"}, 1, "", "ralph-watch: error: loop wt is still running: stop it first (ralph-watch stop wt)\n")
	c.want([]string{"stop", "--kill", "wt"}, 0, "", "")
}

// The README's own run: init --tasks leaves the plan untracked, the loop
// carries it into its worktree, the agent ticks it there and the branch
// commits it. finish --merge then lands the branch over the checkout's
// untracked copy, which differs only by the loop's ticks; a copy the
// person edited is refused by name, and left as it was.
func TestFinishMergeLandsAPlanTheLoopCarriedOverTheCheckoutsUntrackedCopy(t *testing.T) {
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"README": "repo\n"})
	plan := "# Plan\n\n- [ ] T1: one\n- [ ] T2: two\n"
	if err := os.WriteFile(filepath.Join(repo, "PLAN.md"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := `sed -i "0,/- \[ \]/s//- [x]/" PLAN.md; echo "work $RALPH_ITERATION" >> work; exit 0`
	c.wantEnv(gitEnv, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "wt", "--worktree", "--commit", "--restart-delay", "0",
		"--tasks", filepath.Join(repo, "PLAN.md"), "--prompt-mode", "arg", "--max-iterations", "4", "--", "sh", "-c", agent}, 0, "carried the plan", "")
	c.wantEnv(gitEnv, []string{"finish", "wt", "--merge"}, 0, "Merged ralph/wt into main", "")
	if data, _ := os.ReadFile(filepath.Join(repo, "PLAN.md")); string(data) != "# Plan\n\n- [x] T1: one\n- [x] T2: two\n" {
		t.Errorf("main's checkout has the plan %q, want the loop's ticked one", data)
	}
	if got := c.git(repo, "status", "--porcelain", "--untracked-files=no"); got != "" {
		t.Errorf("main's checkout is left with changes: %q", got)
	}

	// A second loop, whose plan the person edited in the checkout meanwhile.
	plan2 := "- [ ] T3: three\n"
	if err := os.WriteFile(filepath.Join(repo, "NEXT.md"), []byte(plan2), 0o644); err != nil {
		t.Fatal(err)
	}
	agent2 := `sed -i "s/- \[ \]/- [x]/" NEXT.md; echo more >> work; exit 0`
	c.wantEnv(gitEnv, []string{"run", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "wt2", "--worktree", "--commit", "--restart-delay", "0",
		"--tasks", filepath.Join(repo, "NEXT.md"), "--prompt-mode", "arg", "--max-iterations", "2", "--", "sh", "-c", agent2}, 0, "carried the plan", "")
	edited := "- [ ] T3: three, and the person's word on it\n"
	if err := os.WriteFile(filepath.Join(repo, "NEXT.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	before := c.git(repo, "rev-parse", "main")
	c.wantEnv(gitEnv, []string{"finish", "wt2", "--merge"}, 1, "Loop wt2", "NEXT.md in "+repo+" is not tracked and differs from the one ralph/wt2 adds")
	if data, _ := os.ReadFile(filepath.Join(repo, "NEXT.md")); string(data) != edited {
		t.Errorf("the person's untracked NEXT.md became %q", data)
	}
	if after := c.git(repo, "rev-parse", "main"); after != before {
		t.Errorf("main moved: %s -> %s", before, after)
	}
}
