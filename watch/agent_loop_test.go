package watch_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// claudeLike is an interactive agent that draws Claude Code's markers: an
// input box, a spinner with "esc to interrupt" while it works, and
// "? for shortcuts" when idle; it never exits by itself.
const claudeLike = `print   ? for shortcuts
ready
read
echo
spinner 1s
print ● Done with the work for iteration {{iteration}}.
print   ? for shortcuts
ready
quiet
`

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

func TestAnAgentIdleAtItsPromptEndsTheTurnWithoutWaitingForInactivity(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "do the work", nil)
	h.cfg.Command = h.agent(claudeLike)
	h.asAgent("claude")
	h.cfg.InactivityTimeout = 5 * time.Minute // far beyond the test's timeout
	h.cfg.MaxIterations = 2
	res := h.run(90 * time.Second)
	h.wantResult(res, words.ExitDone, "max_iterations")
	h.wantOutput("iteration 1 completed (turn ended", "iteration 2 completed (turn ended")
	st := h.state()
	if st.TurnGapMS == nil || *st.TurnGapMS < 0 || st.LastTurnEnded == "" {
		t.Errorf("state lacks the turn gap: turn_gap_ms %v, last_turn_ended %q", st.TurnGapMS, st.LastTurnEnded)
	}
	if st.Agent != "claude" || st.AgentState == "" {
		t.Errorf("state agent = %q, agent_state = %q", st.Agent, st.AgentState)
	}
	log, _ := os.ReadFile(h.store.Path(state.LogFile))
	if !strings.Contains(string(log), "[END] iteration 1 turn_end") {
		t.Errorf("log lacks the turn end:\n%s", log)
	}
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
	h.wantResult(h.runWoken(wake, 90*time.Second), words.ExitDone, "max_iterations")
	h.wantOutput("iteration 1 completed (turn ended", "iteration 2 completed (turn ended")
	settings, err := os.ReadFile(h.store.Path(state.ClaudeSettings))
	if err != nil || !strings.Contains(string(settings), `hook' 'turn-end' '--state'`) {
		t.Errorf("settings file: %v\n%s", err, settings)
	}
}

func TestAQuestionIsNotInactivity(t *testing.T) {
	t.Parallel()
	question := "print   ? for shortcuts\nready\nread\necho\nprint Bash command\nprint   rm -rf build\nprint Do you want to proceed?\nprint ❯ 1. Yes\nprint   2. No\nquiet\n"
	// asked is a loop whose agent asks a question and waits.
	asked := func(t *testing.T) *harness {
		h := newHarness(t, "do the work", nil)
		h.cfg.Command = h.agent(question)
		h.asAgent("claude")
		return h
	}
	t.Run("waits for the answer", func(t *testing.T) {
		t.Parallel()
		h := asked(t)
		h.cfg.InactivityTimeout = 2 * time.Second
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan watch.Result)
		go func() {
			done <- h.loop(nil).Run(ctx)
		}()
		tmuxtest.Eventually(t, 30*time.Second, "the pane marked as needing input", func() bool {
			return h.srv.Option(h.cfg.Pane, "@ralph-state") == "needs-input"
		})
		time.Sleep(3 * h.cfg.InactivityTimeout)
		cancel()
		res := <-done
		h.wantResult(res, words.ExitInterrupted, "interrupted")
		if strings.Contains(h.out.String(), "inactivity timeout") || strings.Contains(h.out.String(), "iteration 2") {
			t.Errorf("the loop restarted an agent waiting on a question:\n%s", h.out.String())
		}
		h.wantOutput("the agent is asking a question")
		if st := h.state(); st.AgentState != "needs-input" {
			t.Errorf("agent_state = %q, want needs-input", st.AgentState)
		}
	})
	t.Run("restarts after the dialog timeout", func(t *testing.T) {
		t.Parallel()
		h := asked(t)
		h.cfg.DialogTimeout = 2 * time.Second
		h.cfg.MaxIterations = 2
		res := h.run(90 * time.Second)
		h.wantResult(res, words.ExitDone, "max_iterations")
		h.wantOutput("question unanswered for 2s, restarting")
	})
}

func TestAUsageLimitWaitsForTheResetAndDoesNotCountTheIteration(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "do the work", nil)
	h.cfg.MinLimitWait = time.Nanosecond // the reset, not a minute
	reset := time.Now().Add(3 * time.Second).Unix()
	limited := h.srv.FakeAgent("limited", fmt.Sprintf("print Claude AI usage limit reached|%d\nexit 1\n", reset))
	working := h.srv.FakeAgent("working", "print working\nexit 0\n")
	marker := filepath.Join(h.srv.Dir, "limited-once")
	// The first launch meets the limit; after the reset the agent works.
	h.cfg.Command = []string{"/bin/sh", "-c", `if [ -e "$0" ]; then exec "$1" "$2"; fi; touch "$0"; exec "$3" "$4"`,
		marker, working[0], working[1], limited[0], limited[1]}
	h.asAgent("claude")
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.MaxIterations = 1
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitDone, "max_iterations")
	h.wantOutput("usage limit reached (Claude AI usage limit reached|", "waiting for limit reset ("+time.Unix(reset, 0).Format("15:04")+")",
		"iteration 1 completed (exit: 0")
	if n := strings.Count(h.out.String(), "starting iteration 1/1"); n != 2 {
		t.Errorf("iteration 1 started %d times, want 2 (the limited one not counted):\n%s", n, h.out.String())
	}
	if st := h.state(); st.ConsecutiveFailures != 0 || st.TotalFailures != 0 {
		t.Errorf("a usage limit counted as a failure: %+v", st)
	}
}

func TestAStartupDialogStopsTheLoopBeforeThePromptIsTyped(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "do the work", nil)
	got := filepath.Join(h.srv.Dir, "typed")
	h.cfg.Command = h.agent("print Do you trust the files in this folder?\nprint\nprint ❯ 1. Yes, proceed\nprint   2. No, exit\nready\nread\nsave " + got + "\nquiet\n")
	h.asAgent("claude")
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitFailed, "startup-dialog")
	h.wantOutput("is asking whether to trust the folder; the prompt was not typed")
	time.Sleep(500 * time.Millisecond)
	if _, err := os.Stat(got); err == nil {
		t.Errorf("the prompt was typed into the dialog")
	}
}

// The advice names the settings the agent reads: a wrapper or env HOME=…
// gives it another home than the watcher's.
func TestAStartupDialogsAdviceNamesTheHomeTheAgentRanWith(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "do the work", nil)
	home := filepath.Join(h.srv.Dir, "agent-home")
	h.cfg.Command = append([]string{"env", "HOME=" + home},
		h.agent("print Do you trust the files in this folder?\nprint\nprint ❯ 1. Yes, proceed\nprint   2. No, exit\nready\nread\nquiet\n")...)
	h.asAgent("claude")
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitFailed, "startup-dialog")
	h.wantOutput("in " + home + "/.claude.json")
}

// An agent that says it is not logged in ends the loop at once, with its
// sentence: no iteration can work, five failures would only burn time.
func TestAnAgentNotLoggedInEndsTheLoopAtOnceWithItsSentence(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "do the work", nil)
	h.cfg.Command = h.agent("print   ? for shortcuts\nready\nread\necho\nprint Not logged in · Please run /login\nprint   ? for shortcuts\nquiet\n")
	h.asAgent("claude")
	h.cfg.MaxIterations = 5
	res := h.run(60 * time.Second)
	h.wantResult(res, words.ExitFailed, "not_logged_in")
	h.wantOutput(`says "Not logged in · Please run /login": it is not logged in, or its API refused its key`)
	if n := strings.Count(h.out.String(), "starting iteration"); n != 1 {
		t.Errorf("%d iterations started, want 1:\n%s", n, h.out.String())
	}
	if st := h.state(); !strings.Contains(st.Error, "Not logged in · Please run /login") { // status and the tmux message show it
		t.Errorf("state error %q, want the agent's sentence", st.Error)
	}
}
