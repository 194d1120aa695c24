package watch_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The pause says the agent runs on: it does, and prints the done token
// while no watcher reads its output. The resumed watcher reads the pane
// from the prompt's line on and ends the loop at once, without waiting out
// the inactivity timeout or starting another iteration.
func TestADoneSignalPrintedWhilePausedEndsTheLoopAtResume(t *testing.T) {
	t.Parallel()
	h := newDoneHarness(t, "ready\nread\nprint working\nsleep 2s\nprint all tasks complete\nprint RALPH_DONE\nsleep 120s\nexit 0\n", false)
	h.cfg.InactivityTimeout = 40 * time.Second
	h.cfg.MaxIterations = 3
	res := h.pauseWhen(30*time.Second, "the agent at work", func() bool {
		return strings.Contains(h.srv.Capture(h.cfg.Pane), "working")
	})
	h.wantResult(res, contract.ExitInterrupted, "paused")
	if st := h.state(); st.DoneMatch != "" {
		t.Fatalf("the token came before the pause (%q): the test tests nothing", st.DoneMatch)
	}
	tmuxtest.Eventually(t, 30*time.Second, "the token printed while paused", func() bool {
		return strings.Contains(h.srv.Capture(h.cfg.Pane), "RALPH_DONE")
	})
	h.resume(contract.ExitDone, "done_pattern")
	log, _ := os.ReadFile(h.store.Path(state.LogFile))
	if st := h.state(); st.CurrentIteration != 1 || strings.Contains(string(log), "[TIMEOUT]") {
		t.Errorf("ended at iteration %d; log:\n%s", st.CurrentIteration, log)
	}
}

// The token in the prompt's own echo, on screen while paused, never counts.
func TestAnEchoedDoneTokenDoesNotEndTheLoopAtResume(t *testing.T) {
	t.Parallel()
	h := newDoneHarness(t, "ready\nread\necho\nprint working\nsleep 120s\nexit 0\n", false)
	if err := os.WriteFile(h.cfg.PromptFile, []byte("finish the plan, then print RALPH_DONE on a line of its own\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.cfg.InactivityTimeout = 3 * time.Second
	h.cfg.MaxIterations = 1
	res := h.pauseWhen(30*time.Second, "the echo", func() bool {
		return strings.Contains(h.srv.Capture(h.cfg.Pane), "working")
	})
	h.wantResult(res, contract.ExitInterrupted, "paused")
	h.resume(contract.ExitLimit, "max_iterations")
}
