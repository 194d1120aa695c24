package iteration

import (
	"crypto/md5"
	"fmt"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// turn follows the agent through one iteration by what its screen shows.
type turn struct {
	sawWork     bool      // the busy marker or a finished turn showed since the prompt went in
	dialogSince time.Time // a question has waited for the person since then
	ended       time.Time // when the turn ended: idle seen, or the agent's hook
	detail      string    // the limit text, or the start-up dialog's index
	// dialogByHook: the agent's hook said it waits for the person; the
	// screen showing it at work again clears it.
	dialogByHook bool
	inputAt      time.Time        // the needs-input report last taken
	fg           agent.Foreground // the agent's processes at an earlier look, to tell idle from at work
}

// observe judges one look at the screen: the agent's state first (a
// start-up dialog, a limit, a question, the end of its turn), then
// inactivity. It returns the ending, if any, and how soon another look could
// change the verdict when nothing else happens.
func (w *Watch) observe(det *agent.Detector, screen string, now time.Time) (Ending, bool, time.Duration) {
	lines := agent.ScreenLines(screen, w.cfg.Lines)
	stable := det.Observe(md5.Sum([]byte(strings.Join(lines, "\n"))), now)
	state, detail := w.cfg.Agent.Classify(lines)
	t := &w.turn
	if state == agent.StateWorking {
		t.dialogByHook = false // answered: it works again
	} else if t.dialogByHook && state != agent.StateStartup && state != agent.StateLimited && state != agent.StateFinished {
		state = agent.StateDialog // its hook said it waits for the person, whatever the screen shows
	}
	switch state {
	case agent.StateStartup:
		t.detail = detail
		w.event(words.EventStartup, words.ViaScreen, detail)
		return EndStartup, true, 0
	case agent.StateNoLogin:
		t.detail = detail
		return EndNoLogin, true, 0
	case agent.StateLimited:
		t.detail = detail
		w.event(words.EventLimit, words.ViaScreen, detail)
		return EndLimit, true, 0
	case agent.StateDialog:
		w.askPerson(words.ViaScreen, "", now)
		if w.cfg.DialogTimeout > 0 {
			waited := now.Sub(t.dialogSince)
			if waited >= w.cfg.DialogTimeout {
				return EndDialog, true, 0
			}
			return EndNone, false, w.cfg.DialogTimeout - waited
		}
		return EndNone, false, 0 // a question is not inactivity
	}
	if !t.dialogSince.IsZero() { // answered: the agent works again
		t.dialogSince = time.Time{}
		det.Reset()
		stable = det.Observe(md5.Sum([]byte(strings.Join(lines, "\n"))), now)
		w.status.Show(words.StatusRunning)
	}
	w.rec.AgentState(state)
	if state == agent.StateWorking || state == agent.StateFinished {
		if !t.sawWork {
			w.event(words.EventBusy, words.ViaScreen, "")
		}
		t.sawWork = true
	}
	next := w.cfg.InactivityTimeout - stable
	idle, via := state == agent.StateIdle || state == agent.StateFinished, words.ViaScreen
	if state == agent.StateUnknown && w.pasteOn && w.cfg.Agent.IdleGrace > 0 {
		// The profile's strings say nothing (a new release?): the agent's
		// processes idle on its terminal tell instead.
		cur := agent.LookForeground(w.pane.AgentPID(), now)
		if agent.IdleBetween(t.fg, cur) {
			idle, via = true, words.ViaIdle
		} else {
			t.fg = cur
			next = min(next, max(agent.IdleSpan, w.cfg.Agent.IdleGrace-stable))
		}
	}
	if grace := w.cfg.Agent.IdleGrace; idle && grace > 0 {
		if !t.sawWork {
			grace *= 4 // a turn too quick to be seen busy: be surer it is over
		}
		if stable >= grace {
			return w.turnEndByScreen(via, stable, now), true, 0
		}
		next = min(next, grace-stable)
	}
	if stable >= w.cfg.InactivityTimeout {
		return EndInactivity, true, 0
	}
	return EndNone, false, next
}

// turnEndByScreen ends the turn the screen says is over, unless the
// agent's own report came first (then that is how it ended). A hook that
// should have reported it and did not is noted, once.
func (w *Watch) turnEndByScreen(via string, stable time.Duration, now time.Time) Ending {
	if end, ok := w.hookEnding(); ok {
		return end
	}
	w.hookSilent(agent.HookTurnEnd)
	w.turn.ended = now.Add(-stable)
	w.event(words.EventTurnEnd, via, "")
	return EndTurn
}

// askPerson marks the iteration as waiting for the person, once per question.
func (w *Watch) askPerson(via, detail string, now time.Time) {
	t := &w.turn
	if !t.dialogSince.IsZero() {
		return
	}
	t.dialogSince = now
	w.event(words.EventDialog, via, detail)
	w.rec.Sayf("the agent is asking a question; waiting for an answer in the pane")
	w.rec.Log("DIALOG", fmt.Sprintf("iteration %d needs input", w.rec.Iteration()))
	w.rec.AgentState(agent.StateDialog)
	w.status.Show(words.StatusNeedsInput)
}

// hookEnding reads what the agent's hooks reported since the last look: a
// failed turn (a usage limit or an API error), the end of its turn, or a
// question for the person (which ends nothing).
func (w *Watch) hookEnding() (Ending, bool) {
	if r, ok := w.hooks.Record(agent.HookTurnFailed); ok {
		limit, text := agent.TurnFailure(r.Detail)
		w.turn.detail = text
		if limit {
			w.event(words.EventLimit, words.ViaHook, text)
			return EndLimit, true
		}
		w.event(words.EventTurnFailed, words.ViaHook, text)
		return EndTurnFailed, true
	}
	if w.hookTurnEnded() {
		return EndTurn, true
	}
	if r, ok := w.hooks.Record(agent.HookNeedsInput); ok && r.At.After(w.turn.inputAt) {
		w.turn.inputAt, w.turn.dialogByHook = r.At, true
		w.askPerson(words.ViaHook, r.Detail, w.clock.Now())
	}
	return EndNone, false
}

// hookTurnEnded reports whether the agent's own turn-end hook fired for
// this iteration.
func (w *Watch) hookTurnEnded() bool {
	if _, ok := w.hooks.Record(agent.HookTurnEnd); !ok {
		return false
	}
	w.turn.ended = w.clock.Now()
	w.event(words.EventTurnEnd, words.ViaHook, "")
	return true
}

// hookSilent notes that a hook the watcher installed did not report what
// the screen showed: the agent cannot reach this program or the loop's
// folder (a sandbox, a container). The screen tells the agent's state for
// the rest of the loop, and the person is told once.
func (w *Watch) hookSilent(name string) {
	if !w.hooks.Reports(name) || w.hooks.Lost() {
		return
	}
	if _, ok := w.hooks.Record(name); ok {
		return
	}
	w.hooks.Lose()
	w.event(words.EventFallback, words.ViaScreen, "hook "+name+" did not report")
	w.rec.Log("HOOK", fmt.Sprintf("iteration %d the agent's %s hook did not report; reading the screen from now on", w.rec.Iteration(), name))
	w.rec.Warnf("the agent's %s hook did not report (an agent in a sandbox cannot reach %s or %s); "+
		"reading its screen for the rest of the loop", name, w.cfg.Executable, w.rec.Store().Dir)
}

// hooksBrokeStart drops the hooks' arguments when the agent exited with an
// error before it ever took input and none of its hooks reported: the
// arguments may be what it could not start with (Claude Code in a sandbox
// that cannot see the --settings file exits "Settings file not found").
// From the next iteration the command runs as given and the screen tells.
func (w *Watch) hooksBrokeStart(r Outcome) {
	if !w.hooks.On() || r.Ending != EndExit || r.Code == 0 || r.Code == 126 || r.Code == 127 || w.ready || w.hooks.Plain() == nil {
		return
	}
	for _, name := range agent.HookNames {
		if _, ok := w.hooks.Record(name); ok {
			return // they reach us: something else failed
		}
	}
	w.hooks.Drop()
	w.event(words.EventFallback, words.ViaExit, "the agent exited before it took input, with the hooks' arguments")
	w.rec.Log("HOOK", fmt.Sprintf("iteration %d the agent exited %d before it took input; running it without its hooks from now on", w.rec.Iteration(), r.Code))
	w.rec.Warnf("the agent exited (status %d) before it took input, with the arguments that install its hooks; "+
		"running it without them from the next iteration (the screen tells its state)", r.Code)
}

// quiet takes output until the agent pauses a moment, at most hookSettle.
func (w *Watch) quiet() {
	if w.stream() == nil {
		return
	}
	deadline := w.clock.After(hookSettle)
	for {
		w.take()
		select {
		case <-w.stream().Notify():
		case <-w.clock.After(hookQuiet):
			w.take()
			return
		case <-deadline:
			w.take()
			return
		}
	}
}
