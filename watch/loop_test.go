package watch_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// harness is one loop on a private server, with its output and state.
type harness struct {
	t     *testing.T
	srv   *tmuxtest.Server
	cfg   watch.Config
	store *state.Store
	out   tmuxtest.Buffer
}

func newHarness(t *testing.T, prompt string, command []string) *harness {
	t.Helper()
	srv := tmuxtest.Start(t)
	h := &harness{t: t, srv: srv}
	promptFile := filepath.Join(srv.Dir, "PROMPT.md")
	if err := os.WriteFile(promptFile, []byte(prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	h.cfg = watch.Config{
		Name:              "test",
		Pane:              srv.NewPane(),
		Dir:               srv.Dir,
		Command:           command,
		PromptFile:        promptFile,
		PromptMode:        agent.ModeType,
		MaxIterations:     3,
		InactivityTimeout: 30 * time.Second,
		PollInterval:      200 * time.Millisecond,
		ReadyTimeout:      10 * time.Second,
		Lines:             20,
	}
	store, err := state.Open(filepath.Join(srv.Dir, "state"), "test")
	if err != nil {
		t.Fatal(err)
	}
	h.store = store
	return h
}

func (h *harness) agent(script string) []string { return h.srv.FakeAgent("agent", script) }

// run runs the loop to its end, failing the test if it takes over timeout.
func (h *harness) run(timeout time.Duration) watch.Result {
	h.t.Helper()
	return h.runWoken(nil, timeout)
}

// runWoken is run with wake telling the loop of a request or a hook's report.
func (h *harness) runWoken(wake <-chan os.Signal, timeout time.Duration) watch.Result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	loop := &watch.Loop{Config: h.cfg, Tmux: h.srv.Client, Store: h.store, Out: &h.out, Err: &h.out, Wake: wake}
	res := loop.Run(ctx)
	if ctx.Err() != nil {
		h.t.Fatalf("loop still running after %s; output:\n%s", timeout, h.out.String())
	}
	return res
}

func (h *harness) state() *state.State {
	h.t.Helper()
	st, err := h.store.Load()
	if err != nil {
		h.t.Fatal(err)
	}
	return st
}

func (h *harness) wantOutput(lines ...string) {
	h.t.Helper()
	for _, l := range lines {
		if !strings.Contains(h.out.String(), l) {
			h.t.Errorf("output lacks %q; output:\n%s", l, h.out.String())
		}
	}
}

func (h *harness) wantResult(got watch.Result, code int, reason string) {
	h.t.Helper()
	if got.Code != code || got.Reason != reason {
		h.t.Errorf("result = %+v, want code %d reason %q; output:\n%s", got, code, reason, h.out.String())
	}
}

// trickyPrompt has everything a shell, tmux or a terminal likes to eat.
const trickyPrompt = "line one;\n\tindented with a tab;\nunicode: ünïcødé ✓ 日本語\n#{pane_id} $HOME ~ $(echo no) `no`\nEnter C-c \\; ';' \"quoted\"\n\nlast line without newline;"

func TestTypeModeDeliversThePromptByteForByte(t *testing.T) {
	big := strings.Repeat("a line of a hundred kilobytes of prompt, with tabs\tand ünïcødé; ", 1700)[:100<<10]
	for _, tc := range []struct{ name, prompt string }{
		{"tricky", trickyPrompt},
		{"100KB", big},
		{"one word", "go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tc.prompt, nil)
			got := filepath.Join(h.srv.Dir, "got-{{iteration}}")
			h.cfg.Command = h.agent("ready\nread\nsave " + got + "\nexit 0\n")
			h.cfg.MaxIterations = 2
			res := h.run(60 * time.Second)
			h.wantResult(res, watch.ExitDone, "max_iterations")
			for _, i := range []string{"1", "2"} {
				data, err := os.ReadFile(strings.ReplaceAll(got, "{{iteration}}", i))
				if err != nil {
					t.Fatalf("iteration %s: %v\n%s", i, err, h.out.String())
				}
				if string(data) != tc.prompt {
					t.Errorf("iteration %s received %d bytes, want %d; first difference at %d", i, len(data), len(tc.prompt), firstDiff(string(data), tc.prompt))
				}
			}
			h.wantOutput("[ralph] test: starting iteration 1/2", "[ralph] test: iteration 2 completed (exit: 0", "[ralph] test: loop complete after 2 iterations")
		})
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestArgAndStdinModesPassThePromptByteForByte(t *testing.T) {
	for _, mode := range []string{agent.ModeArg, agent.ModeStdin} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, trickyPrompt, nil)
			got := filepath.Join(h.srv.Dir, "got")
			if mode == agent.ModeArg {
				h.cfg.Command = []string{"/bin/sh", "-c", `printf %s "$1" > "$0"`, got}
			} else {
				h.cfg.Command = []string{"/bin/sh", "-c", `cat > "$0"`, got}
			}
			h.cfg.PromptMode = mode
			h.cfg.MaxIterations = 1
			h.wantResult(h.run(30*time.Second), watch.ExitDone, "max_iterations")
			data, _ := os.ReadFile(got)
			if string(data) != trickyPrompt {
				t.Errorf("agent received %q\nwant %q", data, trickyPrompt)
			}
		})
	}
}

func TestPromptIsReReadEveryIterationAndMayBeEmpty(t *testing.T) {
	h := newHarness(t, "first", nil)
	got := filepath.Join(h.srv.Dir, "got-{{iteration}}")
	h.cfg.Command = []string{"/bin/sh", "-c", `cat > "$(echo "$0" | sed "s/{{iteration}}/$RALPH_ITERATION/")"; [ "$RALPH_ITERATION" = 1 ] && printf '' > "$1"; exit 0`, got, h.cfg.PromptFile}
	h.cfg.PromptMode = agent.ModeStdin
	h.cfg.MaxIterations = 2
	h.wantResult(h.run(30*time.Second), watch.ExitDone, "max_iterations")
	for i, want := range []string{"first", ""} {
		data, err := os.ReadFile(strings.ReplaceAll(got, "{{iteration}}", string(rune('1'+i))))
		if err != nil || string(data) != want {
			t.Errorf("iteration %d got %q (%v), want %q", i+1, data, err, want)
		}
	}
}

// echoes are agents that show the prompt (which names the done token) back
// in the ways terminals and TUIs do, before the agent's own work.
const donePrompt = "Work through the plan in PLAN.md. When every task is finished, print RALPH_DONE_42 on a line of its own.\n"

func TestDonePatternIgnoresTheEchoedPromptAndStopsOnTheAgentsToken(t *testing.T) {
	for _, tc := range []struct{ name, before string }{
		{"plain output", ""},
		{"clear", "print \\e[H\\e[2J"},
		{"clear with scrollback erase", "print \\e[H\\e[2J\\e[3J"},
		{"alternate screen", "alt"},
		{"history trimmed", "flood 600k"},
		{"redraws the prompt", "redraw\nredraw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, donePrompt, nil)
			h.cfg.Command = h.agent("print agent ready\nready\nread\necho\n" + tc.before + "\nprint working\niter 2 print RALPH_DONE_42\nexit 0\n")
			h.cfg.MaxIterations = 4
			h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
			h.cfg.CheckDoneContinuous = true
			res := h.run(60 * time.Second)
			h.wantResult(res, watch.ExitDone, "done_pattern")
			if st := h.state(); st.CurrentIteration != 2 {
				t.Errorf("stopped in iteration %d, want 2; output:\n%s", st.CurrentIteration, h.out.String())
			}
			h.wantOutput("[ralph] test: done pattern matched, stopping loop")
		})
	}
}

func TestDonePatternSurvivesAWidthChange(t *testing.T) {
	h := newHarness(t, donePrompt, nil)
	h.cfg.Command = h.agent("ready\nread\necho\nsleep 1500ms\nredraw\nprint working\niter 2 print RALPH_DONE_42\nexit 0\n")
	h.cfg.MaxIterations = 3
	h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
	go func() {
		for i := 0; i < 20; i++ {
			time.Sleep(300 * time.Millisecond)
			h.srv.Tmux("resize-window", "-t", h.cfg.Pane, "-x", []string{"40", "120"}[i%2])
		}
	}()
	res := h.run(60 * time.Second)
	h.wantResult(res, watch.ExitDone, "done_pattern")
	if st := h.state(); st.CurrentIteration != 2 {
		t.Errorf("stopped in iteration %d, want 2; output:\n%s", st.CurrentIteration, h.out.String())
	}
}

func TestDonePatternCheckedAfterExitWithoutContinuous(t *testing.T) {
	h := newHarness(t, donePrompt, nil)
	h.cfg.Command = []string{"/bin/sh", "-c", `echo "you said: $1"; [ "$RALPH_ITERATION" = 3 ] && echo RALPH_DONE_42; exit 0`, "sh"}
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.MaxIterations = 5
	h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
	h.wantResult(h.run(30*time.Second), watch.ExitDone, "done_pattern")
	if st := h.state(); st.CurrentIteration != 3 {
		t.Errorf("stopped in iteration %d, want 3; output:\n%s", st.CurrentIteration, h.out.String())
	}
}

func TestLimitWithoutDoneSignalExits3(t *testing.T) {
	h := newHarness(t, donePrompt, []string{"/bin/sh", "-c", "echo $0; exit 0"})
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.MaxIterations = 2
	h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
	h.wantResult(h.run(30*time.Second), watch.ExitLimit, "max_iterations")
	h.wantOutput("max iterations (2) reached without the done signal")
}

func TestDoneFileStopsTheLoop(t *testing.T) {
	h := newHarness(t, "go", nil)
	done := filepath.Join(h.srv.Dir, "DONE")
	h.cfg.Command = []string{"/bin/sh", "-c", `[ "$RALPH_ITERATION" = 2 ] && touch "$0"; exit 0`, done}
	h.cfg.PromptMode = agent.ModeStdin
	h.cfg.MaxIterations = 10
	h.cfg.DoneFile = done
	h.wantResult(h.run(30*time.Second), watch.ExitDone, "done_file")
	if st := h.state(); st.CurrentIteration != 2 {
		t.Errorf("stopped after iteration %d, want 2", st.CurrentIteration)
	}
}

func TestInactivityRestartsTheIterationWithoutCountingAFailure(t *testing.T) {
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ready\nread\nprint thinking\nquiet\n")
	h.cfg.MaxIterations = 2
	h.cfg.InactivityTimeout = time.Second
	h.wantResult(h.run(60*time.Second), watch.ExitDone, "max_iterations")
	h.wantOutput("[ralph] test: inactivity timeout (1s), restarting")
	if st := h.state(); st.ConsecutiveFailures != 0 || st.TotalFailures != 0 {
		t.Errorf("failures counted: %+v", st)
	}
	log, _ := os.ReadFile(h.store.Path(state.LogFile))
	if n := strings.Count(string(log), "[TIMEOUT] iteration"); n != 2 {
		t.Errorf("log has %d TIMEOUT lines, want 2:\n%s", n, log)
	}
}

func TestIterationTimeoutEndsAnAgentWhoseSpinnerNeverSettles(t *testing.T) {
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ready\nread\nspinner 1h\n")
	h.cfg.MaxIterations = 1
	h.cfg.InactivityTimeout = time.Second
	h.cfg.IterationTimeout = 3 * time.Second
	h.wantResult(h.run(60*time.Second), watch.ExitDone, "max_iterations")
	h.wantOutput("iteration timeout (3s), restarting")
	if strings.Contains(h.out.String(), "inactivity timeout") {
		t.Errorf("a live spinner counted as inactivity:\n%s", h.out.String())
	}
}

func TestFailuresBackOffAndStopAfterFive(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 15 s of backoff")
	}
	h := newHarness(t, "go", []string{"/bin/sh", "-c", "exit 3"})
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.MaxIterations = 10
	h.wantResult(h.run(90*time.Second), watch.ExitFailed, "consecutive_failures")
	h.wantOutput(
		"iteration 1 failed (exit: 3), retrying in 1s (attempt 1/5)",
		"iteration 2 failed (exit: 3), retrying in 2s (attempt 2/5)",
		"iteration 4 failed (exit: 3), retrying in 8s (attempt 4/5)",
		"[ralph] test: 5 consecutive failures, stopping loop",
	)
	if st := h.state(); st.Status != state.Failed || st.TotalFailures != 5 {
		t.Errorf("state = %s with %d failures, want failed with 5", st.Status, st.TotalFailures)
	}
}

func TestSuccessResetsTheFailureCount(t *testing.T) {
	h := newHarness(t, "go", []string{"/bin/sh", "-c", `[ "$RALPH_ITERATION" = 2 ] && exit 0; exit 1`})
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.MaxIterations = 3
	h.wantResult(h.run(60*time.Second), watch.ExitDone, "max_iterations")
	st := h.state()
	if st.ConsecutiveFailures != 1 || st.TotalFailures != 2 {
		t.Errorf("consecutive %d total %d, want 1 and 2", st.ConsecutiveFailures, st.TotalFailures)
	}
	h.wantOutput("iteration 3 failed (exit: 1), retrying in 1s (attempt 1/5)")
}

func TestCommandNotFoundStopsAtOnce(t *testing.T) {
	h := newHarness(t, "go", []string{"ralph-no-such-agent"})
	h.cfg.PromptMode = agent.ModeArg
	h.wantResult(h.run(30*time.Second), watch.ExitFailed, "fatal_exit")
	h.wantOutput("ralph-watch: error: command not found: ralph-no-such-agent (exit 127)")
	if st := h.state(); st.CurrentIteration != 1 {
		t.Errorf("ran %d iterations, want 1", st.CurrentIteration)
	}
}

func TestAnAgentIgnoringHangupsDoesNotSurviveItsIteration(t *testing.T) {
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ignore HUP TERM\nchild\nready\nread\nquiet\n")
	h.cfg.MaxIterations = 2
	h.cfg.InactivityTimeout = time.Second
	h.wantResult(h.run(60*time.Second), watch.ExitDone, "max_iterations")
	if pids := processesOf(t, "RALPH_ITERATION=1", h.srv.Dir); len(pids) > 0 {
		t.Errorf("iteration 1 left processes running: %v", pids)
	}
	if pids := processesOf(t, "RALPH_ITERATION=2", h.srv.Dir); len(pids) == 0 {
		t.Errorf("iteration 2's agent is not running (the loop leaves the last agent)")
	}
}

// processesOf lists live processes whose environment holds both strings.
func processesOf(t *testing.T, a, b string) []string {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var pids []string
	for _, e := range entries {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if s := string(stat); strings.Contains(s, ") Z ") {
			continue
		}
		vars := "\x00" + string(env)
		if strings.Contains(vars, "\x00"+a+"\x00") && strings.Contains(vars, b) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func TestPaneOptionsFollowTheLoopAndRemainOnExitIsRestored(t *testing.T) {
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ready\nread\nsleep 1500ms\nexit 0\n")
	h.cfg.MaxIterations = 2
	h.srv.Must("set-option", "-p", "-t", h.cfg.Pane, "remain-on-exit", "off")
	var seen string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmuxtest.Eventually(t, 30*time.Second, "⟳ 1/2 in @ralph-status", func() bool {
			seen = h.srv.Option(h.cfg.Pane, "@ralph-status")
			return seen == "⟳ 1/2"
		})
		if got := h.srv.Option(h.cfg.Pane, "remain-on-exit"); got != "on" {
			t.Errorf("remain-on-exit while looping = %q, want on", got)
		}
	}()
	h.wantResult(h.run(60*time.Second), watch.ExitDone, "max_iterations")
	wg.Wait()
	for name, want := range map[string]string{
		"@ralph-name": "test", "@ralph-iteration": "2", "@ralph-max": "2",
		"@ralph-state": "done", "@ralph-status": "✓ 2/2", "remain-on-exit": "off",
	} {
		if got := h.srv.Option(h.cfg.Pane, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestStateAndLogFollowTheSwarmSchema(t *testing.T) {
	h := newHarness(t, "go", []string{"/bin/sh", "-c", "exit 0"})
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.MaxIterations = 2
	h.cfg.DonePattern = regexp.MustCompile(`X_DONE`)
	h.run(30 * time.Second)
	data, err := os.ReadFile(h.store.Path(state.StateFile))
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
	log, _ := os.ReadFile(h.store.Path(state.LogFile))
	lineRE := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \[(START|END|DONE)\] `)
	if got := len(lineRE.FindAll(log, -1)); got != 5 {
		t.Errorf("iterations.log has %d well-formed lines, want 5:\n%s", got, log)
	}
	if !strings.Contains(string(log), "[START] iteration 1/2") || !strings.Contains(string(log), "[END] iteration 2 exit=0 duration=") {
		t.Errorf("iterations.log:\n%s", log)
	}
	for _, f := range []string{state.StateFile, state.LogFile, state.PromptCopy} {
		if info, err := os.Stat(h.store.Path(f)); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", f, info.Mode().Perm(), err)
		}
	}
}

func TestPromptFileDeletedMidLoopFails(t *testing.T) {
	h := newHarness(t, "go", nil)
	h.cfg.Command = []string{"/bin/sh", "-c", `rm -f "$0"; exit 0`, h.cfg.PromptFile}
	h.cfg.PromptMode = agent.ModeArg
	h.wantResult(h.run(30*time.Second), watch.ExitFailed, "prompt_file_missing")
	h.wantOutput("ralph-watch: error: prompt file not found: " + h.cfg.PromptFile)
	if st := h.state(); st.Status != state.Failed {
		t.Errorf("status %s, want failed", st.Status)
	}
}

func TestInterruptLeavesTheLoopPausedAndTheAgentRunning(t *testing.T) {
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ready\nread\nprint working on it\nquiet\n")
	ctx, cancel := context.WithCancel(context.Background())
	loop := &watch.Loop{Config: h.cfg, Tmux: h.srv.Client, Store: h.store, Out: &h.out, Err: &h.out}
	go func() {
		tmuxtest.Eventually(t, 30*time.Second, "the agent to work", func() bool {
			return strings.Contains(h.srv.Capture(h.cfg.Pane), "working on it")
		})
		cancel()
	}()
	res := loop.Run(ctx)
	h.wantResult(res, watch.ExitInterrupted, "interrupted")
	if st := h.state(); st.Status != state.Paused {
		t.Errorf("status %s, want paused", st.Status)
	}
	if dead := strings.TrimSpace(h.srv.Must("display", "-p", "-t", h.cfg.Pane, "#{pane_dead}")); dead != "0" {
		t.Errorf("agent stopped on interrupt")
	}
	if got := h.srv.Option(h.cfg.Pane, "@ralph-status"); got != "⏸ 1/3" {
		t.Errorf("@ralph-status = %q, want ⏸ 1/3", got)
	}
}

func TestClosedPaneAndKilledServerEndTheLoopWithAClearReason(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		kill         func(h *harness)
	}{
		{"pane closed", "pane_closed", func(h *harness) { h.srv.Tmux("kill-pane", "-t", h.cfg.Pane) }},
		{"server killed", "server_gone", func(h *harness) { h.srv.Tmux("kill-server") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, "go", nil)
			h.cfg.Command = h.agent("ready\nread\nprint busy\nquiet\n")
			go func() {
				tmuxtest.Eventually(t, 30*time.Second, "the agent to work", func() bool {
					return strings.Contains(h.srv.Capture(h.cfg.Pane), "busy")
				})
				tc.kill(h)
			}()
			h.wantResult(h.run(30*time.Second), watch.ExitFailed, tc.reason)
			if st := h.state(); st.Status != state.Failed || st.ExitReason == nil || *st.ExitReason != tc.reason {
				t.Errorf("state %s / %v, want failed / %s", st.Status, st.ExitReason, tc.reason)
			}
		})
	}
}

func TestATUIThatDropsEarlyInputStillGetsThePromptOnce(t *testing.T) {
	h := newHarness(t, "exactly once", nil)
	got := filepath.Join(h.srv.Dir, "got")
	h.cfg.Command = h.agent("ready\ndrop-input 1500ms\nread\nsave " + got + "\nexit 0\n")
	h.cfg.MaxIterations = 1
	h.wantResult(h.run(60*time.Second), watch.ExitDone, "max_iterations")
	if data, _ := os.ReadFile(got); string(data) != "exactly once" {
		t.Errorf("agent received %q, want the prompt once", data)
	}
}

func TestReadyPatternWaitsForAnAgentThatIsSlowToTakeInput(t *testing.T) {
	h := newHarness(t, "first line\nsecond line", nil)
	got := filepath.Join(h.srv.Dir, "got")
	h.cfg.Command = h.agent("print loading plugins\nsleep 2s\nprint READY>\nready\nread\nsave " + got + "\nexit 0\n")
	h.cfg.MaxIterations = 1
	h.cfg.ReadyPattern = regexp.MustCompile(`READY>`)
	h.wantResult(h.run(60*time.Second), watch.ExitDone, "max_iterations")
	if data, _ := os.ReadFile(got); string(data) != "first line\nsecond line" {
		t.Errorf("agent received %q", data)
	}
}

func TestResizingAQuietPaneIsNotActivity(t *testing.T) {
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ready\nread\nprint " + strings.Repeat("a long line that wraps at forty columns ", 4) + "\nquiet\n")
	h.cfg.MaxIterations = 1
	h.cfg.InactivityTimeout = 2 * time.Second
	h.cfg.IterationTimeout = 30 * time.Second
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(250 * time.Millisecond):
				h.srv.Tmux("resize-window", "-t", h.cfg.Pane, "-x", []string{"40", "120"}[i%2])
			}
		}
	}()
	h.wantResult(h.run(60*time.Second), watch.ExitDone, "max_iterations")
	h.wantOutput("inactivity timeout (2s), restarting")
}

// After a respawn the last agent's screen is still in the pane's history; an
// agent that takes a while to draw must not be typed at before it does.
func TestAnAgentSlowToStartGetsThePromptOnlyOnceItHasDrawn(t *testing.T) {
	h := newHarness(t, "line one\nline two", nil)
	got := filepath.Join(h.srv.Dir, "got-{{iteration}}")
	h.cfg.Command = h.agent("sleep 2s\nprint slow agent ready\nready\nread\nsave " + got + "\nprint lots of output so the screen is full\nexit 0\n")
	h.cfg.MaxIterations = 2
	h.wantResult(h.run(60*time.Second), watch.ExitDone, "max_iterations")
	for _, i := range []string{"1", "2"} {
		if data, _ := os.ReadFile(strings.ReplaceAll(got, "{{iteration}}", i)); string(data) != "line one\nline two" {
			t.Errorf("iteration %s: agent received %q", i, data)
		}
	}
}

func TestAPauseRequestEndsABackoffWaitAtOnce(t *testing.T) {
	h := newHarness(t, "go", []string{"/bin/sh", "-c", "exit 1"})
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.MaxIterations = 10
	wake := make(chan os.Signal, 1)
	requested := make(chan time.Time, 1)
	go func() {
		tmuxtest.Eventually(t, 60*time.Second, "the 8 s backoff", func() bool {
			return strings.Contains(h.out.String(), "retrying in 8s")
		})
		h.store.Request(state.RequestPause)
		requested <- time.Now()
		wake <- syscall.SIGUSR1
	}()
	loop := &watch.Loop{Config: h.cfg, Tmux: h.srv.Client, Store: h.store, Out: &h.out, Err: &h.out, Wake: wake}
	done := make(chan watch.Result, 1)
	go func() { done <- loop.Run(context.Background()) }()
	select {
	case res := <-done:
		h.wantResult(res, watch.ExitInterrupted, "paused")
		// Generous: the backoff it must cut short is 8 s.
		if waited := time.Since(<-requested); waited > 5*time.Second {
			t.Errorf("the pause took %s to end an 8 s backoff", waited)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("loop did not end; output:\n%s", h.out.String())
	}
	if st := h.state(); st.Status != state.Paused || st.CurrentIteration != 4 {
		t.Errorf("state %s at %d, want paused at 4", st.Status, st.CurrentIteration)
	}
}

func TestTheLoopReportsWhatItLearnsOfTheAgentInOrder(t *testing.T) {
	h := newHarness(t, "hello", nil)
	h.cfg.Command = h.agent("ready\nread\nprint working\\n\nsleep 1s\nexit 0\n")
	h.cfg.MaxIterations = 1
	var mu sync.Mutex
	var kinds []string
	h.cfg.Events = func(e watch.Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.Iteration != 1 {
			t.Errorf("event %s in iteration %d, want 1", e.Kind, e.Iteration)
		}
		kinds = append(kinds, string(e.Kind))
	}
	h.wantResult(h.run(30*time.Second), watch.ExitDone, "max_iterations")
	mu.Lock()
	defer mu.Unlock()
	// paste-on comes between output and ready when the agent turns it on
	got := strings.ReplaceAll(strings.Join(kinds, " "), " paste-on", "")
	if want := "started output ready pasted submitted exit"; got != want {
		t.Errorf("events = %q, want %q", got, want)
	}
}
