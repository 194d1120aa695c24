package watch_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

func TestAnAgentIgnoringHangupsDoesNotSurviveItsIteration(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ignore HUP TERM\nchild\nready\nread\nquiet\n")
	h.cfg.MaxIterations = 2
	h.cfg.InactivityTimeout = time.Second
	h.wantResult(h.run(60*time.Second), contract.ExitDone, "max_iterations")
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
	t.Parallel()
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
	h.wantResult(h.run(60*time.Second), contract.ExitDone, "max_iterations")
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

func TestInterruptLeavesTheLoopPausedAndTheAgentRunning(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ready\nread\nprint working on it\nquiet\n")
	ctx, cancel := context.WithCancel(context.Background())
	loop := h.loop(nil)
	go func() {
		tmuxtest.Eventually(t, 30*time.Second, "the agent to work", func() bool {
			return strings.Contains(h.srv.Capture(h.cfg.Pane), "working on it")
		})
		cancel()
	}()
	res := loop.Run(ctx)
	h.wantResult(res, contract.ExitInterrupted, "interrupted")
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
	t.Parallel()
	for _, tc := range []struct {
		name, reason string
		kill         func(h *harness)
	}{
		{"pane closed", "pane_closed", func(h *harness) { _, _ = h.srv.Tmux("kill-pane", "-t", h.cfg.Pane) }},
		{"server killed", "server_gone", func(h *harness) { _, _ = h.srv.Tmux("kill-server") }},
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
			h.wantResult(h.run(30*time.Second), contract.ExitFailed, tc.reason)
			if st := h.state(); st.Status != state.Failed || st.ExitReason == nil || *st.ExitReason != tc.reason {
				t.Errorf("state %s / %v, want failed / %s", st.Status, st.ExitReason, tc.reason)
			}
		})
	}
}

func TestATUIThatDropsEarlyInputStillGetsThePromptOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "exactly once", nil)
	h.cfg.Command = h.agent("ready\ndrop-input 1500ms\nread\n" + h.savePrompt() + "exit 0\n")
	h.cfg.MaxIterations = 1
	h.wantResult(h.run(60*time.Second), contract.ExitDone, "max_iterations")
	if got := h.received(1); got != "exactly once" {
		t.Errorf("agent received %q, want the prompt once", got)
	}
}

func TestReadyPatternWaitsForAnAgentThatIsSlowToTakeInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "first line\nsecond line", nil)
	h.cfg.Command = h.agent("print loading plugins\nsleep 2s\nprint READY>\nready\nread\n" + h.savePrompt() + "exit 0\n")
	h.cfg.MaxIterations = 1
	h.cfg.ReadyPattern = regexp.MustCompile(`READY>`)
	h.wantResult(h.run(60*time.Second), contract.ExitDone, "max_iterations")
	if got := h.received(1); got != "first line\nsecond line" {
		t.Errorf("agent received %q", got)
	}
}

func TestResizingAQuietPaneIsNotActivity(t *testing.T) {
	t.Parallel()
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
				_, _ = h.srv.Tmux("resize-window", "-t", h.cfg.Pane, "-x", []string{"40", "120"}[i%2])
			}
		}
	}()
	h.wantResult(h.run(60*time.Second), contract.ExitDone, "max_iterations")
	h.wantOutput("inactivity timeout (2s), restarting")
}

// After a respawn the last agent's screen is still in the pane's history; an
// agent that takes a while to draw must not be typed at before it does.
func TestAnAgentSlowToStartGetsThePromptOnlyOnceItHasDrawn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "line one\nline two", nil)
	h.cfg.Command = h.agent("sleep 2s\nprint slow agent ready\nready\nread\n" + h.savePrompt() + "print lots of output so the screen is full\nexit 0\n")
	h.cfg.MaxIterations = 2
	h.wantResult(h.run(60*time.Second), contract.ExitDone, "max_iterations")
	for i := 1; i <= 2; i++ {
		if got := h.received(i); got != "line one\nline two" {
			t.Errorf("iteration %d: agent received %q", i, got)
		}
	}
}

func TestTheLoopReportsWhatItLearnsOfTheAgentInOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "hello", nil)
	h.cfg.Command = h.agent("ready\nread\nprint working\\n\nsleep 1s\nexit 0\n")
	h.cfg.MaxIterations = 1
	var mu sync.Mutex
	var kinds []string
	h.cfg.Events = func(e contract.Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.Iteration != 1 {
			t.Errorf("event %s in iteration %d, want 1", e.Kind, e.Iteration)
		}
		kinds = append(kinds, string(e.Kind))
	}
	h.wantResult(h.run(30*time.Second), contract.ExitDone, "max_iterations")
	mu.Lock()
	defer mu.Unlock()
	// paste-on comes between output and ready when the agent turns it on
	got := strings.ReplaceAll(strings.Join(kinds, " "), " paste-on", "")
	if want := "started output ready pasted submitted exit"; got != want {
		t.Errorf("events = %q, want %q", got, want)
	}
}

// While its agent sits still, a watcher starts no tmux to tell the status
// line it lives (a tmux every 2 s was 25 times the idle cost of the seed's
// monitor): the server holds its lifeline, which marks the beat only once
// the watcher is gone, and the beat is left unset, which the status line
// reads as a watcher that runs.
func TestAnIdleWatcherStartsNoTmuxToSayItLives(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ready\nread\nprint working on it\nquiet\n")
	h.cfg.BeatEvery = 100 * time.Millisecond
	calls := filepath.Join(h.srv.Dir, "tmux-calls")
	counting := filepath.Join(h.srv.Dir, "counting-tmux")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>" + shQuote(calls) + "\nexec tmux \"$@\"\n"
	if err := os.WriteFile(counting, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	client := &tmux.Exec{Server: h.srv.Client.Server, Binary: counting}
	beats := func() int {
		data, _ := os.ReadFile(calls)
		return strings.Count(string(data), contract.OptionBeat)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan watch.Result)
	go func() {
		done <- (&watch.Loop{Config: h.cfg, Tmux: client, Store: h.store, Out: &h.out, Err: &h.out}).Run(ctx)
	}()
	tmuxtest.Eventually(t, 30*time.Second, "the agent to work", func() bool {
		return strings.Contains(h.srv.Capture(h.cfg.Pane), "working on it")
	})
	before := beats()
	time.Sleep(time.Second) // ten beats' time
	if n := beats() - before; n > 0 {
		t.Errorf("the watcher started tmux %d times in a second to renew %s", n, contract.OptionBeat)
	}
	if beat := h.srv.Option(h.cfg.Pane, contract.OptionBeat); beat != "" {
		t.Errorf("%s = %q while the watcher runs, want it unset (its lifeline sets it)", contract.OptionBeat, beat)
	}
	cancel()
	h.wantResult(<-done, contract.ExitInterrupted, "interrupted")
}
