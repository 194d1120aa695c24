package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// pullRequest is a loop "wt" that ran two iterations in its worktree
// (agent the loop's command), its branch pushed to a local bare remote
// and a pull request opened by a scripted gh. That gh answers from files
// in dir, picking NAME-HEAD over NAME where HEAD is the remote branch's
// commit (so a look after a push sees the new commit's checks), and logs
// each call in dir/calls.
type pullRequest struct {
	c                    *cli
	repo, tree, bare, gh string
	env                  []string
	head                 string // the remote branch's commit after finish --pr
}

func (c *cli) pullRequest(agent string, flags ...string) *pullRequest {
	c.t.Helper()
	return c.pullRequestOf(map[string]string{"README": "repo\n", "work": "start\n"}, agent, flags...)
}

// pullRequestOf is pullRequest from a repository of files.
func (c *cli) pullRequestOf(files map[string]string, agent string, flags ...string) *pullRequest {
	c.t.Helper()
	p := &pullRequest{c: c}
	p.repo = c.gitRepo(files)
	args := append([]string{"run", "-S", c.srv.Socket, "-t", c.pane(p.repo), "--name", "wt", "--worktree", "--commit", "--restart-delay", "0",
		"--check-output-chars", "200", "--prompt-mode", "arg", "--max-iterations", "2"}, flags...)
	c.wantEnv(gitEnv, append(args, "--", "sh", "-c", agent), 0, "created worktree", "")
	p.tree = filepath.Join(p.repo, ".ralph", "worktrees", "wt")
	p.bare = filepath.Join(c.srv.Dir, "remote.git")
	c.git(c.srv.Dir, "init", "-q", "--bare", p.bare)
	c.git(p.repo, "remote", "add", "origin", p.bare)
	p.gh = filepath.Join(c.srv.Dir, "gh")
	bin := filepath.Join(c.srv.Dir, "fakebin")
	for _, d := range []string{p.gh, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			c.t.Fatal(err)
		}
	}
	script := `#!/bin/sh
d=` + p.gh + `
printf '%s\n' "$*" >> "$d/calls"
head=$(git --git-dir=` + p.bare + ` rev-parse -q --verify refs/heads/ralph/wt)
pick() { if [ -f "$d/$1-$head" ]; then cat "$d/$1-$head"; else cat "$d/$1"; fi; }
case "$1 $2" in
"pr create") echo https://github.com/o/r/pull/12 ;;
"pr view") pick view ;;
"pr checks") pick checks ;;
"api "*) pick comments ;;
"run view") cat "$d/log-$3" ;;
*) echo "gh: not scripted: $*" >&2; exit 1 ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		c.t.Fatal(err)
	}
	p.env = append([]string{"PATH=" + bin + ":" + os.Getenv("PATH")}, gitEnv...)
	p.answer("comments", "[]")
	c.wantEnv(p.env, []string{"finish", "wt", "--pr"}, 0, "opened a pull request into main: https://github.com/o/r/pull/12", "")
	p.head = strings.TrimSpace(c.git(p.bare, "rev-parse", "ralph/wt"))
	return p
}

// answer is what gh answers for name (view, checks, comments, log-RUN),
// for the remote's commit head when one is given.
func (p *pullRequest) answer(name, text string, head ...string) {
	p.c.t.Helper()
	if len(head) > 0 {
		name += "-" + head[0]
	}
	if err := os.WriteFile(filepath.Join(p.gh, name), []byte(text), 0o644); err != nil {
		p.c.t.Fatal(err)
	}
}

func (p *pullRequest) calls() string {
	data, _ := os.ReadFile(filepath.Join(p.gh, "calls"))
	return string(data)
}

func (p *pullRequest) follow() *state.Follow {
	p.c.t.Helper()
	data, err := os.ReadFile(filepath.Join(p.c.srv.Dir, "state", "wt", "follow.json"))
	if err != nil {
		p.c.t.Fatal(err)
	}
	var f state.Follow
	if err := json.Unmarshal(data, &f); err != nil {
		p.c.t.Fatal(err)
	}
	return &f
}

func (p *pullRequest) prompt() string {
	data, _ := os.ReadFile(filepath.Join(p.c.srv.Dir, "state", "wt", "prompt.txt"))
	return string(data)
}

const (
	viewApproved = `{"state":"OPEN","reviewDecision":"APPROVED","mergeable":"MERGEABLE","baseRefName":"main","reviews":[],"comments":[]}`
	viewRequired = `{"state":"OPEN","reviewDecision":"REVIEW_REQUIRED","mergeable":"MERGEABLE","baseRefName":"main","reviews":[],"comments":[]}`
	checksGreen  = `[{"name":"test","workflow":"ci","state":"SUCCESS","bucket":"pass","link":"https://github.com/o/r/actions/runs/556/job/2"}]`
	agentLines   = `echo "line $RALPH_ITERATION" >> work; exit 0`
)

func checksFailed(run string) string {
	return `[{"name":"test","workflow":"ci","state":"FAILURE","bucket":"fail","link":"https://github.com/o/r/actions/runs/` + run + `/job/1"},` +
		`{"name":"lint","workflow":"ci","state":"SUCCESS","bucket":"pass","link":"https://github.com/o/r/actions/runs/` + run + `/job/3"}]`
}

const failedLog = "test\tSet up job\tstarting\ntest\tRun go test\t--- FAIL: TestWork (0.01s)\ntest\tRun go test\t    work_test.go:7: work has no line 3\ntest\tRun go test\tFAIL\n"

// CI fails once: the fix round's prompt holds the check's workflow, job,
// step and log; its commit is pushed; CI then passes and a reviewer
// approves: the loop ends pr_ready, exit 0.
func TestFollowFeedsAFailedCheckBackPushesTheFixAndEndsPRReady(t *testing.T) {
	c := newCLI(t)
	p := c.pullRequest(agentLines)
	p.answer("checks", checksFailed("555"), p.head)
	p.answer("view", viewRequired, p.head)
	p.answer("log-555", failedLog)
	p.answer("checks", checksGreen)
	p.answer("view", viewApproved)
	told := filepath.Join(c.srv.Dir, "told")
	c.srv.Must("set", "-g", "@ralph-notify-command", `printf '%s\n' "$RALPH_MESSAGE" >> `+told)
	out := c.wantEnv(p.env, []string{"follow", "wt", "--follow-interval", "100ms"}, 0, "pull request #12 is ready: 1 checks green, approved", "")
	tmuxtest.Eventually(t, 10*time.Second, "the person to be told the pull request is ready", func() bool {
		data, _ := os.ReadFile(told)
		return strings.Contains(string(data), "[ralph] wt: pull request #12 is ready: 1 checks green, approved\n")
	})
	for _, want := range []string{"[PR] round 1/3: failed check ci / test\n", "[PR] round 1 pushed "} {
		if !strings.Contains(out, want) {
			t.Errorf("follow's output lacks %q:\n%s", want, out)
		}
	}
	prompt := p.prompt()
	for _, want := range []string{
		"The pull request #12 (https://github.com/o/r/pull/12) needs more work: failed check ci / test.",
		"### Failed check: workflow ci, job test, step Run go test\n",
		"    work_test.go:7: work has no line 3\nFAIL\n```",
	} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the fix iteration's prompt lacks %q:\n%s", want, prompt)
		}
	}
	if got := c.git(p.bare, "log", "--format=%s", "ralph/wt"); got != "ralph wt: iteration 3\nralph wt: iteration 2\nralph wt: iteration 1\nstart\n" {
		t.Errorf("the pull request's branch:\n%s", got)
	}
	st := c.state("wt")
	if st.ExitReason == nil || *st.ExitReason != "pr_ready" || st.CurrentIteration != 3 {
		t.Errorf("the loop ended %v at iteration %d, want pr_ready at 3", st.ExitReason, st.CurrentIteration)
	}
	f := p.follow()
	if len(f.Rounds) != 1 || f.Rounds[0].State != state.RoundPushed || f.Ended != "pr_ready" || !strings.Contains(strings.Join(f.Handled, " "), "run:555/job:1") {
		t.Errorf("follow.json: %+v", f)
	}
	if log := c.log("wt"); !strings.Contains(log, "[PR] round 1/3: failed check ci / test") || !strings.Contains(log, "[PR] pull request #12 is ready") {
		t.Errorf("iterations.log lacks the [PR] lines:\n%s", log)
	}
	if calls := p.calls(); !strings.Contains(calls, "run view 555 -R o/r --log-failed\n") || !strings.Contains(calls, "api repos/o/r/pulls/12/comments --paginate\n") {
		t.Errorf("gh was called as:\n%s", calls)
	}
	c.want([]string{"status", "wt"}, 0, "Pull request: #12 ✓", "")
	if line := c.srv.Must("show-options", "-p", "-t", c.state("wt").PaneID, "-v", "@ralph-status"); !strings.Contains(line, "PR #12 ✓") {
		t.Errorf("the status line shows %q, want the pull request's PR #12 ✓", line)
	}
	page := filepath.Join(c.srv.Dir, "wt.html")
	c.want([]string{"report", "wt", "-o", page}, 0, "", "")
	if html, _ := os.ReadFile(page); !strings.Contains(string(html), "<h2>Pull request</h2>") || !strings.Contains(string(html), "<td>1</td><td>3</td><td>failed check ci / test</td><td>pushed</td>") {
		t.Errorf("the report lacks the rounds:\n%s", html)
	}
	// Followed again, the pull request still ready: nothing is done twice.
	c.wantEnv(p.env, []string{"follow", "wt", "--follow-interval", "100ms"}, 0, "is ready", "")
	if f := p.follow(); len(f.Rounds) != 1 {
		t.Errorf("a second follow ran another round: %+v", f.Rounds)
	}
}

// A review with two comments on two files is one round, both in its note;
// an outsider's comment is not given to the agent.
func TestFollowGivesTwoReviewCommentsInOneNoteAndIgnoresAnOutsider(t *testing.T) {
	c := newCLI(t)
	p := c.pullRequest(agentLines)
	p.answer("checks", checksGreen)
	p.answer("view", `{"state":"OPEN","reviewDecision":"CHANGES_REQUESTED","mergeable":"MERGEABLE","baseRefName":"main",
"reviews":[{"id":"PRR_1","author":{"login":"rev"},"authorAssociation":"MEMBER","state":"CHANGES_REQUESTED","body":"two things"}],
"comments":[{"id":"IC_9","author":{"login":"drive-by"},"authorAssociation":"NONE","body":"SECRET-OUTSIDER-WORDS"}]}`, p.head)
	p.answer("comments", `[{"id":101,"path":"work","line":2,"user":{"login":"rev"},"author_association":"MEMBER","body":"say why here"},
{"id":102,"path":"docs/a.md","line":9,"user":{"login":"rev"},"author_association":"COLLABORATOR","body":"spell it out"}]`)
	p.answer("view", viewApproved)
	c.wantEnv(p.env, []string{"follow", "wt", "--follow-interval", "100ms"}, 0, "is ready", "")
	prompt := p.prompt()
	for _, want := range []string{"3 review comments", "- @rev (review, changes requested):\n  > two things\n", "- work:2, @rev:\n  > say why here\n", "- docs/a.md:9, @rev:\n  > spell it out\n"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the fix iteration's prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "SECRET-OUTSIDER-WORDS") {
		t.Errorf("an outsider's comment reached the agent:\n%s", prompt)
	}
	if f := p.follow(); len(f.Rounds) != 1 {
		t.Errorf("rounds %+v, want one", f.Rounds)
	}
}

// CI fails again after every round: --follow-rounds 1 ends it, exit 3.
func TestFollowRoundsReachedEndsFollowRoundsExit3(t *testing.T) {
	c := newCLI(t)
	p := c.pullRequest(agentLines)
	p.answer("view", viewApproved)
	p.answer("checks", checksFailed("555"), p.head)
	p.answer("checks", checksFailed("600"))
	p.answer("log-555", failedLog)
	p.answer("log-600", failedLog)
	c.wantEnv(p.env, []string{"follow", "wt", "--follow-interval", "100ms", "--follow-rounds", "1"}, 3, "", "1 rounds of fixes and still failed check ci / test")
	if st := c.state("wt"); st.ExitReason == nil || *st.ExitReason != "follow_rounds" {
		t.Errorf("the loop ended %v, want follow_rounds", st.ExitReason)
	}
	if line := c.srv.Must("show-options", "-p", "-t", c.state("wt").PaneID, "-v", "@ralph-status"); !strings.Contains(line, "PR #12 ✗ ci") {
		t.Errorf("the status line shows %q, want PR #12 ✗ ci", line)
	}
	c.want([]string{"status", "wt"}, 0, "  Rounds of fixes: 1/1; 1 (iteration 3, pushed): failed check ci / test\n", "")
}

// A person force-pushes the branch: the round's push is refused, never
// forced, and follow stops, exit 1; the person's commit stays.
func TestFollowStopsWhenAPersonForcePushedTheBranch(t *testing.T) {
	c := newCLI(t)
	p := c.pullRequest(agentLines)
	clone := filepath.Join(c.srv.Dir, "person")
	c.git(c.srv.Dir, "clone", "-q", "--branch", "ralph/wt", p.bare, clone)
	c.git(clone, "reset", "-q", "--hard", "HEAD~1")
	c.git(clone, "commit", "-q", "--allow-empty", "-m", "the person's own")
	c.git(clone, "push", "-q", "--force", "origin", "ralph/wt")
	mine := c.git(p.bare, "rev-parse", "ralph/wt")
	p.answer("view", viewApproved)
	p.answer("checks", checksFailed("555"))
	p.answer("log-555", failedLog)
	c.wantEnv(p.env, []string{"follow", "wt", "--follow-interval", "100ms"}, 1, "", "the branch moved on origin (someone pushed to it); follow stops")
	if got := c.git(p.bare, "rev-parse", "ralph/wt"); got != mine {
		t.Errorf("the person's push was overwritten: %s, was %s", got, mine)
	}
	if f := p.follow(); f.Ended != "push_refused" {
		t.Errorf("follow.json ended %q", f.Ended)
	}
}

// follow killed while the round's iteration runs, then started again by
// restore: it waits for that round, pushes it once, and acts on nothing twice.
func TestFollowKilledMidRoundAndStartedAgainPushesOnce(t *testing.T) {
	c := newCLI(t)
	p := c.pullRequest(`echo "line $RALPH_ITERATION" >> work; [ "$RALPH_ITERATION" -lt 3 ] || sleep 3; exit 0`)
	p.answer("checks", checksFailed("555"), p.head)
	p.answer("view", viewApproved)
	p.answer("log-555", failedLog)
	p.answer("checks", checksGreen)
	cmd := c.command(p.env, "follow", "wt", "--follow-interval", "100ms")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.until("wt", "the round's iteration to run", func(st *state.State) bool { return st.CurrentIteration == 3 && st.Status == state.Running })
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	// restore starts following again, in the background, as it last ran;
	// a second follow meanwhile is refused.
	c.wantEnv(p.env, []string{"restore"}, 0, "following the pull request of wt again (#12, pid ", "")
	store, err := state.Open(filepath.Join(c.srv.Dir, "state"), "wt")
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.Eventually(t, 10*time.Second, "the restored follow to hold the loop", store.Followed)
	if p.follow().Ended == "" { // still at work (its round's agent sleeps)
		c.wantEnv(p.env, []string{"follow", "wt"}, 1, "", "the pull request of wt is already followed")
	}
	tmuxtest.Eventually(t, 60*time.Second, "the restored follow to end", func() bool { return p.follow().Ended == "pr_ready" })
	c.wantEnv(p.env, []string{"restore", "--dry-run"}, 0, "", "")
	if got := c.git(p.bare, "log", "--format=%s", "ralph/wt"); got != "ralph wt: iteration 3\nralph wt: iteration 2\nralph wt: iteration 1\nstart\n" {
		t.Errorf("the pull request's branch:\n%s", got)
	}
	log := c.log("wt")
	if n := strings.Count(log, "[PR] round 1 pushed"); n != 1 {
		t.Errorf("round 1 pushed %d times:\n%s", n, log)
	}
	if n := strings.Count(log, "[PR] round "); n != 2 { // its start and its push
		t.Errorf("rounds in the log:\n%s", log)
	}
	if n := strings.Count(p.calls(), "run view 555"); n != 1 {
		t.Errorf("the failed log was fetched %d times", n)
	}
	tmuxtest.Eventually(t, 10*time.Second, "the loop to be left ended", func() bool { return c.state("wt").Status != state.Running })
}

// A loop that ended done (its done pattern) is resumed for the round all
// the same; finish --follow goes only with --pr.
func TestFollowResumesALoopThatEndedDone(t *testing.T) {
	c := newCLI(t)
	p := c.pullRequest(`echo "line $RALPH_ITERATION" >> work; [ "$RALPH_ITERATION" -lt 2 ] || echo ALL_DONE; exit 0`, "--done-pattern", "ALL_DONE", "--max-iterations", "5")
	if st := c.state("wt"); st.ExitReason == nil || *st.ExitReason != "done_pattern" {
		t.Fatalf("the loop ended %v, want done_pattern", st.ExitReason)
	}
	p.answer("checks", checksFailed("555"), p.head)
	p.answer("view", viewApproved)
	p.answer("log-555", failedLog)
	p.answer("checks", checksGreen)
	c.wantEnv(p.env, []string{"follow", "wt", "--follow-interval", "100ms"}, 0, "is ready", "")
	if got := c.git(p.bare, "log", "-1", "--format=%s", "ralph/wt"); got != "ralph wt: iteration 3\n" {
		t.Errorf("the pull request's branch ends with %s", got)
	}
	if !strings.Contains(p.prompt(), "step Run go test") {
		t.Errorf("the round's prompt:\n%s", p.prompt())
	}
	c.want([]string{"finish", "wt", "--follow"}, 2, "", "it goes with --pr")
}

// finish --pr --follow opens the pull request and follows it; follow
// --detach follows in the background, to the same end.
func TestFinishPRFollowAndFollowDetach(t *testing.T) {
	c := newCLI(t)
	p := c.pullRequest(agentLines)
	p.answer("checks", checksGreen)
	p.answer("view", viewApproved)
	c.wantEnv(p.env, []string{"finish", "wt", "--pr", "--follow", "--follow-interval", "100ms"}, 0, "pull request #12 is ready: 1 checks green, approved", "")
	if st := c.state("wt"); st.ExitReason == nil || *st.ExitReason != "pr_ready" {
		t.Errorf("the loop ended %v, want pr_ready", st.ExitReason)
	}
	c.wantEnv(p.env, []string{"follow", "wt", "--detach", "--follow-interval", "100ms"}, 0, "following the pull request of wt in the background", "")
	store, err := state.Open(filepath.Join(c.srv.Dir, "state"), "wt")
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.Eventually(t, 30*time.Second, "the detached follow to end", func() bool {
		data, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "wt", "follow.log"))
		return strings.Contains(string(data), "is ready") && !store.Followed()
	})
	c.want([]string{"status", "wt"}, 0, "Following ended: pr_ready", "")
	// No gh on PATH: a clear error, nothing done.
	nogh := filepath.Join(c.srv.Dir, "nogh")
	if err := os.Mkdir(nogh, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, program := range []string{"git", "sh"} {
		path, err := exec.LookPath(program)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(path, filepath.Join(nogh, program)); err != nil {
			t.Fatal(err)
		}
	}
	c.wantEnv(append([]string{"PATH=" + nogh}, gitEnv...), []string{"follow", "wt"}, 1, "", "gh is not installed or not on PATH: install GitHub's gh and log in with 'gh auth login'")
	if f := p.follow(); f.Ended != "pr_ready" {
		t.Errorf("a follow that could not run gh left follow.json ended %q", f.Ended)
	}
}

// main moved on the remote and conflicts with the branch: the round's
// note names the file; ralph-watch rebases nothing itself.
func TestFollowNamesTheFilesOfAConflictWithTheBase(t *testing.T) {
	c := newCLI(t)
	p := c.pullRequest(agentLines)
	if err := os.WriteFile(filepath.Join(p.repo, "work"), []byte("start\nmain's own line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.git(p.repo, "commit", "-q", "-am", "main changed work")
	c.git(p.repo, "push", "-q", "origin", "main")
	before := c.git(p.repo, "rev-parse", "main")
	p.answer("checks", checksGreen)
	p.answer("view", strings.Replace(viewApproved, "MERGEABLE", "CONFLICTING", 1), p.head)
	p.answer("view", viewApproved)
	c.wantEnv(p.env, []string{"follow", "wt", "--follow-interval", "100ms"}, 0, "[PR] round 1/3: a conflict with the base in work\n", "")
	if !strings.Contains(p.prompt(), "### Conflict with main\nThe branch conflicts with main in: work.") {
		t.Errorf("the round's prompt:\n%s", p.prompt())
	}
	if after := c.git(p.repo, "rev-parse", "main"); after != before {
		t.Errorf("main moved: %s -> %s", before, after)
	}
}

// A loop whose plan is all done is resumed for the round: its iteration
// runs with the note (no task left to give it), then the plan ends it.
func TestFollowRoundOfALoopWhosePlanIsDone(t *testing.T) {
	c := newCLI(t)
	files := map[string]string{"README": "repo\n", "work": "start\n", "PLAN.md": "# Plan\n\n- [ ] T1: one\n- [ ] T2: two\n"}
	agent := `sed -i "0,/- \[ \]/s//- [x]/" PLAN.md; echo "line $RALPH_ITERATION" >> work; exit 0`
	p := c.pullRequestOf(files, agent, "--tasks", filepath.Join(c.srv.Dir, "repo", "PLAN.md"), "--max-iterations", "4")
	if st := c.state("wt"); st.ExitReason == nil || *st.ExitReason != "tasks_done" || st.CurrentIteration != 2 {
		t.Fatalf("the loop ended %v at %d, want tasks_done at 2", st.ExitReason, st.CurrentIteration)
	}
	p.answer("checks", checksFailed("555"), p.head)
	p.answer("view", viewApproved)
	p.answer("log-555", failedLog)
	p.answer("checks", checksGreen)
	c.wantEnv(p.env, []string{"follow", "wt", "--follow-interval", "100ms"}, 0, "is ready", "")
	if got := c.git(p.bare, "log", "-1", "--format=%s", "ralph/wt"); got != "ralph wt: iteration 3\n" {
		t.Errorf("the pull request's branch ends with %s", got)
	}
	if !strings.Contains(p.prompt(), "step Run go test") {
		t.Errorf("the round's prompt:\n%s", p.prompt())
	}
	if st := c.state("wt"); st.CurrentIteration != 3 {
		t.Errorf("the loop ran to iteration %d, want 3", st.CurrentIteration)
	}
}
