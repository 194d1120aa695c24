package watch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/between"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// argAgent loops a shell script that gets the prompt as its first argument.
func (h *harness) argAgent(script string) {
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.Command = []string{"/bin/sh", "-c", script, "agent"}
	h.cfg.CheckTimeout = 30 * time.Second
	h.cfg.CheckOutputChars = 5000
	h.cfg.CheckFailAction = watch.FailAppend
}

func (h *harness) file(name string) string {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.srv.Dir, name))
	if err != nil {
		h.t.Fatalf("%v; output:\n%s", err, h.out.String())
	}
	return string(data)
}

// wantRan fails the test unless the iterations that ran, as the agent
// wrote them to the file ran, are want.
func (h *harness) wantRan(want string) {
	h.t.Helper()
	if got := h.file("ran"); got != want {
		h.t.Errorf("iterations run: %q, want %q", got, want)
	}
}

func (h *harness) iterationsLog() string {
	data, _ := os.ReadFile(h.store.Path(state.LogFile))
	return string(data)
}

// gitInit makes the harness folder a git repository with one commit.
func (h *harness) gitInit() {
	h.t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		h.t.Skip("git not installed")
	}
	if err := os.WriteFile(filepath.Join(h.srv.Dir, ".gitignore"), []byte("state/\nhome/\ntmp/\n*.script\n"), 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.git("init", "-q", "-b", "main")
	h.git("add", "-A")
	h.git("commit", "-q", "-m", "start")
}

func (h *harness) git(args ...string) string {
	h.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = h.srv.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		h.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestFailedChecksFeedTheNextPromptAndHoldBackTheDoneSignal(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go\n", nil)
	// Every iteration claims to be done; the check passes from iteration 2 on.
	h.argAgent(`printf %s "$1" > prompt-$RALPH_ITERATION; [ "$RALPH_ITERATION" -ge 2 ] && touch fixed; echo RALPH_DONE`)
	h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE`)
	h.cfg.MaxIterations = 5
	check := `test -f fixed || { echo "FAIL: not fixed yet"; exit 1; }`
	h.cfg.Checks = []between.Check{{Command: "echo fine"}, {Command: check, Hint: "create the file named fixed"}}
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitDone, "done_pattern")
	log := h.store.Path("checks/1-test-f-fixed-echo-fail-not-fixed-yet-exi.log")
	want := "go\n\nCheck \"test -f fixed || { echo \"FAIL: not fixed yet\"; exit 1; }\" failed with exit code 1.\n" +
		"Hint: create the file named fixed\nOutput file: " + log + "\nFAIL: not fixed yet"
	if got := h.file("prompt-2"); got != want {
		t.Errorf("prompt of iteration 2:\n%q\nwant\n%q", got, want)
	}
	if got := h.file("prompt-1"); got != "go\n" {
		t.Errorf("prompt of iteration 1: %q", got)
	}
	if data, err := os.ReadFile(log); err != nil || string(data) != "FAIL: not fixed yet\n" {
		t.Errorf("check log: %q, %v", data, err)
	}
	st := h.state()
	if len(st.Checks) != 2 || st.Checks[0].Iteration != 1 || st.Checks[0].Results[1].Passed || !st.Checks[1].Results[1].Passed ||
		st.Checks[0].Results[1].Hint != "create the file named fixed" || st.Checks[0].Results[1].Log != log {
		t.Errorf("checks in state: %+v", st.Checks)
	}
	h.wantOutput(`[ralph] test: check "test -f fixed`, "[ralph] test: iteration 1 checks: 1 of 2 checks passed",
		"done signal ignored: not all checks passed", "[ralph] test: iteration 2 checks: 2 of 2 checks passed", "done pattern matched, stopping loop")
	h.wantLogged(`[CHECK] iteration 1 pass exit=0 duration=0s check="echo fine"`, `[CHECK] iteration 1 fail exit=1`,
		"[CHECK] iteration 1 done signal rejected", `[CHECK] iteration 2 pass exit=0 duration=0s check="test -f fixed`)
}

func TestFailActionsAndTruncationShapeTheNextPrompt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ action, want string }{
		{watch.FailAppend, "go {{other}}\n\nCheck \"seq 1 1000; exit 2\" failed with exit code 2.\nOutput file: LOG\n" + between.Truncated + "\n\n999\n1000"},
		{watch.FailPrepend, "Check \"seq 1 1000; exit 2\" failed with exit code 2.\nOutput file: LOG\n" + between.Truncated + "\n\n999\n1000\n\ngo {{other}}"},
		{watch.FailReplace, "Check \"seq 1 1000; exit 2\" failed with exit code 2.\nOutput file: LOG\n" + between.Truncated + "\n\n999\n1000"},
	} {
		t.Run(tc.action, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, "go {{other}}", nil)
			h.argAgent(`printf %s "$1" > prompt-$RALPH_ITERATION`)
			h.cfg.MaxIterations = 2
			h.cfg.Checks = []between.Check{{Command: "seq 1 1000; exit 2"}}
			h.cfg.CheckFailAction = tc.action
			h.cfg.CheckOutputChars = 9
			res := h.run(60 * time.Second)
			h.wantResult(res, words.ExitDone, "max_iterations")
			want := strings.ReplaceAll(tc.want, "LOG", h.store.Path("checks/1-seq-1-1000-exit-2.log"))
			if got := h.file("prompt-2"); got != want {
				t.Errorf("prompt of iteration 2:\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestPlaceholdersAndTheIterationCount(t *testing.T) {
	t.Parallel()
	prompt := "it={{iteration}} max={{max_iterations}} left={{remaining}} name={{name}} fail=[{{check_failures}}] {{unknown}} {{ iteration }} {iteration}\n"
	h := newHarness(t, prompt, nil)
	h.argAgent(`printf %s "$1" > prompt-$RALPH_ITERATION`)
	h.cfg.MaxIterations = 2
	h.cfg.IncludeIterationCount = true
	h.cfg.Checks = []between.Check{{Command: `[ "$RALPH_ITERATION" = 2 ] || { echo no; exit 1; }`}}
	h.run(60 * time.Second)
	if got, want := h.file("prompt-1"), "Iteration 1 of 2, 1 remaining.\n\nit=1 max=2 left=1 name=test fail=[] {{unknown}} {{ iteration }} {iteration}\n"; got != want {
		t.Errorf("prompt 1:\n%q\nwant\n%q", got, want)
	}
	log := h.store.Path("checks/1-ralph-iteration-2-echo-no-exit-1.log")
	want := "Iteration 2 of 2, 0 remaining.\n\nit=2 max=2 left=0 name=test fail=[Check \"[ \"$RALPH_ITERATION\" = 2 ] || { echo no; exit 1; }\" failed with exit code 1.\nOutput file: " + log + "\nno] {{unknown}} {{ iteration }} {iteration}\n"
	if got := h.file("prompt-2"); got != want {
		t.Errorf("prompt 2:\n%q\nwant\n%q", got, want)
	}
}

func TestHooksGetTheLoopsEnvironmentAndNeverStopIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.argAgent(`exit 0`)
	h.cfg.MaxIterations = 2
	h.cfg.OnIterationEnd = `env | grep ^RALPH_ | sort > "hook-$RALPH_ITERATION"; echo hook output; exit 5`
	h.cfg.OnDone = `env | grep ^RALPH_ | sort > done-hook`
	h.cfg.OnFail = `touch fail-hook`
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitDone, "max_iterations")
	root := filepath.Dir(h.store.Dir)
	for _, i := range []string{"1", "2"} {
		env := h.file("hook-" + i)
		for _, kv := range []string{"RALPH_NAME=test", "RALPH_ITERATION=" + i, "RALPH_EXIT_CODE=0", "RALPH_REASON=exit", "RALPH_STATE_DIR=" + root} {
			if !strings.Contains(env, kv+"\n") {
				t.Errorf("hook %s environment lacks %s:\n%s", i, kv, env)
			}
		}
	}
	env := h.file("done-hook")
	for _, kv := range []string{"RALPH_EXIT_CODE=0", "RALPH_REASON=max_iterations", "RALPH_ITERATION=2"} {
		if !strings.Contains(env, kv+"\n") {
			t.Errorf("on-done environment lacks %s:\n%s", kv, env)
		}
	}
	if _, err := os.Stat(filepath.Join(h.srv.Dir, "fail-hook")); err == nil {
		t.Error("on-fail ran for a loop that ended done")
	}
	h.wantLogged("[HOOK] iteration 2 on-iteration-end failed exit=5")
	hooks, _ := os.ReadFile(h.store.Path(state.OnCommandsLog))
	if strings.Count(string(hooks), "hook output\n") != 2 {
		t.Errorf("hooks.log:\n%s", hooks)
	}
	h.wantOutput("ralph-watch: warning: on-iteration-end hook failed (exit=5)")
}

func TestCommitAfterPassingChecksAndTheProgressFile(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.gitInit()
	h.argAgent(`echo "$RALPH_ITERATION" > "work-$RALPH_ITERATION"`)
	h.cfg.MaxIterations = 3
	h.cfg.Commit = true
	h.cfg.ProgressFile = filepath.Join(h.srv.Dir, "progress.md")
	h.cfg.Checks = []between.Check{{Command: `[ "$RALPH_ITERATION" != 1 ]`}}
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitDone, "max_iterations")
	if got := h.git("log", "--format=%s"); got != "ralph test: iteration 3\nralph test: iteration 2\nstart\n" {
		t.Errorf("commits:\n%s", got)
	}
	if got := h.git("show", "--name-only", "--format=", "HEAD~1"); got != "progress.md\nwork-1\nwork-2\n" {
		t.Errorf("iteration 2 committed:\n%s", got)
	}
	if got := h.git("log", "-1", "--format=%b"); got != "Checks: 1 of 1 checks passed: [ \"$RALPH_ITERATION\" != 1 ].\n\n" {
		t.Errorf("commit message body: %q", got)
	}
	if st := h.git("status", "--porcelain"); st != "" {
		t.Errorf("left uncommitted after the loop: %q", st)
	}
	progress := h.file("progress.md")
	for _, s := range []string{"## Iteration 1\n\n- Started: ", "- Exit: 0\n- Ended by: exit\n- Checks: 0 of 1 checks passed\n  - fail (exit 1): `[ \"$RALPH_ITERATION\" != 1 ]`\n\n## Iteration 2\n", "## Iteration 3\n"} {
		if !strings.Contains(progress, s) {
			t.Errorf("progress file lacks %q:\n%s", s, progress)
		}
	}
}

func TestCommitOutsideGitOnlyWarns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.argAgent(`touch work`)
	h.cfg.MaxIterations = 2
	h.cfg.Commit = true
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitDone, "max_iterations")
	if n := strings.Count(h.out.String(), "ralph-watch: warning: --commit: "+h.srv.Dir+" is not in a git repository"); n != 1 {
		t.Errorf("%d warnings; output:\n%s", n, h.out.String())
	}
}

func TestAStalledLoopStopsWithReasonStalled(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.gitInit()
	// Only the first iteration changes anything; later ones rewrite the same content.
	h.argAgent(`echo same > work; [ "$RALPH_ITERATION" = 1 ] && echo first > other; exit 0`)
	h.cfg.MaxIterations = 10
	h.cfg.StallLimit = 2
	h.cfg.OnFail = `echo "$RALPH_EXIT_CODE $RALPH_REASON" > fail-hook`
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitFailed, "stalled")
	st := h.state()
	if st.CurrentIteration != 3 || st.Status != state.Failed || st.UnchangedIterations != 2 {
		t.Errorf("state: iteration %d status %s unchanged %d", st.CurrentIteration, st.Status, st.UnchangedIterations)
	}
	if got := h.file("fail-hook"); got != "1 stalled\n" {
		t.Errorf("on-fail hook saw %q", got)
	}
	h.wantOutput("[ralph] test: iteration 2 changed nothing (1/2)", "[ralph] test: 2 iterations in a row changed nothing, stopping loop")
}

func TestCommittingIsProgressButAnUnchangedTreeIsNot(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.gitInit()
	// Iterations 1 and 2 change files and commit them; 3 and 4 do nothing.
	h.argAgent(`[ "$RALPH_ITERATION" -le 2 ] && echo "$RALPH_ITERATION" > work && git add -A && git commit -qm "$RALPH_ITERATION"; exit 0`)
	h.cfg.MaxIterations = 10
	h.cfg.StallLimit = 2
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitFailed, "stalled")
	if st := h.state(); st.CurrentIteration != 4 {
		t.Errorf("stalled at iteration %d, want 4\n%s", st.CurrentIteration, h.out.String())
	}
}

func TestExit42PausesTheLoopAndResumeGoesOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.argAgent(`echo "$RALPH_ITERATION" >> ran; [ "$RALPH_ITERATION" = 2 ] && exit 42; exit 0`)
	h.cfg.MaxIterations = 3
	h.cfg.Checks = []between.Check{{Command: "true"}}
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitInterrupted, "paused")
	st := h.state()
	if st.Status != state.Paused || st.CurrentIteration != 2 || st.ConsecutiveFailures != 0 || st.LastIterationEnded == "" || len(st.Checks) != 2 {
		t.Errorf("state after exit 42: %+v", st)
	}
	h.wantOutput("the agent exited 42, pausing loop")
	h.wantLogged("[PAUSE] loop paused reason=agent_exit_42")
	h.resume(words.ExitDone, "max_iterations")
	h.wantRan("1\n2\n3\n")
}

func TestAPauseFilePausesTheLoopAndIsRemoved(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	pause := filepath.Join(h.srv.Dir, "pause")
	h.argAgent("")
	h.cfg.Command = []string{"/bin/sh", "-c", `echo "$RALPH_ITERATION" >> ran; [ "$RALPH_ITERATION" = 2 ] && touch "$0"; sleep 30`, pause}
	h.cfg.CheckEvery = 200 * time.Millisecond
	h.cfg.IterationTimeout = 3 * time.Second // far beyond the monitor's checks: the file is seen mid-iteration
	h.cfg.MaxIterations = 5
	h.cfg.PauseFile = pause
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitInterrupted, "paused")
	if _, err := os.Stat(pause); err == nil {
		t.Error("the pause file is still there")
	}
	st := h.state()
	if st.Status != state.Paused || st.CurrentIteration != 2 || st.LastIterationEnded != "" {
		t.Errorf("state: status %s iteration %d ended %q", st.Status, st.CurrentIteration, st.LastIterationEnded)
	}
	h.wantOutput("pause file " + pause + " found, pausing loop")
	h.wantLogged("[PAUSE] loop paused reason=pause_file")
	// Present before an iteration, it pauses the loop before one starts.
	if err := os.WriteFile(pause, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h.resume(words.ExitInterrupted, "paused")
	h.wantRan("1\n2\n")
}

func TestADoneFileCountsOnlyWithPassingChecks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	done := filepath.Join(h.srv.Dir, "done")
	h.cfg.DoneFile = done
	// Every iteration makes the done file; the check passes from iteration 3.
	h.argAgent("")
	h.cfg.Command = []string{"/bin/sh", "-c", `touch "$0"; exit 0`, done}
	h.cfg.MaxIterations = 5
	h.cfg.Checks = []between.Check{{Command: `[ "$RALPH_ITERATION" -ge 3 ]`}}
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitDone, "done_file")
	if st := h.state(); st.CurrentIteration != 3 {
		t.Errorf("done at iteration %d, want 3\n%s", st.CurrentIteration, h.out.String())
	}
	if n := strings.Count(h.iterationsLog(), "done signal rejected"); n != 2 {
		t.Errorf("%d rejections:\n%s", n, h.iterationsLog())
	}
}
