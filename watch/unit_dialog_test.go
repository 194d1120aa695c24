package watch_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// A screen that waits for a key is a question, never a turn's end:
// whatever the agent's hooks said before it was drawn, and whether or not
// the profile knows the box's words.

// autoModeNotice is a notice Claude Code drew in auto mode after "Waiting
// for permission…": no string of its profile, only the generic key hints.
const autoModeNotice = "╭──────────────────────────────────────────────╮\n" +
	"│ We're changing auto mode                     │\n" +
	"│ Tools that were allowed may now ask first.   │\n" +
	"│ Enter to continue · Esc to cancel            │\n" +
	"╰──────────────────────────────────────────────╯\n" +
	"  ⏵⏵ auto mode on (shift+tab to cycle)\n"

// claudeProceed is Claude Code's own permission box.
const claudeProceed = " Bash command\n   rm -rf build\n Do you want to proceed?\n ❯ 1. Yes\n   2. No\n\n Esc to cancel · Tab to amend\n"

// boxAfterTurnEnd runs a hooked Claude Code whose Stop hook fires and
// which then draws box and waits; the person answers at 10 s (virtual),
// the agent works on and ends its turn by its hook again. It returns what
// the pane's status showed while the box waited.
func boxAfterTurnEnd(t *testing.T, box string) (u *unit, ev *events, asking string) {
	u = newUnit(t, "do the work", nil)
	ev = u.hooked()
	u.launch(func(int) *tmuxfake.Program {
		return u.claudeHooked(func(*tmuxfake.Term) {
			u.plan(300*time.Millisecond, func(t *tmuxfake.Term) {
				u.report(t, "Stop", "")
				t.Clear()
				t.Write("● Waiting for permission…\n" + box)
				u.schedule(5*time.Second, func() { asking, _, _ = u.tmux.PaneOption(u.cfg.Pane, contract.OptionState) })
			})
			u.plan(10*time.Second, func(t *tmuxfake.Term) { // answered: the tool runs, the turn ends
				u.mark("answered")
				t.Clear()
				t.Write("● Ran it.\n✻ Worked for 10s\n  ? for shortcuts\n")
				u.report(t, "Stop", "")
			})
		})
	})
	u.cfg.Agent.IdleGrace = 0 // only a hook ends the turn
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	return u, ev, asking
}

func TestUnitABoxThatWaitsAfterTheTurnEndHookIsAQuestion(t *testing.T) {
	for _, c := range []struct{ name, box string }{{"auto mode notice", autoModeNotice}, {"do you want to proceed", claudeProceed}} {
		t.Run(c.name, func(t *testing.T) {
			u, ev, asking := boxAfterTurnEnd(t, c.box)
			if asking != "needs-input" {
				t.Errorf("while the box waited the pane showed %q, want needs-input", asking)
			}
			u.wantLog("[DIALOG] iteration 1 needs input", "[END] iteration 1 turn_end")
			u.wantOutput("the agent is asking a question")
			if _, ok := u.marked("answered"); !ok {
				t.Fatal("the box was never answered")
			}
			if !ev.has(1, contract.EventDialog, contract.ViaScreen) {
				t.Errorf("no question seen on the screen; events: %s", ev)
			}
			if after, _, _ := ev.last(1, contract.EventTurnEnd); after < 10*time.Second {
				t.Errorf("the turn ended %s after the start, before the box was answered (10 s); events: %s", after, ev)
			}
		})
	}
}

// With no hook at all, the notice whose words no profile knows, drawn
// above the idle footer, is a question too: not running, not idle.
func TestUnitABoxThatWaitsWithNoHookNeedsInput(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	u.simulate()
	var asking string
	u.launch(claudeScreen(func(t *tmuxfake.Term, _ string) {
		t.Write("* Working (esc to interrupt)")
		u.plan(time.Second, func(t *tmuxfake.Term) {
			t.Clear()
			t.Write("● Waiting for permission…\n" + autoModeNotice)
			u.schedule(30*time.Second, func() { asking, _, _ = u.tmux.PaneOption(u.cfg.Pane, contract.OptionState) })
		})
		u.plan(time.Minute, func(t *tmuxfake.Term) {
			u.mark("answered")
			t.Clear()
			t.Write("● Ran it.\n✻ Worked for 1m 0s\n  ? for shortcuts\n")
		})
	}))
	u.asClaude()
	u.cfg.InactivityTimeout = 10 * time.Minute
	ev := &events{}
	logged := u.cfg.Events
	u.cfg.Events = func(e contract.Event) {
		logged(e)
		ev.add(e)
	}
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if asking != "needs-input" {
		t.Errorf("while the box waited the pane showed %q, want needs-input", asking)
	}
	u.wantLog("[DIALOG] iteration 1 needs input", "[END] iteration 1 turn_end")
	if after, _, _ := ev.last(1, contract.EventTurnEnd); after < time.Minute {
		t.Errorf("the turn ended %s after the start, before the box was answered (1 min); events: %s", after, ev)
	}
	if strings.Contains(u.out.String(), "inactivity") {
		t.Errorf("a question counted as inactivity:\n%s", u.out.String())
	}
}

// While Claude Code runs a tool its screen says so ("Running… (19s)",
// "esc to interrupt"): status tells it is working for the whole turn, not
// idle as it was when the prompt went in.
func TestUnitStatusSaysWorkingWhileTheAgentRunsATool(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	u.simulate()
	var during string
	u.launch(claudeScreen(func(t *tmuxfake.Term, _ string) {
		t.Write("● Bash(make test)\n  ⎿  Running… (19s)\n\n✶ Compiling… (19s · esc to interrupt)\n")
		u.schedule(10*time.Second, func() {
			if st, err := u.store.Load(); err == nil {
				during = st.AgentState
			}
		})
		u.plan(20*time.Second, func(t *tmuxfake.Term) {
			t.Clear()
			t.Write("● Tests pass.\n✻ Worked for 20s\n  ? for shortcuts\n")
		})
	}))
	u.asClaude()
	u.cfg.InactivityTimeout = 10 * time.Minute
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if during != "working" {
		t.Errorf("status read agent state %q while the tool ran, want working", during)
	}
}

// Claude Code's tool hooks say it works whatever its screen shows (a
// release whose strings no profile knows): status says working while a
// tool runs, and a tool run after a permission it asked for means the
// question was answered.
func TestUnitTheToolHooksSayTheAgentWorksAndAnswerTheQuestion(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	u.hooked()
	seen := map[string]string{}
	look := func(at string) {
		st, _ := u.store.Load()
		shown, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionState)
		seen[at] = st.AgentState + " " + shown
	}
	u.launch(func(int) *tmuxfake.Program {
		p := repl(func(t *tmuxfake.Term, input string) {
			if input == "" {
				return // an Enter more
			}
			u.report(t, "UserPromptSubmit", "")
			t.Clear()
			t.Write("⏻ a screen no profile has seen\n")
			u.plan(300*time.Millisecond, func(t *tmuxfake.Term) { u.report(t, "PreToolUse", `{"tool_name":"Bash"}`) })
			u.schedule(2*time.Second, func() { look("tool") })
			u.plan(3*time.Second, func(t *tmuxfake.Term) { u.report(t, "PermissionRequest", `{"tool_name":"Bash"}`) })
			u.schedule(5*time.Second, func() { look("asked") })
			u.plan(6*time.Second, func(t *tmuxfake.Term) { u.report(t, "PostToolUse", `{"tool_name":"Bash"}`) })
			u.schedule(8*time.Second, func() { look("answered") })
			u.plan(10*time.Second, func(t *tmuxfake.Term) { u.report(t, "Stop", "") })
		})
		p.Start = func(t *tmuxfake.Term) {
			u.report(t, "SessionStart", "")
			t.Raw("\x1b[?2004h")
			t.Write("> ")
		}
		return p
	})
	u.cfg.Agent.IdleGrace = 0
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	for at, want := range map[string]string{"tool": "working running", "asked": "needs-input needs-input", "answered": "working running"} {
		if seen[at] != want {
			t.Errorf("%s: agent state and pane status %q, want %q", at, seen[at], want)
		}
	}
}
