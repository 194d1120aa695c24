package watch

import (
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// iteration is the watch of one iteration's agent (package iteration),
// given what it needs of the loop's parts; nonce "" takes any exit marker
// as this agent's (one a previous watcher started).
func (l *Loop) iteration(nonce string) *iteration.Watch {
	interrupts := []iteration.Interrupt{l.chores, l.asks}
	if l.MaxTime > 0 {
		interrupts = append(interrupts, timeLimit{end: l.start.Add(l.MaxTime), clock: l.Clock})
	}
	interrupts = append(interrupts, l.guard, l.spend)
	return iteration.New(iteration.Needs{
		Settings: l.settings(), Tmux: l.Tmux, Clock: l.Clock,
		Record: iterationRecord{l.rec}, Status: iterationStatus{l.status},
		Pane: l.pane, Hooks: l.hooks, Cast: l.casts, Spend: l.spend, Requests: l.asks,
		Interrupts: interrupts,
	}, nonce)
}

// settings is what an iteration reads of the loop's configuration.
func (l *Loop) settings() iteration.Settings {
	c := &l.Config
	return iteration.Settings{
		Name: c.Name, Pane: c.Pane, Dir: c.Dir, Command: c.Command, Secrets: c.Secrets,
		Path:       l.rec.st.Path, // as at the loop's start, whoever resumed it
		Executable: c.Executable, PromptMode: c.PromptMode, MaxIterations: c.MaxIterations, Lines: c.Lines,
		Agent: c.Agent, DonePattern: c.DonePattern, CheckDoneContinuous: c.CheckDoneContinuous,
		ReadyPattern: c.ReadyPattern, ReadyTimeout: c.ReadyTimeout, InactivityTimeout: c.InactivityTimeout,
		IterationTimeout: c.IterationTimeout, DialogTimeout: c.DialogTimeout, PollInterval: c.PollInterval,
		CheckEvery: c.CheckEvery, Events: c.Events,
	}
}

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

// iterationStatus is the status line as an iteration shows it (iteration.Status).
type iterationStatus struct{ s *statusLine }

func (x iterationStatus) Show(status words.Status) { x.s.show(status) }

func (x iterationStatus) Starting() {
	x.s.reason = x.s.cfg.readyWait()
	x.s.show(words.StatusStarting)
}
