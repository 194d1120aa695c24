package iteration

import (
	"os"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/settings"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Needs is what one iteration needs of the loop that runs it: its
// settings, and narrow views of the loop's parts. Nothing in it calls back
// into the loop's decisions: the iteration returns an Outcome, and the
// loop decides.
type Needs struct {
	Settings Settings
	Tmux     tmux.Client
	Clock    clock.Clock
	Record   Record
	Status   Status
	Pane     Pane
	Hooks    Hooks
	Cast     Cast
	Spend    Spend
	Requests Requests
	// Interrupts may end the iteration while its agent runs (the done and
	// pause files, a request, max time, the context window, the budget),
	// asked in this order now and then.
	Interrupts []Interrupt
}

// Settings is the loop's settings (package settings), the one value the
// loop runs by, as the iteration reads them: fixed while it runs.
type Settings = settings.Config

// Record is the loop's record as an iteration reads and writes it.
type Record interface {
	Iteration() int
	Store() *state.Store // the loop's folder: the prompt's copy, the hooks' records
	Cursor() Cursor      // where the prompt's delivery stands
	SetCursor(Cursor)    // saves
	AgentState(agent.State)
	Save()
	Heartbeat() // saves when the last save is old
	Sayf(format string, args ...any)
	Warnf(format string, args ...any)
	Log(event, message string)
}

// Status is the pane's status as the iteration shows it.
type Status interface {
	Show(contract.Status)
	Starting() // the agent is started and the prompt waits for it to be ready
}

// Pane is the loop's pane, which outlasts the iteration.
type Pane interface {
	Output() Output                   // its output stream; nil: not read
	ReadOutput(p tmux.Pane) tmux.Pane // reads its output from now, if it never was asked for (a dead pane gets a placeholder first)
	EndAgent(p tmux.Pane)             // ends whatever runs in it, its children included
	Same(p tmux.Pane) bool            // p lives in the server the loop started in
	Gone(err error) Ending            // EndPaneGone or EndServerGone
	AgentStarted(pid int)
	AgentPID() int
	AgentPastes() bool // an agent in it turned on bracketed paste
	SetAgentPastes()
}

// Output is the pane's output stream (pane.Stream).
type Output interface {
	Take() (text string, markers []string)
	Bytes() int64
	Notify() <-chan struct{}
}

// Hooks are what makes the agent report its own state, installed when the
// loop starts, and the command it runs with.
type Hooks interface {
	Record(name string) (agent.HookRecord, bool) // this iteration's report of name
	Clear()                                      // before an agent starts
	Command() []string                           // what runs: the person's command with the hooks' arguments
	Plain() []string                             // the command without them; nil: none were added
	Env() []string                               // NAME=value the agent runs with for its hooks
	On() bool                                    // the agent reports the end of its turns itself
	Reports(name string) bool                    // an installed hook reports name
	Lost() bool                                  // they did not report: the screen tells from now on
	Lose()
	Drop() // runs the agent as the person gave it from now on
}

// Cast is the recording of the iteration.
type Cast interface {
	Start(pane tmux.Pane, command []string)
	Mark(contract.EventKind)
	Resize(tmux.Pane)
}

// Spend is the iteration's receipt as it runs.
type Spend interface {
	NoteEnv(pid int) // the agent's environment, for its receipt should it exit before it is read
}

// Requests are what the person asks of the loop while an agent starts.
type Requests interface {
	Take() (Ending, bool)
	Wake() <-chan os.Signal // a command left a request
}

// Interrupt is one thing that may end the iteration while its agent runs.
type Interrupt interface {
	Check() (Ending, bool)
}
