package watch_test

import (
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

func (h *harness) asAgent(name string) {
	h.t.Helper()
	p, ok := agent.Lookup(name)
	if !ok {
		h.t.Fatalf("no profile %q", name)
	}
	p.IdleGrace = time.Second
	h.cfg.Agent, h.cfg.ReadyPattern = p, p.Ready
	h.cfg.LimitWait = time.Hour
}

func TestTheAgentsStopHookEndsTheTurn(t *testing.T) {
	t.Parallel()
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGUSR1) // the hook wakes this process's loop
	defer signal.Stop(wake)
	h := newHarness(t, "do the work", nil)
	// No idle marker after the turn: only the hook can end it early.
	h.cfg.Command = h.agentNamed("claude", hookedAgent) // named like the agent: the hook goes after its own program word
	h.asAgent("claude")
	h.cfg.Agent.IdleGrace = 0
	h.cfg.TurnHook = true
	h.cfg.Executable = tmuxtest.Build(t, "cmd/ralph-watch")
	h.cfg.InactivityTimeout = 5 * time.Minute
	h.cfg.PollInterval = 10 * time.Second // the hook's signal, not a look at the screen, must end it
	h.cfg.MaxIterations = 2
	h.wantResult(h.runWoken(wake, 90*time.Second), contract.ExitDone, "max_iterations")
	h.wantOutput("iteration 1 completed (turn ended", "iteration 2 completed (turn ended")
	settings, err := os.ReadFile(h.store.Path(state.ClaudeSettings))
	if err != nil || !strings.Contains(string(settings), `hook' 'turn-end' '--state'`) {
		t.Errorf("settings file: %v\n%s", err, settings)
	}
}
