package iteration

import (
	"context"
	"errors"
	"fmt"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
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
// EndReady means the prompt must not be typed: the agent exited, the pane
// went away, a dialog or limit showed, a request came, or the wait was
// interrupted.
func (w *Watch) awaitReady(ctx context.Context) Ending {
	deadline := w.clock.Now().Add(w.cfg.ReadyTimeout)
	look := Readiness{Pattern: w.cfg.ReadyPattern, PID: w.pane.AgentPID(), AwaitPaste: w.pane.AgentPastes()}
	for {
		w.take()
		if w.exited {
			return EndExit
		}
		// The visible screen only: the history still shows the last agent.
		screen, err := w.tmux.Capture(tmux.CaptureRequest{Pane: w.cfg.Pane, Join: true})
		if err != nil {
			return w.pane.Gone(err)
		}
		lines := agent.ScreenLines(screen, 0)
		switch st, detail := w.cfg.Agent.Classify(lines); st {
		case agent.StateNoLogin:
			w.turn.detail = detail
			return EndNoLogin
		case agent.StateStartup, agent.StateLimited:
			w.turn.detail = detail
			w.event(map[agent.State]words.EventKind{agent.StateStartup: words.EventStartup, agent.StateLimited: words.EventLimit}[st], words.ViaScreen, detail)
			return map[agent.State]Ending{agent.StateStartup: EndStartup, agent.StateLimited: EndLimit}[st]
		}
		if _, ok := w.hooks.Record(agent.HookSessionStart); ok && w.pasteOn {
			w.ready = true
			w.event(words.EventReady, words.ViaHook, "")
			return EndReady
		}
		cursor, _ := w.tmux.Cursor(w.cfg.Pane)
		now := w.clock.Now()
		look.Observe(screen+fmt.Sprint(cursor), now)
		if w.stream() == nil || w.stream().Bytes() > w.since {
			via := readyVia[look.Judge(lines, w.pasteOn)]
			if via != "" {
				w.ready = true
				w.event(words.EventReady, via, "")
				return EndReady
			}
		}
		if now.After(deadline) {
			w.rec.Warnf("agent did not become ready within %s, typing the prompt anyway", w.cfg.ReadyTimeout)
			w.ready = true
			w.event(words.EventReady, words.ViaTimeout, "")
			return EndReady
		}
		if pane, err := w.tmux.Pane(w.cfg.Pane); err != nil {
			return w.pane.Gone(err)
		} else if pane.Dead {
			return EndExit
		}
		if end, ok := w.asks.Take(); ok { // pause and stop work while the loop starts
			return end
		}
		if !w.sleep(ctx, ReadyPoll) {
			return EndInterrupted
		}
	}
}

// readyVia is how each way of seeing the agent ready is told to a listener.
var readyVia = map[ReadyBy]string{ByPattern: words.ViaPattern, ByStable: words.ViaStable,
	ByPaste: words.ViaPaste, ByIdle: words.ViaIdle}

// deliver waits for the agent to be ready, pastes the prompt, checks it
// landed, and presses Enter until the submit takes.
func (w *Watch) deliver(ctx context.Context, prompt string) (Ending, bool) {
	switch end := w.awaitReady(ctx); end {
	case EndReady:
	case EndExit:
		w.status.Show(words.StatusRunning) // the agent exited before it was ready: that is watched as usual
		return end, false
	default:
		return end, true
	}
	w.rec.AgentState(agent.StateIdle)
	w.typed = true
	w.status.Show(words.StatusRunning)
	// The baseline: only output from here on can hold the done signal.
	w.take()
	if w.cfg.DonePattern != nil {
		w.scanner = agent.NewDoneScanner(w.cfg.DonePattern, prompt)
	}
	w.rec.SetPromptPending(true)
	w.markPrompt() // saves
	end, halt := w.typeText(ctx, prompt)
	if end != EndInterrupted { // interrupted while typing: the next watcher finishes it
		w.rec.SetPromptPending(false)
	}
	return end, halt
}

// typeText types text into the agent's pane (see Typist.Type); halt
// is true when the iteration must end with end.
func (w *Watch) typeText(ctx context.Context, text string) (end Ending, halt bool) {
	err := w.typist().Type(ctx, text)
	switch {
	case err == nil:
		w.took = true
		return EndNone, false
	case errors.Is(err, ErrInterrupted):
		return EndInterrupted, true
	case errors.Is(err, tmux.ErrPaneDead):
		// tmux refused the write: the agent exited, which the watch that follows records.
		w.rec.Warnf("the agent exited before its prompt was submitted")
		return EndNone, false
	}
	return w.pane.Gone(err), true
}

// typist types into the loop's pane while the iteration's output is read.
func (w *Watch) typist() *Typist {
	return &Typist{
		Tmux: w.tmux, Pane: w.cfg.Pane, Name: w.cfg.Name, Clock: w.clock, Agent: &w.cfg.Agent, Lines: w.cfg.Lines,
		View: typistView{w}, Warnf: w.rec.Warnf,
		Report: func(s Step, detail string) {
			for _, e := range stepEvents[s] {
				w.event(e.kind, e.via, detail)
			}
		},
	}
}

// stepEvents are the events each step of typing tells the listener.
var stepEvents = map[Step][]struct {
	kind words.EventKind
	via  string
}{
	PasteChecked:      {{words.EventPasteCheck, words.ViaPaste}},
	Pasted:            {{words.EventPasted, words.ViaScreen}},
	ProbeSubmitted:    {{words.EventPasted, words.ViaProbe}, {words.EventSubmitted, words.ViaProbe}},
	SubmittedByHook:   {{words.EventSubmitted, words.ViaHook}},
	SubmittedByScreen: {{words.EventSubmitted, words.ViaScreen}},
}

// typistView is what the typist learns of the iteration's agent.
type typistView struct{ w *Watch }

func (v typistView) Take()        { v.w.take() }
func (v typistView) Exited() bool { return v.w.exited }

func (v typistView) Output() (int64, bool) {
	if v.w.stream() == nil {
		return 0, false
	}
	return v.w.stream().Bytes(), true
}

func (v typistView) Hooked(name string) bool {
	_, ok := v.w.hooks.Record(name)
	return ok
}
