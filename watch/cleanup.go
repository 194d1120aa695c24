package watch

import (
	"os"
	"strconv"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// endLeftovers ends what the last agent left behind once the loop is over:
// children that ignore SIGHUP and SIGTERM outlive a dead agent, a closed pane
// and a killed server, and would run on unseen. A live agent in a live pane
// runs on, and a paused loop's agent is the person's.
func (l *Loop) endLeftovers(res Result) {
	switch res.Reason {
	case "interrupted", "paused":
		return
	case "pane_closed", "server_gone":
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
