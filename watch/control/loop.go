package control

import (
	"errors"
	"os"
	"regexp"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// What a loop's pane is doing, as status and list show it.
const (
	PaneRunning = "running" // its agent (or what the pane runs) is alive
	PaneExited  = "exited"  // the pane is dead, or back at the shell it ended in
	PaneRemoved = "removed" // the pane or its server is gone
	// PaneLeftRunning is WorkerStatus's word for an agent left running by a
	// loop that has ended (stopped, done with the agent at its prompt).
	PaneLeftRunning = "left-running"
)

// Loop is a loop found on disk, with what is known of it live.
type Loop struct {
	Name    string
	Store   *state.Store
	State   *state.State
	Watched bool        // a watcher holds the loop's lock
	Pane    string      // PaneRunning, PaneExited or PaneRemoved
	Tmux    tmux.Client // the loop's tmux server, by the socket its state names
	// Recovered says that its state file could not be read and the last
	// good state came back in its place (state.Store.Recovered); "" else.
	Recovered string
	// Damaged is why its state cannot be read at all (list shows it so); "" else.
	Damaged string
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ValidName reports whether name may name a loop (and its state folder).
func ValidName(name string) bool {
	return namePattern.MatchString(name) && name != "." && name != ".."
}

var nameUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// NameFrom makes a valid loop name from a folder name and a pane number.
func NameFrom(base, pane string) string {
	base = strings.Trim(nameUnsafe.ReplaceAllString(base, "-"), "-.")
	if len(base) > 48 {
		base = base[:48]
	}
	if base == "" {
		base = "ralph"
	}
	if pane != "" {
		base += "-" + pane
	}
	return base
}

// Find reads the state of loop name under root and looks at its watcher and pane.
func Find(root, name string) (*Loop, error) {
	if !ValidName(name) {
		return nil, Errorf(contract.ExitUsage, "invalid loop name %q: use 1 to 64 of A-Z a-z 0-9 . _ -", name)
	}
	store, err := state.Find(root, name)
	if err != nil {
		return nil, failed(err)
	}
	st, err := store.Load()
	if errors.Is(err, os.ErrNotExist) {
		return nil, failed(state.NoState(root, name))
	}
	if err != nil {
		return nil, failed(err)
	}
	l := &Loop{Name: name, Store: store, State: st, Watched: store.Locked(), Pane: PaneRemoved, Tmux: serverOf(st), Recovered: store.Recovered()}
	if st.PaneID != "" && st.TmuxSocket != "" {
		// A restarted server hands out the old pane ids: its pane is not the loop's.
		if p, err := l.Tmux.Pane(st.PaneID); err == nil && (st.ServerPID == 0 || p.ServerPID == st.ServerPID) {
			l.Pane = map[bool]string{true: PaneExited, false: PaneRunning}[p.Dead || p.PID == st.ShellPID]
		}
	}
	return l, nil
}

// Unreadable is a loop whose state file cannot be read (corrupt, or some
// other program's), for clean to remove when no watcher holds it; else nil.
func Unreadable(root, name string) *Loop {
	if !ValidName(name) {
		return nil
	}
	store, err := state.Find(root, name)
	if err != nil || store.Locked() {
		return nil
	}
	st := &state.State{}
	return &Loop{Name: name, Store: store, State: st, Tmux: serverOf(st)}
}

func serverOf(st *state.State) tmux.Client {
	return &tmux.Exec{Server: []string{"-S", st.TmuxSocket}}
}

// NameArg takes the one NAME command cmd needs; inside a looped pane (pane
// is $TMUX_PANE) it may be left out.
func NameArg(args []string, cmd, pane string) (string, error) {
	switch {
	case len(args) == 1:
		return args[0], nil
	case len(args) > 1:
		return "", Errorf(contract.ExitUsage, "%s takes one loop name, got %d arguments", cmd, len(args))
	}
	if pane != "" {
		if name, ok, _ := (&tmux.Exec{}).PaneOption(pane, contract.OptionName); ok {
			return name, nil
		}
	}
	return "", Errorf(contract.ExitUsage, "%s needs a loop name (see 'ralph-watch list')", cmd)
}

// Status is the loop's status as a person needs it, in the pane's words: a
// running loop whose watcher is gone is disconnected, whatever the file says.
func (l *Loop) Status() string {
	if l.Damaged != "" {
		return "damaged"
	}
	if l.State.Status == state.Running && !l.Watched {
		return "monitor_disconnected"
	}
	return contract.StatusOf(l.State).String()
}

// ExitReason is why the loop ended, or why it is not watched.
func (l *Loop) ExitReason() string {
	st := l.State
	switch {
	case st.Status == state.Running && !l.Watched && l.Pane == PaneRunning:
		return "monitor_disconnected (agent still running)"
	case st.Status == state.Running && !l.Watched:
		return "monitor_disconnected (agent " + l.Pane + ")"
	case st.ExitReason != nil:
		return *st.ExitReason
	case st.Status == state.Running:
		return "(none - still running)"
	}
	return "(none)"
}

// WorkerStatus is list's AGENT (status --json's worker_status): what the loop's pane runs (running,
// exited, removed), and left-running for an agent that runs on after its
// loop ended, so that "running" never stands beside a loop that is over.
func (l *Loop) WorkerStatus() string {
	if l.Pane == PaneRunning && !contract.StatusOf(l.State).Live() {
		return PaneLeftRunning
	}
	return l.Pane
}

// earlierRuns are the loop's ended runs kept apart (state.Store.Runs).
func (l *Loop) earlierRuns() []string {
	if l.Store == nil {
		return nil
	}
	return l.Store.Runs()
}
