package control

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// RestoreSession is the session a loop's recreated window goes in.
const RestoreSession = "ralph"

// Rearm is how resume and restore bring a loop back under a watcher, with a
// new pane when its pane or its tmux server went away.
type Rearm struct {
	Target     string                   // the pane for a loop whose pane is gone; "": a new window in RestoreSession
	Check      func(*state.State) error // refuses a loop before anything changes (its config file's trust)
	Executable func() (string, error)   // this program, to start the watcher
	Inside     func(tmux.Pane) bool     // whether this process runs in the pane, which a respawn would end
	// DefaultSocket is tmux's own socket (tmux.DefaultSocket): restore with
	// no socket says when no server runs there and it has nothing to do.
	DefaultSocket string
	Clock         clock.Clock
}

// Resume starts a watcher for a paused or disconnected loop, or one whose
// pane or server went away (a pane is made for it first), at the next
// iteration; what it did is a line on out.
func (r Rearm) Resume(l *Loop, out, warn io.Writer) error {
	if ok, err := Resumable(l, warn, r.Clock); !ok {
		return err
	}
	if r.Check != nil {
		if err := r.Check(l.State); err != nil {
			return err
		}
	}
	where, pid, err := r.rearm(l)
	if err != nil {
		return err
	}
	if pid == 0 {
		fmt.Fprintf(warn, "ralph-watch: warning: loop '%s' was resumed by another command\n", l.Name)
		return nil
	}
	if where != "" {
		fmt.Fprintf(out, "%s\n", where)
	}
	fmt.Fprintf(out, "resumed ralph loop for %s (watcher pid %d)\n", l.Name, pid)
	return nil
}

// Restore re-arms every loop under root that was live when its tmux server,
// the one at socket, went away: ended by server_gone, or running with no
// watcher. With socket "", each loop's own server, where one runs again.
// A fan's loops are left to their fan, which restore starts again.
// One line per loop on out; with dryRun it only says which.
func (r Rearm) Restore(root, socket string, dryRun bool, out, warn io.Writer) error {
	names, err := Names(root)
	if err != nil {
		return err
	}
	refused, each, runs, fans := false, socket == "", map[string]bool{}, fan.Loops(root)
	said, waiting := false, map[string][]string{} // loops whose server does not run, by its socket
	for _, name := range names {
		if fans[name] {
			continue
		}
		l, err := Find(root, name)
		if err != nil {
			continue
		}
		if each {
			socket = l.State.TmuxSocket
			if _, seen := runs[socket]; !seen {
				_, err := l.Tmux.SocketPath()
				runs[socket] = err == nil
			}
			if !runs[socket] { // no server to restore it into: a later restore will
				if Restorable(l, socket) {
					waiting[socket] = append(waiting[socket], name)
				}
				continue
			}
		}
		if l.Watched && l.State.Status == state.Running && SameFile(l.State.TmuxSocket, socket) && PaneGone(l) {
			l.Watched = !unwatched(l, r.Clock, answerWait) // its watcher has yet to see the server go
		}
		if !Restorable(l, socket) {
			continue
		}
		err, said = r.refusal(l), true
		if dryRun {
			if err != nil {
				fmt.Fprintf(out, "would not re-arm %s: %v\n", name, err)
			} else {
				fmt.Fprintf(out, "would re-arm %s (iteration %d, %s)\n", name, l.State.CurrentIteration, l.ExitReason())
			}
			continue
		}
		var where string
		var pid int
		if err == nil {
			where, pid, err = r.rearm(l)
		}
		switch {
		case err != nil:
			fmt.Fprintf(warn, "ralph-watch: error: cannot re-arm %s: %v\n", name, err)
			refused = true
		case pid > 0 && where == "":
			fmt.Fprintf(out, "re-armed %s (watcher pid %d)\n", name, pid)
		case pid > 0:
			fmt.Fprintf(out, "re-armed %s: %s (watcher pid %d)\n", name, where, pid)
		}
	}
	r.sayWaiting(waiting, each && !said, out)
	if refused {
		return Errorf(contract.ExitFailed, "")
	}
	return nil
}

// sayWaiting says which loops wait for a server that does not run, by its
// socket; with nothing else said, when none runs on tmux's default socket.
func (r Rearm) sayWaiting(waiting map[string][]string, nothing bool, out io.Writer) {
	var sockets []string
	for socket := range waiting {
		sockets = append(sockets, socket)
	}
	slices.Sort(sockets)
	for _, socket := range sockets {
		names, verb := waiting[socket], "waits"
		if len(names) > 1 {
			verb = "wait"
		}
		fmt.Fprintf(out, "no tmux server runs on %s%s: %s %s for it; start tmux there, then 'ralph-watch restore'\n",
			socket, r.defaultMark(socket), strings.Join(names, ", "), verb)
	}
	if nothing && len(sockets) == 0 && r.DefaultSocket != "" && !serverRuns(r.DefaultSocket) {
		fmt.Fprintf(out, "no tmux server runs on the default socket (%s): no loop to re-arm\n", r.DefaultSocket)
	}
}

// defaultMark names tmux's default socket as such.
func (r Rearm) defaultMark(socket string) string {
	if SameFile(socket, r.DefaultSocket) {
		return " (the default socket)"
	}
	return ""
}

// refusal is why re-arming the loop would be refused before anything
// changes (its config's trust, a secret this environment lacks, a pane to
// make in a folder that is gone), so a dry run says what the run will do.
func (r Rearm) refusal(l *Loop) error {
	if r.Check != nil {
		if err := r.Check(l.State); err != nil {
			return err
		}
	}
	if err := lacksSecrets(l); err != nil {
		return err
	}
	if PaneGone(l) && !keptPane(l) {
		return folderGone(l)
	}
	return nil
}

// lacksSecrets refuses a loop whose command needs a secret this
// environment lacks: the watcher takes them from it.
func lacksSecrets(l *Loop) error {
	if _, _, missing := agent.HideSecrets(l.State.Command, os.Getenv); len(missing) > 0 {
		return Errorf(contract.ExitUsage, "%s", MissingSecrets(missing, "ralph-watch resume "+l.Name))
	}
	return nil
}

// folderGone refuses a pane for a loop whose folder is gone: tmux would
// open it in $HOME, and the agent would work there.
func folderGone(l *Loop) error {
	dir := folderOf(l.State)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return Errorf(contract.ExitFailed, "the folder of '%s' is gone: %s", l.Name, dir)
	}
	return nil
}

// Restorable reports whether a loop was live when its server, the one at
// socket, went away, and nothing watches it now. A loop the person paused
// or stopped was not.
func Restorable(l *Loop, socket string) bool {
	st := l.State
	if l.Watched || len(st.WatcherArgs) == 0 || !SameFile(st.TmuxSocket, socket) {
		return false
	}
	return st.Status == state.Running || st.Status == state.Failed && contract.ReasonOf(st) == contract.ReasonServerGone
}

// endedByGone reports whether a loop ended because its pane or server went
// away: resume brings it back.
func endedByGone(st *state.State) bool {
	return st.Status == state.Failed && (contract.ReasonOf(st) == contract.ReasonServerGone || contract.ReasonOf(st) == contract.ReasonPaneClosed)
}

// PaneGone reports whether a loop's pane is gone: its server has no pane of
// that id, or one that is not the loop's (a new server numbers panes afresh).
// A pane of the loop's own server that names no loop is still its: its
// watcher died (kill -9) before it named the pane.
func PaneGone(l *Loop) bool {
	if l.Pane == PaneRemoved {
		return true
	}
	name, _, err := l.Tmux.PaneOption(l.State.PaneID, contract.OptionName)
	if err == nil && name == "" && l.State.ServerPID != 0 {
		return false
	}
	return err != nil || name != l.Name
}

// rearm takes the loop's re-arm lock, gives it a pane if its own is gone,
// starts its watcher and waits until the watcher holds the loop, so a second
// resume or restore finds it watched. pid 0: another command re-arms it.
func (r Rearm) rearm(l *Loop) (where string, pid int, err error) {
	release, err := holdRearm(l)
	if err != nil || release == nil {
		return "", 0, err
	}
	defer release()
	if l.Store.Locked() {
		return "", 0, nil
	}
	if st, err := l.Store.Load(); err == nil {
		l.State = st
	}
	if err := lacksSecrets(l); err != nil {
		return "", 0, err
	}
	switch {
	case PaneGone(l) && !keptPane(l):
		if where, err = r.revive(l); err != nil {
			return "", 0, err
		}
	case r.Target != "":
		return "", 0, Errorf(contract.ExitUsage, "loop '%s' still has its pane %s; -t is for a loop whose pane is gone", l.Name, l.State.PaneID)
	}
	releasePane, err := r.claimPane(l)
	if err != nil {
		return "", 0, err
	}
	defer releasePane()
	if pid, err = StartWatcher(r.Executable, l.Store, l.State.WatcherArgs, l.State.WatcherDir, true, PaneClaimedEnv+"=1"); err != nil {
		return "", 0, err
	}
	waitFor(l, r.Clock, exitWait, func(*state.State) bool { return l.Store.Locked() })
	return where, pid, nil
}

// claimPane claims the loop's pane for its watcher (ClaimPane), refusing
// one another live loop holds.
func (r Rearm) claimPane(l *Loop) (func(), error) {
	p, err := l.Tmux.Pane(l.State.PaneID)
	if err != nil {
		return nil, Errorf(contract.ExitFailed, "find pane %s: %v", l.State.PaneID, err)
	}
	socket := l.State.TmuxSocket
	return ClaimPane(filepath.Dir(l.Store.Dir), PaneOf{Socket: socket, ServerPID: p.ServerPID, ID: p.ID}, l.Name, ClaimResume, io.Discard, r.Clock)
}

// keptPane reports whether a loop that ended at a limit, or failed for a
// cause the person mended, still has its pane, whose options went when its
// status stopped showing: no other loop lives there.
func keptPane(l *Loop) bool {
	if !endedAtLimit(l.State) && !endedMendable(l.State) && !FollowRound(l) || l.Pane == PaneRemoved {
		return false
	}
	live, _, _ := l.Tmux.PaneOption(l.State.PaneID, contract.OptionLive)
	return live != "1"
}

// holdRearm takes the loop's re-arm lock and returns its release; nil when
// another command holds it.
func holdRearm(l *Loop) (func(), error) {
	f, err := os.OpenFile(l.Store.Path(state.RearmLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, failed(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, nil
	}
	return func() { f.Close() }, nil
}

// revive gives a loop whose pane is gone the pane -t named, else a window
// named after it in RestoreSession (one tmux-resurrect brought back, or a
// new one, starting the server on the loop's socket if none runs), in the
// loop's folder, and records it: an iteration the restart cut short is
// over, and the watcher loops the new pane.
func (r Rearm) revive(l *Loop) (string, error) {
	if err := folderGone(l); err != nil {
		return "", err
	}
	dir := folderOf(l.State)
	window := RestoreSession + ":" + l.Name
	var pane, where string
	if r.Target != "" {
		p, err := r.target(l)
		if err == nil {
			err = respawnIn(l, p, dir)
		}
		if err != nil {
			return "", err
		}
		pane, where = p.ID, fmt.Sprintf("moved to pane %s", p.ID)
	} else if p, err := l.Tmux.Pane("=" + RestoreSession + ":=" + l.Name); err == nil && r.free(l, p) == nil && respawnIn(l, p, dir) == nil {
		pane, where = p.ID, fmt.Sprintf("took pane %s of window %s", p.ID, window)
	} else {
		id, err := l.Tmux.NewWindow(tmux.NewWindowRequest{Session: RestoreSession, Name: l.Name, Dir: dir})
		if err != nil {
			return "", Errorf(contract.ExitFailed, "create window: %v", err)
		}
		pane, where = id, fmt.Sprintf("recreated pane %s in window %s", id, window)
	}
	cut := 0
	now := r.Clock.Now()
	err := withoutWatcher(l, func(st *state.State) {
		if st.LastIterationStarted != "" && st.LastIterationEnded == "" {
			st.LastIterationEnded, cut = state.Stamp(now), st.CurrentIteration
		}
		st.PaneID, st.ShellPID, st.PromptUntyped = pane, 0, false
		st.RemainOnExit = &state.PaneOption{} // a new pane: unset again when the loop ends
		st.WatcherArgs = withTarget(st.WatcherArgs, pane)
	})
	if err != nil {
		return "", err
	}
	l.Pane = PaneRunning
	if cut > 0 {
		where += fmt.Sprintf("; iteration %d was cut short", cut)
	}
	_ = l.Store.Log(now, "RESTORE", where)
	return where, nil
}

// respawnIn restarts pane p's shell in the loop's folder, where the watcher
// finds it; what ran there ends, as it would at the next iteration.
func respawnIn(l *Loop, p tmux.Pane, dir string) error {
	if _, err := l.Tmux.Respawn(tmux.RespawnRequest{Pane: p.ID, Dir: dir}); err != nil {
		return Errorf(contract.ExitFailed, "respawn pane %s: %v", p.ID, err)
	}
	return nil
}

// target is the pane -t names, on the loop's server, if the loop may move there.
func (r Rearm) target(l *Loop) (tmux.Pane, error) {
	p, err := l.Tmux.Pane(r.Target)
	switch {
	case tmux.NoServer(err):
		return p, Errorf(contract.ExitUsage, "no tmux server running on %s", l.State.TmuxSocket)
	case errors.Is(err, tmux.ErrNoPane):
		return p, Errorf(contract.ExitUsage, "no such pane: %s", r.Target)
	case err != nil:
		return p, Errorf(contract.ExitUsage, "%v", err)
	}
	return p, r.free(l, p)
}

// free says why the loop may not take pane p: another loop lives there, or
// this command runs in it and its respawn would end it.
func (r Rearm) free(l *Loop, p tmux.Pane) error {
	if live, _, _ := l.Tmux.PaneOption(p.ID, contract.OptionLive); live == "1" {
		other, _, _ := l.Tmux.PaneOption(p.ID, contract.OptionName)
		return LoopedBy(p.ID, other, ClaimResume)
	}
	if r.Inside != nil && r.Inside(p) {
		return Errorf(contract.ExitUsage, "pane %s runs this command, which its respawn would end; resume from another pane", p.ID)
	}
	return nil
}

// folderOf is where a loop's agent ran: recorded since loops survive
// restarts; before that, where its watcher was started.
func folderOf(st *state.State) string {
	if st.Dir != "" {
		return st.Dir
	}
	return st.WatcherDir
}

// withTarget is a watcher's arguments looping pane instead.
func withTarget(args []string, pane string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		switch {
		case a == "--":
			return append([]string{"--target", pane}, out...)
		case (a == "--target" || a == "-t") && i+1 < len(out):
			out[i+1] = pane
			return out
		case strings.HasPrefix(a, "--target="):
			out[i] = "--target=" + pane
			return out
		}
	}
	return append([]string{"--target", pane}, out...)
}

// SameFile reports whether two paths name one file (a socket reached
// through a symbolic link is the same server).
func SameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ea, errA := filepath.EvalSymlinks(a)
	eb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ea == eb
}
