package watch_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
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
				u.schedule(5*time.Second, func() { asking, _, _ = u.tmux.PaneOption(u.cfg.Pane, words.OptionState) })
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
	u.wantResult(u.run(), words.ExitDone, "max_iterations")
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
			if !ev.has(1, words.EventDialog, words.ViaScreen) {
				t.Errorf("no question seen on the screen; events: %s", ev)
			}
			if after, _, _ := ev.last(1, words.EventTurnEnd); after < 10*time.Second {
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
			u.schedule(30*time.Second, func() { asking, _, _ = u.tmux.PaneOption(u.cfg.Pane, words.OptionState) })
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
	u.cfg.Events = func(e words.Event) {
		logged(e)
		ev.add(e)
	}
	u.wantResult(u.run(), words.ExitDone, "max_iterations")
	if asking != "needs-input" {
		t.Errorf("while the box waited the pane showed %q, want needs-input", asking)
	}
	u.wantLog("[DIALOG] iteration 1 needs input", "[END] iteration 1 turn_end")
	if after, _, _ := ev.last(1, words.EventTurnEnd); after < time.Minute {
		t.Errorf("the turn ended %s after the start, before the box was answered (1 min); events: %s", after, ev)
	}
	if strings.Contains(u.out.String(), "inactivity") {
		t.Errorf("a question counted as inactivity:\n%s", u.out.String())
	}
}

