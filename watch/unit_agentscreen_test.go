package watch_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// asClaude has the loop read its agent's screen with Claude Code's profile,
// with a short idle grace.
func (u *unit) asClaude() {
	u.t.Helper()
	p, ok := agent.Lookup("claude")
	if !ok {
		u.t.Fatal("no profile claude")
	}
	p.IdleGrace = time.Second
	u.cfg.Agent, u.cfg.ReadyPattern = p, p.Ready
	u.cfg.LimitWait = time.Hour
}

// claudeScreen is an agent drawing Claude Code's idle footer and a "> "
// prompt, that answers each submitted line with reply (nil: nothing).
func claudeScreen(reply func(t *tmuxfake.Term, input string)) func(int) *tmuxfake.Program {
	return func(int) *tmuxfake.Program {
		p := repl(reply)
		prompt := p.Start
		p.Start = func(t *tmuxfake.Term) {
			t.Write("  ? for shortcuts\n")
			prompt(t)
		}
		return p
	}
}

// trustDialog is the dialog Claude Code opens in a folder it does not trust yet.
func trustDialog(int) *tmuxfake.Program {
	return &tmuxfake.Program{Start: func(t *tmuxfake.Term) {
		t.Write("Do you trust the files in this folder?\n\n❯ 1. Yes, proceed\n  2. No, exit\n")
	}}
}

func TestUnitAStartupDialogStopsTheLoopBeforeThePromptIsTyped(t *testing.T) {
	u := newUnit(t, "do the work", trustDialog)
	u.asClaude()
	u.wantResult(u.run(), contract.ExitFailed, "startup-dialog")
	u.wantOutput("is asking whether to trust the folder; the prompt was not typed")
	if pastes, keys := u.pastes(), u.keys(); len(pastes) > 0 || len(keys) > 0 {
		t.Errorf("the prompt was typed into the dialog: pasted %q, keys %q", pastes, keys)
	}
}

// The advice names the settings the agent reads: a wrapper or env HOME=…
// gives it another home than the watcher's.
func TestUnitAStartupDialogsAdviceNamesTheHomeTheAgentRanWith(t *testing.T) {
	u := newUnit(t, "do the work", trustDialog)
	home := filepath.Join(u.cfg.Dir, "agent-home")
	u.cfg.Command = []string{"env", "HOME=" + home, "agent"}
	u.asClaude()
	u.wantResult(u.run(), contract.ExitFailed, "startup-dialog")
	u.wantOutput("in " + home + "/.claude.json")
}

// An agent that says it is not logged in ends the loop at once, with its
// sentence: no iteration can work, five failures would only burn time.
func TestUnitAnAgentNotLoggedInEndsTheLoopAtOnceWithItsSentence(t *testing.T) {
	u := newUnit(t, "do the work", claudeScreen(func(t *tmuxfake.Term, _ string) {
		t.Write("Not logged in · Please run /login\n  ? for shortcuts")
	}))
	u.asClaude()
	u.cfg.MaxIterations = 5
	u.wantResult(u.run(), contract.ExitFailed, "not_logged_in")
	u.wantOutput(`says "Not logged in · Please run /login": it is not logged in, or its API refused its key`)
	if n := strings.Count(u.out.String(), "starting iteration"); n != 1 {
		t.Errorf("%d iterations started, want 1:\n%s", n, u.out.String())
	}
	if st := u.state(); !strings.Contains(st.Error, "Not logged in · Please run /login") { // status and the tmux message show it
		t.Errorf("state error %q, want the agent's sentence", st.Error)
	}
}

// A question nobody answers is given the dialog timeout, then the
// iteration starts again.
func TestUnitAQuestionUnansweredForTheDialogTimeoutRestartsTheIteration(t *testing.T) {
	u := newUnit(t, "do the work", claudeScreen(func(t *tmuxfake.Term, _ string) {
		t.Write("Bash command\n  rm -rf build\nDo you want to proceed?\n❯ 1. Yes\n  2. No")
	}))
	u.asClaude()
	u.cfg.InactivityTimeout = 30 * time.Second
	u.cfg.DialogTimeout = 2 * time.Second
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantOutput("question unanswered for 2s, restarting")
}

func TestUnitAUsageLimitWaitsForTheResetAndDoesNotCountTheIteration(t *testing.T) {
	reset := unitStart.Add(3 * time.Second)
	u := newUnit(t, "do the work", func(n int) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(t *tmuxfake.Term) {
			if n == 1 { // the first start meets the limit; after the reset the agent works
				t.Write(limitText(reset) + "\n")
				t.Exit(1)
				return
			}
			t.Write("working\n")
			t.Exit(0)
		}}
	})
	u.asClaude()
	u.cfg.MinLimitWait = time.Nanosecond // the reset, not a minute
	u.cfg.PromptMode = agent.ModeArg
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantOutput("usage limit reached (Claude AI usage limit reached|", "waiting for limit reset ("+reset.Format("15:04")+")",
		"iteration 1 completed (exit: 0")
	if n := strings.Count(u.out.String(), "starting iteration 1/1"); n != 2 {
		t.Errorf("iteration 1 started %d times, want 2 (the limited one not counted):\n%s", n, u.out.String())
	}
	if st := u.state(); st.ConsecutiveFailures != 0 || st.TotalFailures != 0 {
		t.Errorf("a usage limit counted as a failure: %+v", st)
	}
}

// claudeWorking is a Claude Code that works for a second on each prompt
// (its spinner up), then shows its reply and its idle footer.
func (u *unit) claudeWorking() func(int) *tmuxfake.Program {
	return claudeScreen(func(t *tmuxfake.Term, _ string) {
		t.Write("* Working (esc to interrupt)")
		u.plan(time.Second, func(t *tmuxfake.Term) {
			t.Clear()
			t.Write("● Done with the work for this iteration.\n  ? for shortcuts\n")
		})
	})
}

func TestUnitAnAgentIdleAtItsPromptEndsTheTurnWithoutWaitingForInactivity(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	u.simulate()
	u.launch(u.claudeWorking())
	u.asClaude()
	u.cfg.InactivityTimeout = 5 * time.Minute // far beyond the turn
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantOutput("iteration 1 completed (turn ended", "iteration 2 completed (turn ended")
	st := u.state()
	if st.TurnGapMS == nil || *st.TurnGapMS < 0 || st.LastTurnEnded == "" {
		t.Errorf("state lacks the turn gap: turn_gap_ms %v, last_turn_ended %q", st.TurnGapMS, st.LastTurnEnded)
	}
	if st.Agent != "claude" || st.AgentState == "" {
		t.Errorf("state agent = %q, agent_state = %q", st.Agent, st.AgentState)
	}
	u.wantLog("[END] iteration 1 turn_end")
}
