package control

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// PaneClaimedEnv tells a watcher that its starter claimed its pane for it
// and holds the claim until the watcher holds the loop.
const PaneClaimedEnv = "RALPH_WATCH_PANE_CLAIMED"

// panesDir holds one claim file per looped pane: its lock decides, its text
// names the loop. A dot folder: no loop can be named so (it has no state.json).
const panesDir = ".panes"

// PaneOf is a pane of a tmux server, as a claim names it: pane ids are the
// server's own, and a server started again on the socket numbers afresh.
type PaneOf struct {
	Socket    string // the server's socket path
	ServerPID int    // 0 when unknown
	ID        string // %N
}

// ClaimPane makes pane loop name's: under the pane's lock, it refuses a pane
// that another live loop holds (exit 2, naming it), or as ClaimReplace stops
// that loop first (a line on out), then names this loop in the claim. The
// lock is held until release, which the caller calls once its watcher holds
// the loop, so that two starts at the same moment cannot both win.
func ClaimPane(root string, pane PaneOf, name string, how Claim, out io.Writer, clk clock.Clock) (release func(), err error) {
	return claimFileIn(root, panesDir, claimFile(pane), "pane "+pane.ID, name, func(holder string) error {
		if holder == "" || holder == name {
			return nil
		}
		l := holding(root, holder, pane)
		switch {
		case l == nil:
			return nil
		case how != ClaimReplace:
			return LoopedBy(pane.ID, holder, how)
		}
		if err := takeOver(root, l, clk); err != nil {
			return err
		}
		fmt.Fprintf(out, "stopped loop %s, which looped pane %s\n", holder, pane.ID)
		return nil
	})
}

// LoopedBy is the refusal of pane, which loop holder loops, to a run or
// (ClaimResume) a resume.
func LoopedBy(pane, holder string, how Claim) error {
	fix := "ralph-watch stop " + holder + ", or --replace to take it over"
	if how == ClaimResume {
		fix = "ralph-watch stop " + holder + " first"
	}
	return Errorf(contract.ExitUsage, "pane %s is looped by %q (%s)", pane, holder, fix)
}

// claimFile names a pane's claim by its server's socket and its id.
func claimFile(pane PaneOf) string {
	sum := sha256.Sum256([]byte(filepath.Clean(pane.Socket)))
	return hex.EncodeToString(sum[:8]) + "-" + strings.TrimPrefix(pane.ID, "%")
}

// holding is loop name if it still holds pane: its watcher runs (on that
// pane of that server, as far as its state says yet), or its state says it
// goes on there with none (a watcher killed, a loop paused: resume brings
// it back). A loop that ended, moved or whose server went does not.
func holding(root, name string, pane PaneOf) *Loop {
	l, err := Find(root, name)
	if err != nil { // no state yet: a watcher just started holds the loop before it writes one
		if store := (&state.Store{Dir: filepath.Join(root, name)}); ValidName(name) && store.Locked() {
			return &Loop{Name: name, Store: store, State: &state.State{}}
		}
		return nil
	}
	st := l.State
	if (st.PaneID != "" && st.PaneID != pane.ID) || (st.ServerPID != 0 && pane.ServerPID != 0 && st.ServerPID != pane.ServerPID) ||
		(st.TmuxSocket != "" && !SameFile(st.TmuxSocket, pane.Socket)) {
		return nil
	}
	if l.Watched || contract.StatusOf(st).Live() {
		return l
	}
	return nil
}

// takeOver stops loop l, which holds a pane another loop takes, and its
// agent, until no watcher of it is left; its record stays, stopped.
func takeOver(root string, l *Loop, clk clock.Clock) error {
	for deadline := clk.Now().Add(exitWait); l.State.WorkerName == "" && clk.Now().Before(deadline); {
		clock.Sleep(context.Background(), clk, lookEvery) // a watcher just started: its state comes next
		if found, err := Find(root, l.Name); err == nil {
			l = found
		}
	}
	err := Stop(l, true, io.Discard, clk)
	if l.Store.Locked() && !unwatched(l, clk, exitWait) && l.State.WatcherPID > 0 {
		syscall.Kill(l.State.WatcherPID, syscall.SIGKILL)
		if !unwatched(l, clk, exitWait) {
			return Errorf(contract.ExitFailed, "loop '%s' did not stop", l.Name)
		}
		l.Watched = false
		err = Stop(l, true, io.Discard, clk) // its record says it stopped
	}
	return err
}
