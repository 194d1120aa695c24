package watch_test

import (
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// knownAgent is a profile whose screen says when the agent is at work and
// when it waits at its prompt.
func knownAgent() agent.Profile {
	return agent.Profile{
		Name:      "fake",
		Ready:     regexp.MustCompile(`(?m)^>$`),
		Busy:      regexp.MustCompile(`esc to interrupt`),
		Dialog:    regexp.MustCompile(`Do you want to proceed\?`),
		Limit:     regexp.MustCompile(`usage limit reached`),
		IdleGrace: 2 * time.Second,
	}
}

// working is an agent that shows itself busy once the prompt is
// submitted, and then does what the test planned (see unit.plan).
func working(then func(t *tmuxfake.Term)) func(int) *tmuxfake.Program {
	return func(int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, input string) {
			t.Write("* thinking (esc to interrupt)")
			if then != nil {
				then(t)
			}
		})
	}
}

func TestUnitAnIdleScreenEndsTheTurnAfterTheGraceAndTheAgentRunsOn(t *testing.T) {
	u := newUnit(t, "work", nil)
	u.simulate()
	u.launch(working(func(*tmuxfake.Term) {
		u.plan(time.Minute, func(t *tmuxfake.Term) {
			u.mark("idle")
			t.Clear()
			t.Write("all done\n>")
		})
	}))
	u.cfg.Agent = knownAgent()
	u.cfg.InactivityTimeout = 10 * time.Minute // the turn's end, not inactivity, must end it
	u.cfg.ProgressFile = filepath.Join(u.cfg.Dir, "progress.md")
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantLog("[START] iteration 1/1", "[END] iteration 1 turn_end")
	// The progress file names the same ending as the log, not "exit".
	if progress, _ := os.ReadFile(u.cfg.ProgressFile); !strings.Contains(string(progress), "- Exit: none (the agent had not exited)\n- Ended by: turn_end\n") {
		t.Errorf("progress file:\n%s", progress)
	}
	idle, ok := u.marked("idle")
	if !ok {
		t.Fatal("the agent never went idle")
	}
	if st := u.state(); st.LastTurnEnded == "" || st.ExitReason == nil || *st.ExitReason != "max_iterations" {
		t.Errorf("state = %+v", st)
	}
	if waited := clock.Since(u.clock, idle); waited < u.cfg.Agent.IdleGrace {
		t.Errorf("the turn ended %s after the agent went idle, want the idle grace (%s) first", waited, u.cfg.Agent.IdleGrace)
	}
	if p, _ := u.tmux.Pane(u.cfg.Pane); p.Dead {
		t.Error("the agent was ended with its turn; it runs on at its prompt")
	}
}

func TestUnitTheAgentsTurnEndHookEndsTheTurnWhileTheScreenStillLooksBusy(t *testing.T) {
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGUSR1) // the hook wakes this process's loop
	defer signal.Stop(wake)
	var hook func(t *tmuxfake.Term)
	u := newUnit(t, "work", nil)
	u.simulate()
	u.wake = wake
	u.launch(working(func(*tmuxfake.Term) { u.plan(time.Minute, hook) }))
	u.cfg.Agent = knownAgent()
	u.cfg.Agent.TurnHook = agent.HookCodexNotify
	u.cfg.Command = []string{"codex"} // the hook goes after the agent's own program word
	u.cfg.TurnHook, u.cfg.Executable = true, "/usr/bin/ralph-watch"
	u.cfg.InactivityTimeout = 10 * time.Minute
	hook = func(t *tmuxfake.Term) {
		u.mark("hook")
		iteration := ""
		for _, e := range t.Env {
			if v, ok := strings.CutPrefix(e, "RALPH_ITERATION="); ok {
				iteration = v
			}
		}
		if err := agent.TurnEnded(u.store, iteration); err != nil {
			u.t.Errorf("record the turn end: %v", err)
		}
	}
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantLog("[END] iteration 1 turn_end")
	if _, ok := u.marked("hook"); !ok {
		t.Error("the hook never reported")
	}
	if argv := u.tmux.Calls("respawn")[0].Args; !strings.Contains(strings.Join(argv, " "), "notify=") {
		t.Errorf("the agent was started without its turn-end hook: %q\n%s", argv, u.out.String())
	}
}

func TestUnitAQuestionIsNotInactivity(t *testing.T) {
	u := newUnit(t, "work", nil)
	u.simulate()
	u.launch(working(func(*tmuxfake.Term) {
		u.plan(time.Second, func(t *tmuxfake.Term) {
			t.Clear()
			t.Write("Do you want to proceed?\n1. Yes\n2. No")
			u.schedule(9*time.Minute, func() { // still asking, long past the inactivity timeout
				asking, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionState)
				if st := u.state(); asking != "needs-input" || st.AgentState != "needs-input" {
					u.t.Errorf("while the question waits: %s = %q, agent_state = %q, want needs-input", contract.OptionState, asking, st.AgentState)
				}
			})
			u.plan(10*time.Minute, func(t *tmuxfake.Term) { // answered, at last
				t.Clear()
				t.Write("done\n>")
			})
		})
	}))
	u.cfg.Agent = knownAgent()
	u.cfg.InactivityTimeout = time.Minute
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantLog("[DIALOG] iteration 1 needs input", "[END] iteration 1 turn_end")
	u.wantOutput("the agent is asking a question")
	for _, line := range u.logLines() {
		if strings.Contains(line, "inactivity") {
			t.Errorf("a question waiting ten minutes was taken for inactivity: %s", line)
		}
	}
}

func TestUnitAStillBusyScreenIsInactivityAndRestartsTheIteration(t *testing.T) {
	u := newUnit(t, "work", working(nil))
	u.cfg.Agent = knownAgent()
	u.cfg.InactivityTimeout = 10 * time.Minute
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantLog("[TIMEOUT] iteration 1 inactivity_timeout=600s", "[START] iteration 2/2", "[TIMEOUT] iteration 2 inactivity_timeout=600s")
	started := u.started()
	if len(started) != 2 || started[1].Sub(started[0]) < u.cfg.InactivityTimeout {
		t.Errorf("agent started at %v, want a second start an inactivity timeout after the first", started)
	}
	u.wantOutput("[ralph] unit: inactivity timeout (600s), restarting")
	if st := u.state(); st.ConsecutiveFailures != 0 || st.TotalFailures != 0 {
		t.Errorf("inactivity counted as failures: %+v", st)
	}
	if n := strings.Count(strings.Join(u.logLines(), "\n"), "[TIMEOUT] iteration"); n != 2 {
		t.Errorf("log has %d TIMEOUT lines, want 2", n)
	}
}

func TestUnitAClosedPaneOrAStoppedServerEndsTheLoopWithItsReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reason string
		end    func(c *tmuxfake.Client, pane string)
	}{
		{"pane_closed", (*tmuxfake.Client).ClosePane},
		{"server_gone", func(c *tmuxfake.Client, _ string) { c.StopServer() }},
		{"server_gone", func(c *tmuxfake.Client, _ string) { c.RestartServer() }}, // the same pane id, a new server
	} {
		t.Run(tc.reason, func(t *testing.T) {
			var u *unit
			u = newUnit(t, "work", working(func(*tmuxfake.Term) {
				u.schedule(time.Minute, func() { tc.end(u.tmux, u.cfg.Pane) })
			}))
			u.simulate()
			u.cfg.Agent = knownAgent()
			u.cfg.InactivityTimeout = 10 * time.Minute
			u.wantResult(u.run(), contract.ExitFailed, tc.reason)
			if st := u.state(); st.ExitReason == nil || *st.ExitReason != tc.reason {
				t.Errorf("state = %+v, want exit reason %s", st, tc.reason)
			}
			u.wantLog("[START] iteration 1/1")
		})
	}
}
