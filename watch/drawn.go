package watch

import (
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

// drawnWait bounds the wait for an agent's screen to show the turn its
// hook said is over.
const drawnWait = 3 * time.Second

// awaitDrawn waits, for an agent whose hook comes before its screen shows
// the last words (agent.Profile.DrawsAfterHook), until the screen shows the
// finished turn, taking its output meanwhile: the done token in the reply
// is then read in this iteration.
func (l *Loop) awaitDrawn(it *iteration) {
	if !l.Agent.DrawsAfterHook || l.Agent.Finished == nil {
		return
	}
	deadline := l.Clock.Now().Add(drawnWait)
	for {
		l.take(it)
		screen, err := l.capture()
		if err != nil {
			return
		}
		if st, _ := l.Agent.Classify(agent.ScreenLines(screen, l.Lines)); st == agent.StateFinished || st == agent.StateDialog {
			return
		}
		if !l.Clock.Now().Before(deadline) {
			return
		}
		<-l.Clock.After(100 * time.Millisecond)
	}
}
