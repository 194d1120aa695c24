package watch

import (
	"crypto/md5"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
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
func (l *Loop) observe(it *iteration, det *agent.Detector, screen string, now time.Time) (ending, bool, time.Duration) {
	lines := agent.ScreenLines(screen, l.Lines)
	stable := det.Observe(md5.Sum([]byte(strings.Join(lines, "\n"))), now)
	state, detail := l.Agent.Classify(lines)
	t := &it.turn
	if state == agent.StateWorking {
		t.dialogByHook = false // answered: it works again
	} else if t.dialogByHook && state != agent.StateStartup && state != agent.StateLimited && state != agent.StateFinished {
		state = agent.StateDialog // its hook said it waits for the person, whatever the screen shows
	}
	switch state {
	case agent.StateStartup:
		t.detail = detail
		l.event(it, words.EventStartup, words.ViaScreen, detail)
		return endStartup, true, 0
	case agent.StateLimited:
		t.detail = detail
		l.event(it, words.EventLimit, words.ViaScreen, detail)
		return endLimit, true, 0
	case agent.StateDialog:
		l.askPerson(it, words.ViaScreen, "", now)
		if l.DialogTimeout > 0 {
			waited := now.Sub(t.dialogSince)
			if waited >= l.DialogTimeout {
				return endDialog, true, 0
			}
			return endNone, false, l.DialogTimeout - waited
		}
		return endNone, false, 0 // a question is not inactivity
	}
	if !t.dialogSince.IsZero() { // answered: the agent works again
		t.dialogSince = time.Time{}
		det.Reset()
		stable = det.Observe(md5.Sum([]byte(strings.Join(lines, "\n"))), now)
		l.showStatus(words.StatusRunning)
	}
	l.setAgentState(state)
	if state == agent.StateWorking || state == agent.StateFinished {
		if !t.sawWork {
			l.event(it, words.EventBusy, words.ViaScreen, "")
		}
		t.sawWork = true
	}
	next := l.InactivityTimeout - stable
	idle, via := state == agent.StateIdle || state == agent.StateFinished, words.ViaScreen
	if state == agent.StateUnknown && it.pasteOn && l.Agent.IdleGrace > 0 {
		// The profile's strings say nothing (a new release?): the agent's
		// processes idle on its terminal tell instead.
		cur := agent.LookForeground(l.agentPID, now)
		if agent.IdleBetween(t.fg, cur) {
			idle, via = true, words.ViaIdle
		} else {
			t.fg = cur
			next = min(next, max(agent.IdleSpan, l.Agent.IdleGrace-stable))
		}
	}
	if grace := l.Agent.IdleGrace; idle && grace > 0 {
		if !t.sawWork {
			grace *= 4 // a turn too quick to be seen busy: be surer it is over
		}
		if stable >= grace {
			return l.turnEndByScreen(it, via, stable, now), true, 0
		}
		next = min(next, grace-stable)
	}
	if stable >= l.InactivityTimeout {
		return endInactivity, true, 0
	}
	return endNone, false, next
}

// setAgentState records what the screen says, for status --json.
func (l *Loop) setAgentState(s agent.State) {
	if l.Agent.Knows() && l.st.AgentState != s.String() {
		l.st.AgentState = s.String()
	}
}

// turnEndByScreen ends the turn the screen says is over, unless the
// agent's own report came first (then that is how it ended). A hook that
// should have reported it and did not is noted, once.
func (l *Loop) turnEndByScreen(it *iteration, via string, stable time.Duration, now time.Time) ending {
	if end, ok := l.hookEnding(it); ok {
		return end
	}
	l.hookSilent(it, agent.HookTurnEnd)
	it.turn.ended = now.Add(-stable)
	l.event(it, words.EventTurnEnd, via, "")
	return endTurn
}

// askPerson marks the iteration as waiting for the person, once per question.
func (l *Loop) askPerson(it *iteration, via, detail string, now time.Time) {
	t := &it.turn
	if !t.dialogSince.IsZero() {
		return
	}
	t.dialogSince = now
	l.event(it, words.EventDialog, via, detail)
	l.sayf("the agent is asking a question; waiting for an answer in the pane")
	l.log("DIALOG", fmt.Sprintf("iteration %d needs input", l.iteration))
	l.setAgentState(agent.StateDialog)
	l.showStatus(words.StatusNeedsInput)
}

// hookEnding reads what the agent's hooks reported since the last look: a
// failed turn (a usage limit or an API error), the end of its turn, or a
// question for the person (which ends nothing).
func (l *Loop) hookEnding(it *iteration) (ending, bool) {
	if r, ok := l.hookRecord(agent.HookTurnFailed); ok {
		limit, text := agent.TurnFailure(r.Detail)
		it.turn.detail = text
		if limit {
			l.event(it, words.EventLimit, words.ViaHook, text)
			return endLimit, true
		}
		l.event(it, words.EventTurnFailed, words.ViaHook, text)
		return endTurnFailed, true
	}
	if l.hookTurnEnded(it) {
		return endTurn, true
	}
	if r, ok := l.hookRecord(agent.HookNeedsInput); ok && r.At.After(it.turn.inputAt) {
		it.turn.inputAt, it.turn.dialogByHook = r.At, true
		l.askPerson(it, words.ViaHook, r.Detail, l.Clock.Now())
	}
	return endNone, false
}

// hookTurnEnded reports whether the agent's own turn-end hook fired for
// this iteration.
func (l *Loop) hookTurnEnded(it *iteration) bool {
	if _, ok := l.hookRecord(agent.HookTurnEnd); !ok {
		return false
	}
	it.turn.ended = l.Clock.Now()
	l.event(it, words.EventTurnEnd, words.ViaHook, "")
	return true
}

// hookRecord returns this iteration's record of name: from a hook the
// watcher installed, or one the person configured themselves (records are
// cleared before each agent starts, so one of this iteration is its agent's).
func (l *Loop) hookRecord(name string) (agent.HookRecord, bool) {
	if l.Store == nil {
		return agent.HookRecord{}, false
	}
	r, ok := agent.ReadHook(l.Store, name)
	if !ok || r.Iteration != l.iteration {
		return agent.HookRecord{}, false
	}
	return r, true
}

// clearHooks removes the hooks' records before an agent starts.
func (l *Loop) clearHooks() {
	for _, name := range agent.HookNames {
		_ = os.Remove(l.Store.Path(name))
	}
	_ = os.Remove(l.Store.Path(state.AfterExitFile)) // the loop goes on: an agent's exit is the loop's to judge
}

// hookSilent notes that a hook the watcher installed did not report what
// the screen showed: the agent cannot reach this program or the loop's
// folder (a sandbox, a container). The screen tells the agent's state for
// the rest of the loop, and the person is told once.
func (l *Loop) hookSilent(it *iteration, name string) {
	if !l.hooked[name] || l.hooksLost {
		return
	}
	if _, ok := l.hookRecord(name); ok {
		return
	}
	l.hooksLost = true
	l.event(it, words.EventFallback, words.ViaScreen, "hook "+name+" did not report")
	l.log("HOOK", fmt.Sprintf("iteration %d the agent's %s hook did not report; reading the screen from now on", l.iteration, name))
	l.warnf("the agent's %s hook did not report (an agent in a sandbox cannot reach %s or %s); "+
		"reading its screen for the rest of the loop", name, l.Executable, l.Store.Dir)
}

// hooksBrokeStart drops the hooks' arguments when the agent exited with an
// error before it ever took input and none of its hooks reported: the
// arguments may be what it could not start with (Claude Code in a sandbox
// that cannot see the --settings file exits "Settings file not found").
// From the next iteration the command runs as given and the screen tells.
func (l *Loop) hooksBrokeStart(it *iteration, r outcome) {
	if !l.turnHook || r.ending != endExit || r.code == 0 || r.code == 126 || r.code == 127 || it.ready || l.plainCommand == nil {
		return
	}
	for _, name := range agent.HookNames {
		if _, ok := l.hookRecord(name); ok {
			return // they reach us: something else failed
		}
	}
	l.Command, l.plainCommand, l.hookEnv = l.plainCommand, nil, nil
	l.turnHook, l.hooked, l.hooksLost = false, nil, true
	l.event(it, words.EventFallback, words.ViaExit, "the agent exited before it took input, with the hooks' arguments")
	l.log("HOOK", fmt.Sprintf("iteration %d the agent exited %d before it took input; running it without its hooks from now on", l.iteration, r.code))
	l.warnf("the agent exited (status %d) before it took input, with the arguments that install its hooks; "+
		"running it without them from the next iteration (the screen tells its state)", r.code)
}

// installHooks writes what makes the agent report its own state to the
// watcher, and adds it to the command: Claude Code's hooks in a --settings
// file, Codex's notify program.
func (l *Loop) installHooks() {
	if !l.TurnHook || l.Executable == "" || l.PromptMode != agent.ModeType || len(l.Command) == 0 {
		return
	}
	call := func(name string) []string { return []string{l.Executable, "hook", name, "--state", l.Store.Dir} }
	l.hooked, l.plainCommand = map[string]bool{}, l.Command
	switch l.Agent.TurnHook {
	case agent.HookClaudeStop:
		if l.Agent.Has(l.Command, []string{"--settings"}) {
			return // the person's own settings win; the screen tells the turn's end
		}
		path := l.Store.Path(state.ClaudeSettings)
		if err := os.WriteFile(path, agent.ClaudeSettings(call), 0o600); err != nil {
			l.warnf("write claude settings: %v", err)
			return
		}
		if !l.addArgs("--settings", path) {
			return
		}
		for _, e := range agent.ClaudeEvents {
			l.hooked[e.Name] = true
		}
	case agent.HookCodexNotify:
		if !l.addArgs("-c", agent.CodexNotify(call(agent.HookTurnEnd))) {
			return
		}
		l.hooked[agent.HookTurnEnd] = true
	case agent.HookGeminiHome:
		if !l.installGeminiHooks(call) {
			return
		}
	case agent.HookOpenCode:
		if !l.installOpenCodePlugin(call) {
			return
		}
	case agent.HookCopilot:
		if !l.installCopilotPlugin(call) {
			return
		}
	default:
		return
	}
	l.turnHook = true
}

// quiet takes output until the agent pauses a moment, at most hookSettle.
func (l *Loop) quiet(it *iteration) {
	if l.stream == nil {
		return
	}
	deadline := l.Clock.After(hookSettle)
	for {
		l.take(it)
		select {
		case <-l.stream.Notify():
		case <-l.Clock.After(hookQuiet):
			l.take(it)
			return
		case <-deadline:
			l.take(it)
			return
		}
	}
}
