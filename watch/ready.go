package watch

import (
	"context"
	"fmt"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/deliver"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// awaitReady waits until the agent takes input. The agent's own word comes
// first: its session-start hook, once it turned on bracketed paste (the
// hook can come before it reads its terminal raw). Else its screen: it has
// written something since it was started, and its visible screen matches
// the ready pattern, or has been still a moment (a shorter one once it
// turned on bracketed paste); where a pattern does not match, the
// agent-agnostic signals (paste on, screen and cursor still, its processes
// idle) stand in for it. The ready timeout bounds the wait. Any ending but
// endReady means the prompt must not be typed: the agent exited, the pane
// went away, a dialog or limit showed, a request came, or the wait was
// interrupted.
func (l *Loop) awaitReady(ctx context.Context, it *iteration) ending {
	deadline := l.Clock.Now().Add(l.ReadyTimeout)
	look := deliver.Readiness{Pattern: l.ReadyPattern, PID: l.agentPID}
	for {
		l.take(it)
		if it.exited {
			return endExit
		}
		// The visible screen only: the history still shows the last agent.
		screen, err := l.Tmux.Capture(tmux.CaptureRequest{Pane: l.Pane, Join: true})
		if err != nil {
			return l.goneEnding(err)
		}
		lines := agent.ScreenLines(screen, 0)
		switch st, detail := l.Agent.Classify(lines); st {
		case agent.StateStartup, agent.StateLimited:
			it.turn.detail = detail
			l.event(it, map[agent.State]words.EventKind{agent.StateStartup: words.EventStartup, agent.StateLimited: words.EventLimit}[st], words.ViaScreen, detail)
			return map[agent.State]ending{agent.StateStartup: endStartup, agent.StateLimited: endLimit}[st]
		}
		if _, ok := l.hookRecord(agent.HookSessionStart); ok && it.pasteOn {
			it.ready = true
			l.event(it, words.EventReady, words.ViaHook, "")
			return endReady
		}
		cursor, _ := l.Tmux.Cursor(l.Pane)
		now := l.Clock.Now()
		look.Observe(screen+fmt.Sprint(cursor), now)
		if l.stream == nil || l.stream.Bytes() > it.since {
			via := readyVia[look.Judge(lines, it.pasteOn)]
			if via != "" {
				it.ready = true
				l.event(it, words.EventReady, via, "")
				return endReady
			}
		}
		if now.After(deadline) {
			l.warnf("agent did not become ready within %s, typing the prompt anyway", l.ReadyTimeout)
			it.ready = true
			l.event(it, words.EventReady, words.ViaTimeout, "")
			return endReady
		}
		if pane, err := l.Tmux.Pane(l.Pane); err != nil {
			return l.goneEnding(err)
		} else if pane.Dead {
			return endExit
		}
		if end, ok := l.request(); ok { // pause and stop work while the loop starts
			return end
		}
		if !l.sleep(ctx, deliver.ReadyPoll) {
			return endInterrupted
		}
	}
}

// readyVia is how each way of seeing the agent ready is told to a listener.
var readyVia = map[deliver.ReadyBy]string{deliver.ByPattern: words.ViaPattern, deliver.ByStable: words.ViaStable,
	deliver.ByPaste: words.ViaPaste, deliver.ByIdle: words.ViaIdle}

// deliver waits for the agent to be ready, pastes the prompt, checks it
// landed, and presses Enter until the submit takes.
func (l *Loop) deliver(ctx context.Context, it *iteration, prompt string) (ending, bool) {
	switch end := l.awaitReady(ctx, it); end {
	case endReady:
	case endExit:
		l.showStatus(words.StatusRunning) // the agent exited before it was ready: that is watched as usual
		return end, false
	default:
		return end, true
	}
	l.setAgentState(agent.StateIdle)
	it.typed = true
	l.showStatus(words.StatusRunning)
	// The baseline: only output from here on can hold the done signal.
	l.take(it)
	if l.DonePattern != nil {
		it.scanner = agent.NewDoneScanner(l.DonePattern, prompt)
	}
	l.st.PromptPending = true
	l.markPrompt() // saves
	end, stop := l.typeText(ctx, it, prompt)
	if end != endInterrupted { // interrupted while typing: the next watcher finishes it
		l.st.PromptPending = false
		l.save()
	}
	return end, stop
}

// readyWait says what a starting loop waits for, for status and the pane.
func (l *Loop) readyWait() string {
	if l.ReadyPattern != nil {
		return "the agent to be ready (its input box to show)"
	}
	return "the agent to be ready (its screen still a moment)"
}
