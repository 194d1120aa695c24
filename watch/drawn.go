package watch

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
func (l *Loop) awaitDrawn(it *iteration) {
	if !l.Agent.DrawsAfterHook {
		return
	}
	// The finished line where it draws one, else its idle screen.
	done := agent.StateFinished
	if l.Agent.Finished == nil {
		done = agent.StateIdle
	}
	deadline := l.Clock.Now().Add(drawnWait)
	for {
		l.take(it)
		screen, err := l.capture()
		if err != nil {
			return
		}
		if st, _ := l.Agent.Classify(agent.ScreenLines(screen, l.Lines)); st == done || st == agent.StateDialog {
			return
		}
		if !l.Clock.Now().Before(deadline) {
			return
		}
		<-l.Clock.After(100 * time.Millisecond)
	}
}

// doneOnScreen reads the done token from the screen at the turn's end, for
// an agent whose output stream never holds it whole (agent.Profile.Typewriter).
// The screen shows the prompt too: as in the stream, a match that is part of
// its echo does not count.
func (l *Loop) doneOnScreen(it *iteration) {
	if !l.Agent.Typewriter || l.DonePattern == nil || it.match != "" || l.Store == nil {
		return
	}
	prompt, err := os.ReadFile(l.Store.Path(state.PromptCopy))
	if err != nil {
		return
	}
	screen, err := l.capture()
	if err != nil {
		return
	}
	sc := agent.NewDoneScanner(l.DonePattern, string(prompt))
	m, ok := sc.Feed(strings.Join(agent.ScreenLines(screen, l.Lines), "\n") + "\n")
	if !ok {
		m, ok = sc.Flush()
	}
	if ok {
		it.match = m
		l.event(it, words.EventDone, words.ViaScreen, m)
	}
}
