package watch_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/pane"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// exits is an agent that takes its prompt as an argument, does what its
// nth start does (nil: nothing) and exits 0.
func exits(do func(t *tmuxfake.Term, n int)) func(int) *tmuxfake.Program {
	return func(n int) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(t *tmuxfake.Term) {
			if do != nil {
				do(t, n)
			}
			t.Exit(0)
		}}
	}
}

func TestUnitTheDonePatternIsCheckedAfterTheExitWithoutContinuous(t *testing.T) {
	u := newUnit(t, donePrompt, exits(func(t *tmuxfake.Term, n int) {
		t.Write("you said: " + t.Argv[len(t.Argv)-1] + "\n") // the prompt names the token: only the agent's own line counts
		if n == 3 {
			t.Write("RALPH_DONE_42\n")
		}
	}))
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 5
	u.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
	u.wantResult(u.run(), contract.ExitDone, "done_pattern")
	if st := u.state(); st.CurrentIteration != 3 {
		t.Errorf("stopped in iteration %d, want 3; output:\n%s", st.CurrentIteration, u.out.String())
	}
}

func TestUnitTheLimitWithoutTheDoneSignalExits3(t *testing.T) {
	u := newUnit(t, donePrompt, exits(func(t *tmuxfake.Term, _ int) { t.Write(t.Argv[len(t.Argv)-1]) }))
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 2
	u.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	u.wantOutput("max iterations (2) reached without the done signal")
}

func TestUnitADoneFileStopsTheLoop(t *testing.T) {
	var u *unit
	u = newUnit(t, "go", exits(func(_ *tmuxfake.Term, n int) {
		if n == 2 {
			if err := os.WriteFile(u.cfg.DoneFile, nil, 0o644); err != nil {
				u.t.Error(err)
			}
		}
	}))
	u.cfg.PromptMode = agent.ModeStdin
	u.cfg.MaxIterations = 10
	u.cfg.DoneFile = filepath.Join(u.cfg.Dir, "DONE")
	u.wantResult(u.run(), contract.ExitDone, "done_file")
	if st := u.state(); st.CurrentIteration != 2 {
		t.Errorf("stopped after iteration %d, want 2", st.CurrentIteration)
	}
}

func TestUnitACommandNotFoundStopsAtOnce(t *testing.T) {
	u := newUnit(t, "go", failing(127))
	u.cfg.Command = []string{"ralph-no-such-agent"}
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitFailed, "fatal_exit")
	u.wantOutput("ralph-watch: error: command not found: ralph-no-such-agent (exit 127)")
	if st := u.state(); st.CurrentIteration != 1 {
		t.Errorf("ran %d iterations, want 1", st.CurrentIteration)
	}
}

func TestUnitAPromptFileDeletedMidLoopFails(t *testing.T) {
	var u *unit
	u = newUnit(t, "go", exits(func(*tmuxfake.Term, int) { _ = os.Remove(u.cfg.PromptFile) }))
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitFailed, "prompt_file_missing")
	u.wantOutput("ralph-watch: error: prompt file not found: " + u.cfg.PromptFile)
	if st := u.state(); st.Status != state.Failed {
		t.Errorf("status %s, want failed", st.Status)
	}
}

func TestUnitStateAndLogFollowTheSwarmSchema(t *testing.T) {
	u := newUnit(t, "go", exits(nil))
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 2
	u.cfg.DonePattern = regexp.MustCompile(`X_DONE`)
	u.run()
	data, err := os.ReadFile(u.store.Path(state.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"worker_name", "prompt_file", "max_iterations", "current_iteration", "status",
		"started", "last_iteration_started", "last_iteration_ended", "iteration_durations",
		"consecutive_failures", "total_failures", "done_pattern", "inactivity_timeout",
		"check_done_continuous", "exit_reason", "pane_id", "watcher_pid", "heartbeat"} {
		if !bytes.Contains(data, []byte(`"`+field+`":`)) {
			t.Errorf("state.json lacks %s:\n%s", field, data)
		}
	}
	log := strings.Join(u.logLines(), "\n")
	lineRE := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \[(START|END|DONE)\] `)
	if got := len(lineRE.FindAllString(log, -1)); got != 5 {
		t.Errorf("iterations.log has %d well-formed lines, want 5:\n%s", got, log)
	}
	u.wantLog("[START] iteration 1/2", "[END] iteration 2 exit=0 duration=")
	for _, f := range []string{state.StateFile, state.LogFile, state.PromptCopy} {
		if info, err := os.Stat(u.store.Path(f)); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", f, info.Mode().Perm(), err)
		}
	}
}

// A spinner that turns for ever is activity, never inactivity: only the
// iteration timeout ends it.
func TestUnitASpinnerThatNeverSettlesEndsAtTheIterationTimeout(t *testing.T) {
	frames := []string{"|", "/", "-", `\`}
	u := newUnit(t, "go", func(int) *tmuxfake.Program {
		turn, spinning := 0, false
		p := repl(func(*tmuxfake.Term, string) { spinning = true })
		p.Tick = func(t *tmuxfake.Term) { // a frame a look, from the prompt on
			if spinning {
				turn++
				t.Clear()
				t.Write(frames[turn%len(frames)] + " working")
			}
		}
		return p
	})
	u.cfg.InactivityTimeout = time.Second
	u.cfg.IterationTimeout = 3 * time.Second
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantOutput("iteration timeout (3s), restarting")
	if strings.Contains(u.out.String(), "inactivity timeout") {
		t.Errorf("a live spinner counted as inactivity:\n%s", u.out.String())
	}
}

func TestUnitAPromptFileThatCannotBeReadMidLoopEndsItFailed(t *testing.T) {
	for _, tc := range []struct {
		name, swap, want string
	}{
		{"made a directory", `rm -f "$F"; mkdir "$F"`, "(is a directory)"},
		{"made a FIFO", `rm -f "$F"; mkfifo "$F"`, "(not a regular file)"},
		{"grown past the limit", `truncate -s 9M "$F"`, "(larger than 8 MiB)"},
		{"made binary", `printf 'go\000\001\002' > "$F"`, "(binary: holds NUL bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUnit(t, "go", nil)
			u.argAgent(`F=` + shQuote(u.cfg.PromptFile) + `; ` + tc.swap + `; exit 0`)
			u.cfg.MaxIterations = 3
			res, ok := u.runFor(10 * time.Second)
			if !ok {
				t.Fatalf("the loop hung on the prompt file; output:\n%s", u.out.String())
			}
			u.wantResult(res, contract.ExitFailed, "prompt_file_missing")
			u.wantOutput("ralph-watch: error: cannot read prompt file: " + u.cfg.PromptFile + " " + tc.want)
			if st := u.state(); st.Status != state.Failed || st.CurrentIteration != 1 || st.ExitReason == nil {
				t.Errorf("state %s at iteration %d, want failed at 1 (iteration 2 never started)", st.Status, st.CurrentIteration)
			}
		})
	}
}

// A loop that ends on its own runs @ralph-notify-command with what happened
// in its environment; the command's text is never mixed with the loop's.
func TestUnitNotifyCommandRunsWhenTheLoopEnds(t *testing.T) {
	for _, c := range []struct {
		name, script, want string
		code               int
	}{
		{"done", `[ "$RALPH_ITERATION" = 2 ] && echo RALPH_DONE_1; exit 0`, "done|done_pattern|2|[ralph] unit: done after 2 iterations", contract.ExitDone},
		{"failed", `exit 127`, "failed|fatal_exit|1|[ralph] unit: failed (fatal_exit) after 1 iteration: command not found: exit (exit 127)", contract.ExitFailed},
		{"limit", `exit 0`, "limit|max_iterations|3|[ralph] unit: reached its limit (max_iterations) without the done signal after 3 iterations", contract.ExitLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := newUnit(t, "go on", nil)
			u.argAgent(c.script)
			u.cfg.Command = []string{"/bin/sh", "-c", c.script}
			u.cfg.MaxIterations = 3
			u.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
			out := filepath.Join(u.cfg.Dir, "notified $(x)")
			u.tmux.SetGlobal(pane.NotifyOption,
				`printf '%s|%s|%s|%s' "$RALPH_STATE" "$RALPH_REASON" "$RALPH_ITERATION" "$RALPH_MESSAGE" > "$OUT"`)
			t.Setenv("OUT", out) // the watcher's environment, which the command inherits
			if res := u.run(); res.Code != c.code {
				t.Fatalf("exit %d, want %d; output:\n%s", res.Code, c.code, u.out.String())
			}
			var got string
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !strings.HasPrefix(got, c.name); time.Sleep(time.Millisecond) {
				b, _ := os.ReadFile(out)
				got = string(b)
			}
			if got != c.want {
				t.Errorf("notify command saw %q, want %q", got, c.want)
			}
		})
	}
}

func TestUnitAMissingProgramBehindEnvIsNamed(t *testing.T) {
	u := newUnit(t, "do the work", failing(127)) // as env exits when it finds no program
	u.cfg.Command = []string{"env", "A=1", "ralph-no-such-agent"}
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitFailed, "fatal_exit")
	u.wantOutput("ralph-watch: error: command not found: ralph-no-such-agent (exit 127)")
}

func TestUnitThePromptIsReReadEveryIterationAndMayBeEmpty(t *testing.T) {
	var u *unit
	var got []string // the prompt each iteration's agent read on its stdin
	u = newUnit(t, "first", func(n int) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(t *tmuxfake.Term) {
			got = append(got, t.Stdin)
			if n == 1 {
				if err := os.WriteFile(u.cfg.PromptFile, nil, 0o644); err != nil {
					u.t.Error(err)
				}
			}
			t.Exit(0)
		}}
	})
	u.cfg.PromptMode = agent.ModeStdin
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if len(got) != 2 || got[0] != "first" || got[1] != "" {
		t.Errorf("the iterations read %q, want %q", got, []string{"first", ""})
	}
}

// messages are the tmux messages the loop showed the person.
func (u *unit) messages() []string {
	var all []string
	for _, c := range u.tmux.Calls() {
		if c.Op == "message" {
			all = append(all, strings.Join(c.Args, " "))
		}
	}
	return all
}

// A loop whose every iteration failed has not done its work, however many
// the limit allowed: it ends failed, and says so everywhere the person looks.
func TestUnitMaxIterationsAllFailedEndsFailedNotDone(t *testing.T) {
	u := newUnit(t, "go", failing(1))
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitFailed, "max_iterations")
	st := u.state()
	if st.Status != state.Failed || contract.StatusOf(st) != contract.StatusFailed {
		t.Errorf("status %s (%s), want failed", st.Status, contract.StatusOf(st))
	}
	if shown, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionStatus); shown != "✗ 3/3 3 failed" {
		t.Errorf("@ralph-status = %q, want %q", shown, "✗ 3/3 3 failed")
	}
	u.wantOutput("ralph-watch: error: max iterations (3) reached and all 3 iterations failed")
	u.wantLog("[FAIL] loop failed after 3 iterations reason=max_iterations failed=3")
	out, log := u.out.String(), strings.Join(u.logLines(), "\n")
	if strings.Contains(out, "loop complete") || strings.Contains(log, "[DONE]") {
		t.Errorf("a loop whose iterations all failed announced done; output:\n%s\nlog:\n%s", out, log)
	}
	msgs := strings.Join(u.messages(), "\n")
	if !strings.Contains(msgs, "failed (max_iterations) after 3 iterations") || strings.Contains(msgs, "done after") {
		t.Errorf("the message told the person %q, want that it failed", msgs)
	}
}

// A loop whose last iterations failed after some that worked reached its
// limit with its work not done: ■, exit 3, and how many failed.
func TestUnitMaxIterationsEndingOnFailuresIsALimitNotDone(t *testing.T) {
	u := newUnit(t, "go", func(n int) *tmuxfake.Program {
		if n == 1 {
			return exits(nil)(n)
		}
		return failing(1)(n)
	})
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	if st := u.state(); contract.StatusOf(st) != contract.StatusLimit {
		t.Errorf("status %s, want limit", contract.StatusOf(st))
	}
	if shown, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionStatus); shown != "■ 3/3 2 failed" {
		t.Errorf("@ralph-status = %q, want %q", shown, "■ 3/3 2 failed")
	}
	u.wantOutput("max iterations (3) reached and the last 2 of 3 iterations failed, stopping loop")
	u.wantLog("[FAIL] loop ended after 3 iterations reason=max_iterations failed=2")
	if msgs := strings.Join(u.messages(), "\n"); !strings.Contains(msgs, "reached its limit (max_iterations)") {
		t.Errorf("the message told the person %q, want that it reached its limit", msgs)
	}
}

// A failure the loop got over is no reason to call its work undone.
func TestUnitMaxIterationsEndingOnASuccessIsDone(t *testing.T) {
	u := newUnit(t, "go", func(n int) *tmuxfake.Program {
		if n == 1 {
			return failing(1)(n)
		}
		return exits(nil)(n)
	})
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantLog("[DONE] loop complete after 2 iterations reason=max_iterations")
}

// An editor that saves by rename leaves no prompt file for a moment: the
// loop looks again for a short while before it calls the file lost.
func TestUnitAPromptFileGoneForAMomentIsWaitedFor(t *testing.T) {
	var u *unit
	u = newUnit(t, "go", exits(func(_ *tmuxfake.Term, n int) {
		if n == 1 {
			_ = os.Remove(u.cfg.PromptFile)
			u.schedule(500*time.Millisecond, func() { _ = os.WriteFile(u.cfg.PromptFile, []byte("go on"), 0o644) })
		}
	}))
	u.simulate()
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if st := u.state(); st.CurrentIteration != 3 {
		t.Errorf("ran %d iterations, want 3", st.CurrentIteration)
	}
}
