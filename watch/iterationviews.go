package watch

// What an iteration (package iteration) needs of the loop's parts, as the
// narrow views of iteration.Needs; the rest the parts implement themselves
// (pane.Pane, hooks.Hooks, pane.Cast, spending.Spending, requests, signalFiles).

import (
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// timeLimit ends the iteration running when the loop's max time is up
// (an iteration.Interrupt).
type timeLimit struct {
	end   time.Time
	clock clock.Clock
}

func (t timeLimit) Check() (iteration.Ending, bool) {
	if t.clock.Now().Before(t.end) {
		return iteration.EndNone, false
	}
	return iteration.EndMaxTime, true
}

// iterationRecord is the loop's record as an iteration reads and writes
// it (iteration.Record).
type iterationRecord struct{ r *recorder }

func (x iterationRecord) Iteration() int                { return x.r.iteration() }
func (x iterationRecord) Store() *state.Store           { return x.r.store }
func (x iterationRecord) PromptLine() *int              { return x.r.st.PromptLine }
func (x iterationRecord) PromptPending() bool           { return x.r.st.PromptPending }
func (x iterationRecord) SetPromptLine(line *int)       { x.r.promptAt(line) }
func (x iterationRecord) SetPromptPending(p bool)       { x.r.promptPending(p) }
func (x iterationRecord) PromptPasted() bool            { return x.r.st.PromptPasted }
func (x iterationRecord) SetPromptPasted()              { x.r.promptPasted() }
func (x iterationRecord) TakeDoneMatch() string         { return x.r.takeDoneMatch() }
func (x iterationRecord) AgentState(s agent.State)      { x.r.agentState(s) }
func (x iterationRecord) Save()                         { x.r.save() }
func (x iterationRecord) Sayf(format string, a ...any)  { x.r.sayf(format, a...) }
func (x iterationRecord) Warnf(format string, a ...any) { x.r.warnf(format, a...) }
func (x iterationRecord) Log(event, message string)     { x.r.log(event, message) }

// Heartbeat saves the state when its heartbeat is old.
func (x iterationRecord) Heartbeat() {
	if x.r.clock.Now().Sub(x.r.lastSave) >= heartbeatEvery {
		x.r.save()
	}
}
