package watch

import (
	"context"
	"errors"
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
func (w *agentWatch) awaitReady(ctx context.Context) ending {
	deadline := w.clock.Now().Add(w.cfg.ReadyTimeout)
	look := deliver.Readiness{Pattern: w.cfg.ReadyPattern, PID: w.pane.agentPID, AwaitPaste: w.pane.agentPastes}
	for {
		w.take()
		if w.exited {
			return endExit
		}
		// The visible screen only: the history still shows the last agent.
		screen, err := w.tmux.Capture(tmux.CaptureRequest{Pane: w.cfg.Pane, Join: true})
		if err != nil {
			return w.pane.gone(err)
		}
		lines := agent.ScreenLines(screen, 0)
		switch st, detail := w.cfg.Agent.Classify(lines); st {
		case agent.StateNoLogin:
			w.turn.detail = detail
			return endNoLogin
		case agent.StateStartup, agent.StateLimited:
			w.turn.detail = detail
			w.event(map[agent.State]words.EventKind{agent.StateStartup: words.EventStartup, agent.StateLimited: words.EventLimit}[st], words.ViaScreen, detail)
			return map[agent.State]ending{agent.StateStartup: endStartup, agent.StateLimited: endLimit}[st]
		}
		if _, ok := w.hooks.record(agent.HookSessionStart); ok && w.pasteOn {
			w.ready = true
			w.event(words.EventReady, words.ViaHook, "")
			return endReady
		}
		cursor, _ := w.tmux.Cursor(w.cfg.Pane)
		now := w.clock.Now()
		look.Observe(screen+fmt.Sprint(cursor), now)
		if w.pane.stream == nil || w.pane.stream.Bytes() > w.since {
			via := readyVia[look.Judge(lines, w.pasteOn)]
			if via != "" {
				w.ready = true
				w.event(words.EventReady, via, "")
				return endReady
			}
		}
		if now.After(deadline) {
			w.rec.warnf("agent did not become ready within %s, typing the prompt anyway", w.cfg.ReadyTimeout)
			w.ready = true
			w.event(words.EventReady, words.ViaTimeout, "")
			return endReady
		}
		if pane, err := w.tmux.Pane(w.cfg.Pane); err != nil {
			return w.pane.gone(err)
		} else if pane.Dead {
			return endExit
		}
		if end, ok := w.asks.take(); ok { // pause and stop work while the loop starts
			return end
		}
		if !w.asks.sleep(ctx, deliver.ReadyPoll) {
			return endInterrupted
		}
	}
}

// readyVia is how each way of seeing the agent ready is told to a listener.
var readyVia = map[deliver.ReadyBy]string{deliver.ByPattern: words.ViaPattern, deliver.ByStable: words.ViaStable,
	deliver.ByPaste: words.ViaPaste, deliver.ByIdle: words.ViaIdle}

// deliver waits for the agent to be ready, pastes the prompt, checks it
// landed, and presses Enter until the submit takes.
func (w *agentWatch) deliver(ctx context.Context, prompt string) (ending, bool) {
	switch end := w.awaitReady(ctx); end {
	case endReady:
	case endExit:
		w.status.show(words.StatusRunning) // the agent exited before it was ready: that is watched as usual
		return end, false
	default:
		return end, true
	}
	w.rec.agentState(agent.StateIdle)
	w.typed = true
	w.status.show(words.StatusRunning)
	// The baseline: only output from here on can hold the done signal.
	w.take()
	if w.cfg.DonePattern != nil {
		w.scanner = agent.NewDoneScanner(w.cfg.DonePattern, prompt)
	}
	w.rec.promptPending(true)
	w.markPrompt() // saves
	end, halt := w.typeText(ctx, prompt)
	if end != endInterrupted { // interrupted while typing: the next watcher finishes it
		w.rec.promptPending(false)
	}
	return end, halt
}

// typeText types text into the agent's pane (see deliver.Typist.Type); halt
// is true when the iteration must end with end.
func (w *agentWatch) typeText(ctx context.Context, text string) (end ending, halt bool) {
	err := w.typist().Type(ctx, text)
	switch {
	case err == nil:
		w.took = true
		return endNone, false
	case errors.Is(err, deliver.ErrInterrupted):
		return endInterrupted, true
	case errors.Is(err, tmux.ErrPaneDead):
		// tmux refused the write: the agent exited, which the watch that follows records.
		w.rec.warnf("the agent exited before its prompt was submitted")
		return endNone, false
	}
	return w.pane.gone(err), true
}

// typist types into the loop's pane while the iteration's output is read.
func (w *agentWatch) typist() *deliver.Typist {
	return &deliver.Typist{
		Tmux: w.tmux, Pane: w.cfg.Pane, Name: w.cfg.Name, Clock: w.clock, Agent: &w.cfg.Agent, Lines: w.cfg.Lines,
		Watch: typistView{w}, Warnf: w.rec.warnf,
		Report: func(s deliver.Step, detail string) {
			for _, e := range stepEvents[s] {
				w.event(e.kind, e.via, detail)
			}
		},
	}
}

// stepEvents are the events each step of typing tells the listener.
var stepEvents = map[deliver.Step][]struct {
	kind words.EventKind
	via  string
}{
	deliver.PasteChecked:      {{words.EventPasteCheck, words.ViaPaste}},
	deliver.Pasted:            {{words.EventPasted, words.ViaScreen}},
	deliver.ProbeSubmitted:    {{words.EventPasted, words.ViaProbe}, {words.EventSubmitted, words.ViaProbe}},
	deliver.SubmittedByHook:   {{words.EventSubmitted, words.ViaHook}},
	deliver.SubmittedByScreen: {{words.EventSubmitted, words.ViaScreen}},
}

// typistView is what the typist learns of the iteration's agent.
type typistView struct{ w *agentWatch }

func (v typistView) Take()        { v.w.take() }
func (v typistView) Exited() bool { return v.w.exited }

func (v typistView) Output() (int64, bool) {
	if v.w.pane.stream == nil {
		return 0, false
	}
	return v.w.pane.stream.Bytes(), true
}

func (v typistView) Hooked(name string) bool {
	_, ok := v.w.hooks.record(name)
	return ok
}
