package watch_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/prompt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// The loop's work between iterations (checks, hooks, commits, the progress
// file, the pause and done files, exit 42) on the in-memory tmux, with an
// agent that is a shell script: what runs between iterations is real, the
// pane is not.

// argAgent loops a shell script that gets the prompt as its first
// argument and exits with the script.
func (u *unit) argAgent(script string) {
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.CheckTimeout = 30 * time.Second
	u.cfg.CheckOutputChars = 5000
	u.cfg.CheckFailAction = prompt.FailAppend
	u.launch(func(int) *tmuxfake.Program { return u.shell(script, true) })
}

// argAgentStays is argAgent whose agent, its script run, stays until ended.
func (u *unit) argAgentStays(script string) {
	u.argAgent("")
	u.launch(func(int) *tmuxfake.Program { return u.shell(script, false) })
}

// shell runs script with sh in the pane's folder and environment, the
// prompt as $1, shows what it printed and, when exit, exits as it did.
func (u *unit) shell(script string, exit bool) *tmuxfake.Program {
	return &tmuxfake.Program{Start: func(t *tmuxfake.Term) {
		cmd := exec.Command("/bin/sh", "-c", script, "agent", t.Argv[len(t.Argv)-1])
		cmd.Dir, cmd.Env = t.Dir, append(os.Environ(), t.Env...)
		out, err := cmd.CombinedOutput()
		var exited *exec.ExitError
		if err != nil && !errors.As(err, &exited) {
			u.t.Errorf("run the agent's script: %v", err)
		}
		t.Write(string(out))
		if exit {
			t.Exit(cmd.ProcessState.ExitCode())
		}
	}}
}

// file is the text of the file name in the loop's folder.
func (u *unit) file(name string) string {
	u.t.Helper()
	data, err := os.ReadFile(filepath.Join(u.cfg.Dir, name))
	if err != nil {
		u.t.Fatalf("%v; output:\n%s", err, u.out.String())
	}
	return string(data)
}

// wantRan fails the test unless the iterations that ran, as the agent
// wrote them to the file ran, are want.
func (u *unit) wantRan(want string) {
	u.t.Helper()
	if got := u.file("ran"); got != want {
		u.t.Errorf("iterations run: %q, want %q", got, want)
	}
}

func (u *unit) iterationsLog() string { return strings.Join(u.logLines(), "\n") }

// resume runs the paused loop again and checks how it ended.
func (u *unit) resume(code int, reason string) {
	u.t.Helper()
	u.cfg.Resume = true
	u.wantResult(u.run(), code, reason)
}

func (u *unit) gitInit() { gitInit(u.t, u.cfg.Dir) }

func (u *unit) git(args ...string) string { return git(u.t, u.cfg.Dir, args...) }

func TestUnitFailedChecksFeedTheNextPromptAndHoldBackTheDoneSignal(t *testing.T) {
	u := newUnit(t, "go\n", nil)
	// Every iteration claims to be done; the check passes from iteration 2 on.
	u.argAgent(`printf %s "$1" > prompt-$RALPH_ITERATION; [ "$RALPH_ITERATION" -ge 2 ] && touch fixed; echo RALPH_DONE`)
	u.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE`)
	u.cfg.MaxIterations = 5
	check := `test -f fixed || { echo "FAIL: not fixed yet"; exit 1; }`
	u.cfg.Checks = []checks.Check{{Command: "echo fine"}, {Command: check, Hint: "create the file named fixed"}}
	res := u.run()
	u.wantResult(res, contract.ExitDone, "done_pattern")
	log := u.store.Path("checks/1-test-f-fixed-echo-fail-not-fixed-yet-exi.log")
	want := "go\n\nCheck \"test -f fixed || { echo \"FAIL: not fixed yet\"; exit 1; }\" failed with exit code 1.\n" +
		"Hint: create the file named fixed\nOutput file: " + log + "\nFAIL: not fixed yet"
	if got := u.file("prompt-2"); got != want {
		t.Errorf("prompt of iteration 2:\n%q\nwant\n%q", got, want)
	}
	if got := u.file("prompt-1"); got != "go\n" {
		t.Errorf("prompt of iteration 1: %q", got)
	}
	if data, err := os.ReadFile(log); err != nil || string(data) != "FAIL: not fixed yet\n" {
		t.Errorf("check log: %q, %v", data, err)
	}
	st := u.state()
	if len(st.Checks) != 2 || st.Checks[0].Iteration != 1 || st.Checks[0].Results[1].Passed || !st.Checks[1].Results[1].Passed ||
		st.Checks[0].Results[1].Hint != "create the file named fixed" || st.Checks[0].Results[1].Log != log {
		t.Errorf("checks in state: %+v", st.Checks)
	}
	u.wantOutput(`[ralph] unit: check "test -f fixed`, "[ralph] unit: iteration 1 checks: 1 of 2 checks passed",
		"done signal ignored: not all checks passed", "[ralph] unit: iteration 2 checks: 2 of 2 checks passed", "done pattern matched, stopping loop")
	u.wantLog(`[CHECK] iteration 1 pass exit=0 duration=0s check="echo fine"`, `[CHECK] iteration 1 fail exit=1`,
		"[CHECK] iteration 1 done signal rejected", `[CHECK] iteration 2 pass exit=0 duration=0s check="test -f fixed`)
}

func TestUnitFailActionsAndTruncationShapeTheNextPrompt(t *testing.T) {
	for _, tc := range []struct{ action, want string }{
		{prompt.FailAppend, "go {{other}}\n\nCheck \"seq 1 1000; exit 2\" failed with exit code 2.\nOutput file: LOG\n" + checks.Truncated + "\n\n999\n1000"},
		{prompt.FailPrepend, "Check \"seq 1 1000; exit 2\" failed with exit code 2.\nOutput file: LOG\n" + checks.Truncated + "\n\n999\n1000\n\ngo {{other}}"},
		{prompt.FailReplace, "Check \"seq 1 1000; exit 2\" failed with exit code 2.\nOutput file: LOG\n" + checks.Truncated + "\n\n999\n1000"},
	} {
		t.Run(tc.action, func(t *testing.T) {
			u := newUnit(t, "go {{other}}", nil)
			u.argAgent(`printf %s "$1" > prompt-$RALPH_ITERATION`)
			u.cfg.MaxIterations = 2
			u.cfg.Checks = []checks.Check{{Command: "seq 1 1000; exit 2"}}
			u.cfg.CheckFailAction = tc.action
			u.cfg.CheckOutputChars = 9
			res := u.run()
			u.wantResult(res, contract.ExitDone, "max_iterations")
			want := strings.ReplaceAll(tc.want, "LOG", u.store.Path("checks/1-seq-1-1000-exit-2.log"))
			if got := u.file("prompt-2"); got != want {
				t.Errorf("prompt of iteration 2:\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestUnitPlaceholdersAndTheIterationCount(t *testing.T) {
	prompt := "it={{iteration}} max={{max_iterations}} left={{remaining}} name={{name}} fail=[{{check_failures}}] {{unknown}} {{ iteration }} {iteration}\n"
	u := newUnit(t, prompt, nil)
	u.argAgent(`printf %s "$1" > prompt-$RALPH_ITERATION`)
	u.cfg.MaxIterations = 2
	u.cfg.IncludeIterationCount = true
	u.cfg.Checks = []checks.Check{{Command: `[ "$RALPH_ITERATION" = 2 ] || { echo no; exit 1; }`}}
	u.run()
	if got, want := u.file("prompt-1"), "Iteration 1 of 2, 1 remaining.\n\nit=1 max=2 left=1 name=unit fail=[] {{unknown}} {{ iteration }} {iteration}\n"; got != want {
		t.Errorf("prompt 1:\n%q\nwant\n%q", got, want)
	}
	log := u.store.Path("checks/1-ralph-iteration-2-echo-no-exit-1.log")
	want := "Iteration 2 of 2, 0 remaining.\n\nit=2 max=2 left=0 name=unit fail=[Check \"[ \"$RALPH_ITERATION\" = 2 ] || { echo no; exit 1; }\" failed with exit code 1.\nOutput file: " + log + "\nno] {{unknown}} {{ iteration }} {iteration}\n"
	if got := u.file("prompt-2"); got != want {
		t.Errorf("prompt 2:\n%q\nwant\n%q", got, want)
	}
}

func TestUnitHooksGetTheLoopsEnvironmentAndNeverStopIt(t *testing.T) {
	u := newUnit(t, "go", nil)
	u.argAgent(`exit 0`)
	u.cfg.MaxIterations = 2
	u.cfg.OnIterationEnd = `env | grep ^RALPH_ | sort > "hook-$RALPH_ITERATION"; echo hook output; exit 5`
	u.cfg.OnDone = `env | grep ^RALPH_ | sort > done-hook`
	u.cfg.OnFail = `touch fail-hook`
	res := u.run()
	u.wantResult(res, contract.ExitDone, "max_iterations")
	root := filepath.Dir(u.store.Dir)
	for _, i := range []string{"1", "2"} {
		env := u.file("hook-" + i)
		for _, kv := range []string{"RALPH_NAME=unit", "RALPH_ITERATION=" + i, "RALPH_EXIT_CODE=0", "RALPH_REASON=exit", "RALPH_STATE_DIR=" + root} {
			if !strings.Contains(env, kv+"\n") {
				t.Errorf("hook %s environment lacks %s:\n%s", i, kv, env)
			}
		}
	}
	env := u.file("done-hook")
	for _, kv := range []string{"RALPH_EXIT_CODE=0", "RALPH_REASON=max_iterations", "RALPH_ITERATION=2"} {
		if !strings.Contains(env, kv+"\n") {
			t.Errorf("on-done environment lacks %s:\n%s", kv, env)
		}
	}
	if _, err := os.Stat(filepath.Join(u.cfg.Dir, "fail-hook")); err == nil {
		t.Error("on-fail ran for a loop that ended done")
	}
	u.wantLog("[HOOK] iteration 2 on-iteration-end failed exit=5")
	hooks, _ := os.ReadFile(u.store.Path(state.OnCommandsLog))
	if strings.Count(string(hooks), "hook output\n") != 2 {
		t.Errorf("hooks.log:\n%s", hooks)
	}
	u.wantOutput("ralph-watch: warning: on-iteration-end hook failed (exit=5)")
}

func TestUnitCommitAfterPassingChecksAndTheProgressFile(t *testing.T) {
	u := newUnit(t, "go", nil)
	u.gitInit()
	u.argAgent(`echo "$RALPH_ITERATION" > "work-$RALPH_ITERATION"`)
	u.cfg.MaxIterations = 3
	u.cfg.Commit = true
	u.cfg.ProgressFile = filepath.Join(u.cfg.Dir, "progress.md")
	u.cfg.Checks = []checks.Check{{Command: `[ "$RALPH_ITERATION" != 1 ]`}}
	res := u.run()
	u.wantResult(res, contract.ExitDone, "max_iterations")
	if got := u.git("log", "--format=%s"); got != "ralph unit: iteration 3\nralph unit: iteration 2\nstart\n" {
		t.Errorf("commits:\n%s", got)
	}
	if got := u.git("show", "--name-only", "--format=", "HEAD~1"); got != "progress.md\nwork-1\nwork-2\n" {
		t.Errorf("iteration 2 committed:\n%s", got)
	}
	if got := u.git("log", "-1", "--format=%b"); got != "Checks: 1 of 1 checks passed: [ \"$RALPH_ITERATION\" != 1 ].\n\n" {
		t.Errorf("commit message body: %q", got)
	}
	if st := u.git("status", "--porcelain"); st != "" {
		t.Errorf("left uncommitted after the loop: %q", st)
	}
	progress := u.file("progress.md")
	for _, s := range []string{"## Iteration 1\n\n- Started: ", "- Exit: 0\n- Ended by: exit\n- Checks: 0 of 1 checks passed\n  - fail (exit 1): `[ \"$RALPH_ITERATION\" != 1 ]`\n\n## Iteration 2\n", "## Iteration 3\n"} {
		if !strings.Contains(progress, s) {
			t.Errorf("progress file lacks %q:\n%s", s, progress)
		}
	}
}

func TestUnitCommitOutsideGitOnlyWarns(t *testing.T) {
	u := newUnit(t, "go", nil)
	u.argAgent(`touch work`)
	u.cfg.MaxIterations = 2
	u.cfg.Commit = true
	res := u.run()
	u.wantResult(res, contract.ExitDone, "max_iterations")
	if n := strings.Count(u.out.String(), "ralph-watch: warning: --commit: "+u.cfg.Dir+" is not in a git repository"); n != 1 {
		t.Errorf("%d warnings; output:\n%s", n, u.out.String())
	}
}

func TestUnitAStalledLoopStopsWithReasonStalled(t *testing.T) {
	u := newUnit(t, "go", nil)
	u.gitInit()
	// Only the first iteration changes anything; later ones rewrite the same content.
	u.argAgent(`echo same > work; [ "$RALPH_ITERATION" = 1 ] && echo first > other; exit 0`)
	u.cfg.MaxIterations = 10
	u.cfg.StallLimit = 2
	u.cfg.OnFail = `echo "$RALPH_EXIT_CODE $RALPH_REASON" > fail-hook`
	res := u.run()
	u.wantResult(res, contract.ExitFailed, "stalled")
	st := u.state()
	if st.CurrentIteration != 3 || st.Status != state.Failed || st.UnchangedIterations != 2 {
		t.Errorf("state: iteration %d status %s unchanged %d", st.CurrentIteration, st.Status, st.UnchangedIterations)
	}
	if got := u.file("fail-hook"); got != "1 stalled\n" {
		t.Errorf("on-fail hook saw %q", got)
	}
	u.wantOutput("[ralph] unit: iteration 2 changed nothing (1/2)", "[ralph] unit: 2 iterations in a row changed nothing, stopping loop")
}

func TestUnitCommittingIsProgressButAnUnchangedTreeIsNot(t *testing.T) {
	u := newUnit(t, "go", nil)
	u.gitInit()
	// Iterations 1 and 2 change files and commit them; 3 and 4 do nothing.
	u.argAgent(`[ "$RALPH_ITERATION" -le 2 ] && echo "$RALPH_ITERATION" > work && git add -A && git commit -qm "$RALPH_ITERATION"; exit 0`)
	u.cfg.MaxIterations = 10
	u.cfg.StallLimit = 2
	res := u.run()
	u.wantResult(res, contract.ExitFailed, "stalled")
	if st := u.state(); st.CurrentIteration != 4 {
		t.Errorf("stalled at iteration %d, want 4\n%s", st.CurrentIteration, u.out.String())
	}
}

func TestUnitExit42PausesTheLoopAndResumeGoesOn(t *testing.T) {
	u := newUnit(t, "go", nil)
	u.argAgent(`echo "$RALPH_ITERATION" >> ran; [ "$RALPH_ITERATION" = 2 ] && exit 42; exit 0`)
	u.cfg.MaxIterations = 3
	u.cfg.Checks = []checks.Check{{Command: "true"}}
	res := u.run()
	u.wantResult(res, contract.ExitInterrupted, "paused")
	st := u.state()
	if st.Status != state.Paused || st.CurrentIteration != 2 || st.ConsecutiveFailures != 0 || st.LastIterationEnded == "" || len(st.Checks) != 2 {
		t.Errorf("state after exit 42: %+v", st)
	}
	u.wantOutput("the agent exited 42, pausing loop")
	u.wantLog("[PAUSE] loop paused reason=agent_exit_42")
	u.resume(contract.ExitDone, "max_iterations")
	u.wantRan("1\n2\n3\n")
}

func TestUnitAPauseFilePausesTheLoopAndIsRemoved(t *testing.T) {
	u := newUnit(t, "go", nil)
	pause := filepath.Join(u.cfg.Dir, "pause")
	u.simulate() // the monitor's checks come before the iteration timeout
	u.argAgentStays(`echo "$RALPH_ITERATION" >> ran; [ "$RALPH_ITERATION" = 2 ] && touch ` + shQuote(pause))
	u.cfg.CheckEvery = 200 * time.Millisecond
	u.cfg.IterationTimeout = 3 * time.Second // far beyond the monitor's checks: the file is seen mid-iteration
	u.cfg.MaxIterations = 5
	u.cfg.PauseFile = pause
	res := u.run()
	u.wantResult(res, contract.ExitInterrupted, "paused")
	if _, err := os.Stat(pause); err == nil {
		t.Error("the pause file is still there")
	}
	st := u.state()
	if st.Status != state.Paused || st.CurrentIteration != 2 || st.LastIterationEnded != "" {
		t.Errorf("state: status %s iteration %d ended %q", st.Status, st.CurrentIteration, st.LastIterationEnded)
	}
	u.wantOutput("pause file " + pause + " found, pausing loop")
	u.wantLog("[PAUSE] loop paused reason=pause_file")
	// Present before an iteration, it pauses the loop before one starts.
	if err := os.WriteFile(pause, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	u.resume(contract.ExitInterrupted, "paused")
	u.wantRan("1\n2\n")
}

func TestUnitADoneFileCountsOnlyWithPassingChecks(t *testing.T) {
	u := newUnit(t, "go", nil)
	done := filepath.Join(u.cfg.Dir, "done")
	u.cfg.DoneFile = done
	// Every iteration makes the done file; the check passes from iteration 3.
	u.argAgent(`touch ` + shQuote(done) + `; exit 0`)
	u.cfg.MaxIterations = 5
	u.cfg.Checks = []checks.Check{{Command: `[ "$RALPH_ITERATION" -ge 3 ]`}}
	res := u.run()
	u.wantResult(res, contract.ExitDone, "done_file")
	if st := u.state(); st.CurrentIteration != 3 {
		t.Errorf("done at iteration %d, want 3\n%s", st.CurrentIteration, u.out.String())
	}
	if n := strings.Count(u.iterationsLog(), "done signal rejected"); n != 2 {
		t.Errorf("%d rejections:\n%s", n, u.iterationsLog())
	}
}
