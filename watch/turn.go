package watch

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
func (w *agentWatch) observe(det *agent.Detector, screen string, now time.Time) (ending, bool, time.Duration) {
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
		return endStartup, true, 0
	case agent.StateNoLogin:
		t.detail = detail
		return endNoLogin, true, 0
	case agent.StateLimited:
		t.detail = detail
		w.event(words.EventLimit, words.ViaScreen, detail)
		return endLimit, true, 0
	case agent.StateDialog:
		w.askPerson(words.ViaScreen, "", now)
		if w.cfg.DialogTimeout > 0 {
			waited := now.Sub(t.dialogSince)
			if waited >= w.cfg.DialogTimeout {
				return endDialog, true, 0
			}
			return endNone, false, w.cfg.DialogTimeout - waited
		}
		return endNone, false, 0 // a question is not inactivity
	}
	if !t.dialogSince.IsZero() { // answered: the agent works again
		t.dialogSince = time.Time{}
		det.Reset()
		stable = det.Observe(md5.Sum([]byte(strings.Join(lines, "\n"))), now)
		w.status.show(words.StatusRunning)
	}
	w.rec.agentState(state)
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
		cur := agent.LookForeground(w.pane.agentPID, now)
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
		return endInactivity, true, 0
	}
	return endNone, false, next
}

// turnEndByScreen ends the turn the screen says is over, unless the
// agent's own report came first (then that is how it ended). A hook that
// should have reported it and did not is noted, once.
func (w *agentWatch) turnEndByScreen(via string, stable time.Duration, now time.Time) ending {
	if end, ok := w.hookEnding(); ok {
		return end
	}
	w.hookSilent(agent.HookTurnEnd)
	w.turn.ended = now.Add(-stable)
	w.event(words.EventTurnEnd, via, "")
	return endTurn
}

// askPerson marks the iteration as waiting for the person, once per question.
func (w *agentWatch) askPerson(via, detail string, now time.Time) {
	t := &w.turn
	if !t.dialogSince.IsZero() {
		return
	}
	t.dialogSince = now
	w.event(words.EventDialog, via, detail)
	w.rec.sayf("the agent is asking a question; waiting for an answer in the pane")
	w.rec.log("DIALOG", fmt.Sprintf("iteration %d needs input", w.rec.iteration()))
	w.rec.agentState(agent.StateDialog)
	w.status.show(words.StatusNeedsInput)
}

// hookEnding reads what the agent's hooks reported since the last look: a
// failed turn (a usage limit or an API error), the end of its turn, or a
// question for the person (which ends nothing).
func (w *agentWatch) hookEnding() (ending, bool) {
	if r, ok := w.hooks.record(agent.HookTurnFailed); ok {
		limit, text := agent.TurnFailure(r.Detail)
		w.turn.detail = text
		if limit {
			w.event(words.EventLimit, words.ViaHook, text)
			return endLimit, true
		}
		w.event(words.EventTurnFailed, words.ViaHook, text)
		return endTurnFailed, true
	}
	if w.hookTurnEnded() {
		return endTurn, true
	}
	if r, ok := w.hooks.record(agent.HookNeedsInput); ok && r.At.After(w.turn.inputAt) {
		w.turn.inputAt, w.turn.dialogByHook = r.At, true
		w.askPerson(words.ViaHook, r.Detail, w.clock.Now())
	}
	return endNone, false
}

// hookTurnEnded reports whether the agent's own turn-end hook fired for
// this iteration.
func (w *agentWatch) hookTurnEnded() bool {
	if _, ok := w.hooks.record(agent.HookTurnEnd); !ok {
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
func (w *agentWatch) hookSilent(name string) {
	if !w.hooks.hooked[name] || w.hooks.lost {
		return
	}
	if _, ok := w.hooks.record(name); ok {
		return
	}
	w.hooks.lost = true
	w.event(words.EventFallback, words.ViaScreen, "hook "+name+" did not report")
	w.rec.log("HOOK", fmt.Sprintf("iteration %d the agent's %s hook did not report; reading the screen from now on", w.rec.iteration(), name))
	w.rec.warnf("the agent's %s hook did not report (an agent in a sandbox cannot reach %s or %s); "+
		"reading its screen for the rest of the loop", name, w.cfg.Executable, w.rec.store.Dir)
}

// hooksBrokeStart drops the hooks' arguments when the agent exited with an
// error before it ever took input and none of its hooks reported: the
// arguments may be what it could not start with (Claude Code in a sandbox
// that cannot see the --settings file exits "Settings file not found").
// From the next iteration the command runs as given and the screen tells.
func (w *agentWatch) hooksBrokeStart(r outcome) {
	if !w.hooks.on || r.ending != endExit || r.code == 0 || r.code == 126 || r.code == 127 || w.ready || w.hooks.plain == nil {
		return
	}
	for _, name := range agent.HookNames {
		if _, ok := w.hooks.record(name); ok {
			return // they reach us: something else failed
		}
	}
	w.hooks.drop()
	w.event(words.EventFallback, words.ViaExit, "the agent exited before it took input, with the hooks' arguments")
	w.rec.log("HOOK", fmt.Sprintf("iteration %d the agent exited %d before it took input; running it without its hooks from now on", w.rec.iteration(), r.code))
	w.rec.warnf("the agent exited (status %d) before it took input, with the arguments that install its hooks; "+
		"running it without them from the next iteration (the screen tells its state)", r.code)
}

// quiet takes output until the agent pauses a moment, at most hookSettle.
func (w *agentWatch) quiet() {
	if w.pane.stream == nil {
		return
	}
	deadline := w.clock.After(hookSettle)
	for {
		w.take()
		select {
		case <-w.pane.stream.Notify():
		case <-w.clock.After(hookQuiet):
			w.take()
			return
		case <-deadline:
			w.take()
			return
		}
	}
}
