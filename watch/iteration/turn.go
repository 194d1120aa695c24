package iteration

import (
	"crypto/md5"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// turn follows the agent through one iteration by what its screen shows
// and its hooks report.
type turn struct {
	cfg    *Settings // read only
	clock  clock.Clock
	rec    Record
	status Status
	pane   Pane
	hooks  Hooks
	events *events
	out    *output // whether it turned on bracketed paste

	sawWork     bool      // the busy marker or a finished turn showed since the prompt went in
	dialogSince time.Time // a question has waited for the person since then
	ended       time.Time // when the turn ended: idle seen, or the agent's hook
	detail      string    // the limit text, or the start-up dialog's index
	// dialogByHook: the agent's hook said it waits for the person; the
	// screen showing it at work again clears it.
	dialogByHook bool
	inputAt      time.Time // the needs-input report last taken
	workAt       time.Time // the working report last taken
	// byHook: the turn ended by the agent's turn-end hook (hookAt its
	// report); asked: a report at or before it was followed by a box that
	// waits for a key, so it ended nothing.
	byHook        bool
	hookAt, asked time.Time
	fg            agent.Foreground // the agent's processes at an earlier look, to tell idle from at work
}

// observe judges one look at the screen: the agent's state first (a
// start-up dialog, a limit, a question, the end of its turn), then
// inactivity. It returns the ending, if any, and how soon another look could
// change the verdict when nothing else happens.
func (t *turn) observe(det *agent.Detector, screen string, now time.Time) (Ending, bool, time.Duration) {
	lines := agent.ScreenLines(screen, t.cfg.Lines)
	stable := det.Observe(md5.Sum([]byte(strings.Join(lines, "\n"))), now)
	state, detail := t.cfg.Agent.Classify(lines)
	if state == agent.StateWorking {
		t.dialogByHook = false // answered: it works again
	} else if t.dialogByHook && state != agent.StateStartup && state != agent.StateLimited && state != agent.StateFinished {
		state = agent.StateDialog // its hook said it waits for the person, whatever the screen shows
	}
	switch state {
	case agent.StateStartup:
		t.detail = detail
		t.events.tell(contract.EventStartup, contract.ViaScreen, detail)
		return EndStartup, true, 0
	case agent.StateNoLogin:
		t.detail = detail
		return EndNoLogin, true, 0
	case agent.StateLimited:
		t.detail = detail
		t.events.tell(contract.EventLimit, contract.ViaScreen, detail)
		return EndLimit, true, 0
	case agent.StateDialog:
		t.askPerson(contract.ViaScreen, "", now)
		if t.cfg.DialogTimeout > 0 {
			waited := now.Sub(t.dialogSince)
			if waited >= t.cfg.DialogTimeout {
				return EndDialog, true, 0
			}
			return EndNone, false, t.cfg.DialogTimeout - waited
		}
		return EndNone, false, 0 // a question is not inactivity
	}
	if !t.dialogSince.IsZero() { // answered: the agent works again
		t.dialogSince = time.Time{}
		det.Reset()
		stable = det.Observe(md5.Sum([]byte(strings.Join(lines, "\n"))), now)
		t.status.Show(contract.StatusRunning)
	}
	t.rec.AgentState(state)
	if state == agent.StateWorking || state == agent.StateFinished {
		if !t.sawWork {
			t.events.tell(contract.EventBusy, contract.ViaScreen, "")
		}
		t.sawWork = true
	}
	next := t.cfg.InactivityTimeout - stable
	idle, via := state == agent.StateIdle || state == agent.StateFinished, contract.ViaScreen
	if state == agent.StateUnknown && t.out.pasteOn && t.cfg.Agent.IdleGrace > 0 {
		// The profile's strings say nothing (a new release?): the agent's
		// processes idle on its terminal tell instead.
		cur := agent.LookForeground(t.pane.AgentPID(), now)
		if agent.IdleBetween(t.fg, cur) {
			idle, via = true, contract.ViaIdle
		} else {
			t.fg = cur
			next = min(next, max(agent.IdleSpan, t.cfg.Agent.IdleGrace-stable))
		}
	}
	if grace := t.cfg.Agent.IdleGrace; idle && grace > 0 {
		if !t.sawWork {
			grace *= 4 // a turn too quick to be seen busy: be surer it is over
		}
		if stable >= grace {
			return t.turnEndByScreen(via, stable, now), true, 0
		}
		next = min(next, grace-stable)
	}
	if stable >= t.cfg.InactivityTimeout {
		return EndInactivity, true, 0
	}
	return EndNone, false, next
}

// turnEndByScreen ends the turn the screen says is over, unless the
// agent's own report came first (then that is how it ended). A hook that
// should have reported it and did not is noted, once.
func (t *turn) turnEndByScreen(via string, stable time.Duration, now time.Time) Ending {
	if end, ok := t.hookEnding(); ok {
		return end
	}
	t.hookSilent(agent.HookTurnEnd)
	t.ended = now.Add(-stable)
	t.events.tell(contract.EventTurnEnd, via, "")
	return EndTurn
}

// askPerson marks the iteration as waiting for the person, once per question.
func (t *turn) askPerson(via, detail string, now time.Time) {
	if !t.dialogSince.IsZero() {
		return
	}
	t.dialogSince = now
	t.events.tell(contract.EventDialog, via, detail)
	t.rec.Sayf("the agent is asking a question; waiting for an answer in the pane")
	t.rec.Log("DIALOG", fmt.Sprintf("iteration %d needs input", t.rec.Iteration()))
	t.rec.AgentState(agent.StateDialog)
	t.status.Show(contract.StatusNeedsInput)
}

// hookEnding reads what the agent's hooks reported since the last look: a
// failed turn (a usage limit or an API error), the end of its turn, or a
// question for the person (which ends nothing).
func (t *turn) hookEnding() (Ending, bool) {
	if r, ok := t.hooks.Record(agent.HookTurnFailed); ok {
		limit, text := agent.TurnFailure(r.Detail)
		t.detail = text
		if limit {
			t.events.tell(contract.EventLimit, contract.ViaHook, text)
			return EndLimit, true
		}
		t.events.tell(contract.EventTurnFailed, contract.ViaHook, text)
		return EndTurnFailed, true
	}
	if t.hookTurnEnded() {
		return EndTurn, true
	}
	asked, hasAsked := t.hooks.Record(agent.HookNeedsInput)
	if hasAsked && asked.At.After(t.inputAt) {
		t.inputAt, t.dialogByHook = asked.At, true
		t.askPerson(contract.ViaHook, asked.Detail, t.clock.Now())
	}
	if r, ok := t.hooks.Record(agent.HookWorking); ok && r.At.After(t.workAt) {
		t.workAt = r.At
		if !hasAsked || r.At.After(asked.At) { // a tool ran after the question: answered
			t.dialogByHook, t.sawWork = false, true
			if !t.dialogSince.IsZero() {
				t.dialogSince = time.Time{}
				t.status.Show(contract.StatusRunning)
			}
			t.rec.AgentState(agent.StateWorking)
		}
	}
	return EndNone, false
}

// hookTurnEnded reports whether the agent's own turn-end hook fired for
// this iteration.
func (t *turn) hookTurnEnded() bool {
	r, ok := t.hooks.Record(agent.HookTurnEnd)
	if !ok || !t.asked.IsZero() && !r.At.After(t.asked) {
		return false
	}
	t.ended, t.byHook, t.hookAt = t.clock.Now(), true, r.At
	return true
}

// askedAfterHook reports whether the screen, once drawn after the agent's
// turn-end hook, shows a box that waits for a key (a permission, a notice
// to confirm): that is a question for the person, not the turn's end, which
// the agent's next report or its idle screen tells. Otherwise the turn's
// end by the hook is told.
func (t *turn) askedAfterHook(screen string) bool {
	if st, _ := t.cfg.Agent.Classify(agent.ScreenLines(screen, t.cfg.Lines)); st == agent.StateDialog {
		t.asked, t.byHook, t.ended = t.hookAt, false, time.Time{}
		t.askPerson(contract.ViaScreen, "after its turn-end hook", t.clock.Now())
		return true
	}
	t.events.tell(contract.EventTurnEnd, contract.ViaHook, "")
	return false
}

// hookSilent notes that a hook the watcher installed did not report what
// the screen showed: the agent cannot reach this program or the loop's
// folder (a sandbox, a container). The screen tells the agent's state for
// the rest of the loop, and the person is told once.
func (t *turn) hookSilent(name string) {
	if !t.hooks.Reports(name) || t.hooks.Lost() {
		return
	}
	if _, ok := t.hooks.Record(name); ok {
		return
	}
	t.hooks.Lose()
	t.events.tell(contract.EventFallback, contract.ViaScreen, "hook "+name+" did not report")
	t.rec.Log("HOOK", fmt.Sprintf("iteration %d the agent's %s hook did not report; reading the screen from now on", t.rec.Iteration(), name))
	t.rec.Warnf("the agent's %s hook did not report (an agent in a sandbox cannot reach %s or %s); "+
		"reading its screen for the rest of the loop", name, t.cfg.Executable, t.rec.Store().Dir)
}

// hooksBrokeStart drops the hooks' arguments when the agent exited with an
// error before it ever took input and none of its hooks reported: the
// arguments may be what it could not start with (Claude Code in a sandbox
// that cannot see the --settings file exits "Settings file not found").
// From the next iteration the command runs as given and the screen tells.
func (t *turn) hooksBrokeStart(r Outcome, ready bool) {
	if !t.hooks.On() || r.Ending != EndExit || r.Code == 0 || r.Code == 126 || r.Code == 127 || ready || t.hooks.Plain() == nil {
		return
	}
	for _, name := range agent.HookNames {
		if _, ok := t.hooks.Record(name); ok {
			return // they reach us: something else failed
		}
	}
	t.hooks.Drop()
	t.events.tell(contract.EventFallback, contract.ViaExit, "the agent exited before it took input, with the hooks' arguments")
	t.rec.Log("HOOK", fmt.Sprintf("iteration %d the agent exited %d before it took input; running it without its hooks from now on", t.rec.Iteration(), r.Code))
	t.rec.Warnf("the agent exited (status %d) before it took input, with the arguments that install its hooks; "+
		"running it without them from the next iteration (the screen tells its state)", r.Code)
}

// quiet takes output until the agent pauses a moment, at most hookSettle.
func (o *output) quiet() {
	if o.stream() == nil {
		return
	}
	deadline := o.clock.After(hookSettle)
	for {
		o.take()
		select {
		case <-o.stream().Notify():
		case <-o.clock.After(hookQuiet):
			o.take()
			return
		case <-deadline:
			o.take()
			return
		}
	}
}

// drawnWait bounds the wait for an agent's screen to show the turn its
// hook said is over.
const drawnWait = 3 * time.Second

// awaitDrawn waits, after the agent's hook said its turn is over, until
// its screen shows that too, taking its output meanwhile, so that the done
// token in the reply is read in this iteration: for an agent whose hook
// comes before its screen shows the last words (agent.Profile.DrawsAfterHook),
// until the finished turn shows (its Finished line, else its idle screen);
// for any other, while its screen still shows it working (a busy machine
// draws the reply late). At most drawnWait.
func (w *Watch) awaitDrawn() {
	// The finished line where it draws one, else its idle screen.
	done := agent.StateFinished
	if w.cfg.Agent.Finished == nil {
		done = agent.StateIdle
	}
	deadline := w.clock.Now().Add(drawnWait)
	for {
		w.out.take()
		screen, err := capture(w.tmux, w.cfg)
		if err != nil {
			return
		}
		switch st, _ := w.cfg.Agent.Classify(agent.ScreenLines(screen, w.cfg.Lines)); {
		case st == agent.StateDialog:
			return
		case w.cfg.Agent.DrawsAfterHook && st == done:
			return
		case !w.cfg.Agent.DrawsAfterHook && st != agent.StateWorking:
			return
		}
		if !w.clock.Now().Before(deadline) {
			return
		}
		<-w.clock.After(100 * time.Millisecond)
	}
}

// doneOnScreen reads the done token from the screen at the turn's end, for
// an agent whose output stream never holds it whole (agent.Profile.Typewriter).
// The screen shows the prompt too: as in the stream, a match that is part of
// its echo does not count.
func (w *Watch) doneOnScreen() {
	if !w.cfg.Agent.Typewriter || w.cfg.DonePattern == nil || w.out.match != "" || w.rec.Store() == nil {
		return
	}
	prompt, err := os.ReadFile(w.rec.Store().Path(state.PromptCopy))
	if err != nil {
		return
	}
	screen, err := capture(w.tmux, w.cfg)
	if err != nil {
		return
	}
	sc := agent.NewDoneScanner(w.cfg.DonePattern, string(prompt))
	m, ok := sc.Feed(strings.Join(agent.ScreenLines(screen, w.cfg.Lines), "\n") + "\n")
	if !ok {
		m, ok = sc.Flush()
	}
	if ok {
		w.out.match = m
		w.events.tell(contract.EventDone, contract.ViaScreen, m)
	}
}
