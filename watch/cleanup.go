package watch

import (
	"os"
	"strconv"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/ended"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// endLeftovers ends what the last agent left behind once the loop is over:
// children that ignore SIGHUP and SIGTERM outlive a dead agent, a closed pane
// and a killed server, and would run on unseen. A live agent in a live pane
// runs on, and a paused loop's agent is the person's.
func (l *Loop) endLeftovers(res Result) {
	switch res.Reason {
	case words.ReasonInterrupted, words.ReasonPaused:
		return
	case words.ReasonPaneClosed, words.ReasonServerGone:
		if l.agentPID > 0 {
			agent.EndSession(l.Clock, l.agentPID, killGrace)
		}
		return
	}
	if pane, err := l.Tmux.Pane(l.Pane); err == nil && pane.Dead {
		l.endAgent(pane)
	}
}

// endAgent ends whatever runs in the pane, its children included.
func (l *Loop) endAgent(pane tmux.Pane) {
	if !pane.Dead {
		agent.EndTreeOn(l.Clock, pane.PID, killGrace)
		return
	}
	// The pane's process is gone; end what it left behind in its session,
	// unless its pid already belongs to someone else.
	if _, err := os.Stat("/proc/" + strconv.Itoa(pane.PID)); err != nil {
		agent.EndTreeOn(l.Clock, pane.PID, killGrace)
	}
}

// linger has the server remove the ended loop's pane options after the
// linger time, unless another loop took the pane meanwhile (its
// @ralph-ended is then another or none). The watcher need not wait for it.
func (l *Loop) linger() {
	d := ended.Linger(l.Tmux)
	if d <= 0 || l.lastShown.Ended.IsZero() {
		return
	}
	if err := l.Tmux.Later(d, ended.Forget(l.Pane, l.lastShown.Ended)); err != nil {
		l.warnf("schedule the removal of the ended loop from the status line: %v", err)
	}
}
