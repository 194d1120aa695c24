package iteration

import (
	"os"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// drawnWait bounds the wait for an agent's screen to show the turn its
// hook said is over.
const drawnWait = 3 * time.Second

// awaitDrawn waits, for an agent whose hook comes before its screen shows
// the last words (agent.Profile.DrawsAfterHook), until the screen shows the
// finished turn (its Finished line, else its idle screen), taking its
// output meanwhile: the done token in the reply
// is then read in this iteration.
func (w *Watch) awaitDrawn() {
	if !w.cfg.Agent.DrawsAfterHook {
		return
	}
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
		if st, _ := w.cfg.Agent.Classify(agent.ScreenLines(screen, w.cfg.Lines)); st == done || st == agent.StateDialog {
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
		w.events.tell(words.EventDone, words.ViaScreen, m)
	}
}
