package control

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/ended"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/pane"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Pause stops a loop from starting new iterations; its agent runs on. Its
// watcher, if one runs, is asked and awaited; else the state and pane are
// changed here. A paused loop is a warning on warn.
func Pause(l *Loop, out, warn io.Writer, clk clock.Clock) error {
	switch {
	case l.State.Status == state.Paused:
		fmt.Fprintf(warn, "ralph-watch: warning: loop '%s' is already paused\n", l.Name)
		return nil
	case l.State.Status != state.Running:
		return Errorf(contract.ExitFailed, "ralph loop for '%s' has status '%s'", l.Name, l.Status())
	case l.Watched:
		if err := tell(l, state.RequestPause); err != nil {
			return err
		}
		if !waitFor(l, clk, answerWait, func(st *state.State) bool { return st.Status != state.Running }) {
			return Errorf(contract.ExitFailed, "the watcher of '%s' did not answer the pause request", l.Name)
		}
	default:
		if err := withoutWatcher(l, func(st *state.State) { contract.StatusPaused.Record(st, "request", clk.Now()) }); err != nil {
			return err
		}
		_ = l.Store.Log(clk.Now(), "PAUSE", "loop paused reason=request")
		showPaneStatus(l, contract.StatusPaused, clk.Now())
	}
	fmt.Fprintf(out, "paused ralph loop for %s\n", l.Name)
	return nil
}

// Resumable reports whether a watcher may be started for the loop: it is
// paused or disconnected, ended because its pane or server went away,
// ended at a limit that has since been raised (see Set), or failed for a
// cause the person has mended,
// any watcher of it has gone, and its state says how the watcher was
// started. A loop still watched is a warning on warn.
func Resumable(l *Loop, warn io.Writer, clk clock.Clock) (bool, error) {
	if l.Watched && l.State.Status == state.Running && PaneGone(l) { // its watcher is on its way out
		l.Watched = !unwatched(l, clk, answerWait)
	}
	switch {
	case l.State.Status == state.Running && l.Watched:
		fmt.Fprintf(warn, "ralph-watch: warning: loop '%s' is not paused\n", l.Name)
		return false, nil
	case endedAtLimit(l.State) && !limitRaised(l, clk.Now()):
		return false, Errorf(contract.ExitFailed, "%s", raiseHint(l))
	case endedMendable(l.State) && unmended(l) != "":
		return false, Errorf(contract.ExitFailed, "%s", unmended(l))
	case l.State.Status != state.Running && l.State.Status != state.Paused && !endedByGone(l.State) && !endedAtLimit(l.State) && !endedByStop(l.State) && !endedMendable(l.State) && !FollowRound(l):
		return false, Errorf(contract.ExitFailed, "%s", notResumed(l))
	case l.Watched && !unwatched(l, clk, answerWait): // paused or ended, and its watcher still finishing
		return false, Errorf(contract.ExitFailed, "loop '%s' still has a watcher", l.Name)
	}
	if len(l.State.WatcherArgs) == 0 {
		return false, Errorf(contract.ExitFailed, "the state of '%s' does not say how its watcher was started; start it again with 'ralph-watch run --replace'", l.Name)
	}
	return true, nil
}

// FollowRound reports whether ralph-watch follow has a round of fixes
// waiting for the loop: its next iteration, whatever the loop ended with.
func FollowRound(l *Loop) bool {
	f, _ := l.Store.Follow()
	r := f.Fixing()
	return r != nil && r.Iteration == l.State.CurrentIteration
}

// Stop ends a loop and, with kill, its agent. Its watcher, if one runs, is
// asked and awaited; else the state and pane are changed here.
func Stop(l *Loop, kill bool, out io.Writer, clk clock.Clock) error {
	if was := contract.StatusOf(l.State); !was.Live() && !l.Watched {
		stopEnded(l, was, kill, out, clk)
		return nil
	}
	if l.Watched {
		req := state.RequestStop
		if kill {
			req = state.RequestStopKill
		}
		if err := tell(l, req); err != nil {
			return err
		}
		// Answered, or its watcher went without answering (killed as it was
		// asked: its lock outlives its pid while its last thread ends).
		if !waitFor(l, clk, stopWait, func(st *state.State) bool { return !contract.StatusOf(st).Live() || !l.Store.Locked() }) {
			return Errorf(contract.ExitFailed, "the watcher of '%s' did not answer the stop request", l.Name)
		}
		if st, err := l.Store.Load(); err == nil {
			l.State = st // what a watcher that answered as it went wrote
		}
		if contract.StatusOf(l.State).Live() {
			l.Store.TakeRequest() // no watcher is left to take it: a resumed one would stop at once
			l.Watched = false
		}
	}
	if !l.Watched {
		recordStopped(l, clk.Now()) // before its agent may be ended: the receipt a watcher would have written
		if err := withoutWatcher(l, func(st *state.State) {
			reason := map[bool]contract.Reason{false: contract.ReasonStopped, true: contract.ReasonKilled}[kill]
			reason.Write(st)
			contract.StatusStopped.Record(st, string(reason), clk.Now())
		}); err != nil {
			return err
		}
		_ = l.Store.Log(clk.Now(), "DONE", fmt.Sprintf("loop complete after %d iterations reason=%s", l.State.CurrentIteration, *l.State.ExitReason))
		if kill {
			endAgent(l, clk)
		}
		showPaneStatus(l, contract.StatusStopped, clk.Now())
	}
	fmt.Fprintf(out, "stopped ralph loop for %s\n", l.Name)
	return nil
}

// stopEnded answers a stop of a loop that has already ended: one line, for
// the loop is stopped as asked; kill still ends an agent left running.
func stopEnded(l *Loop, was contract.Status, kill bool, out io.Writer, clk clock.Clock) {
	if kill && l.Pane == PaneRunning {
		endAgent(l, clk)
		fmt.Fprintf(out, "ralph loop for %s had already ended (%s); ended its agent\n", l.Name, was)
		return
	}
	fmt.Fprintf(out, "ralph loop for %s has already ended (%s); nothing to stop\n", l.Name, was)
}

// killGrace is how long an agent asked to end has before it is killed.
const killGrace = 3 * time.Second

// endAgent ends the agent in a loop's pane, whose shell comes back.
func endAgent(l *Loop, clk clock.Clock) {
	if l.Pane != PaneRunning {
		return
	}
	if p, err := l.Tmux.Pane(l.State.PaneID); err == nil {
		agent.EndTree(p.PID, killGrace)
	}
	// The pane may close (remain-on-exit off) or stay dead a moment.
	for i := 0; i < 20; i++ {
		if p, err := l.Tmux.Pane(l.State.PaneID); err != nil || p.Dead {
			break
		}
		clock.Sleep(context.Background(), clk, lookEvery)
	}
	if pid := ended.BackToShell(l.Tmux, l.State.PaneID, l.State.Worktree, l.State.EndCommand); pid > 0 { // "": the pane's own folder
		_ = withoutWatcher(l, func(st *state.State) { st.ShellPID = pid }) // the shell runs all the same; status shows it by its pane
	}
}

// Send types message into the loop's pane as the prompt is typed, then Enter.
func Send(ctx context.Context, l *Loop, message string, out, warn io.Writer) error {
	if l.Pane != PaneRunning {
		return Errorf(contract.ExitFailed, "loop '%s' is not running (pane %s %s)", l.Name, l.State.PaneID, l.Pane)
	}
	if err := iteration.Send(ctx, l.Tmux, l.State.PaneID, l.Name, message, warn); err != nil {
		return Errorf(contract.ExitFailed, "send: %v", err)
	}
	fmt.Fprintf(out, "sent message to %s\n", l.Name)
	return nil
}

// Clean removes the state of each named loop under root, never its pane or
// agent; a loop a watcher holds is refused (an error line on warn, exit 1
// once the others are done).
func Clean(root string, names []string, out, warn io.Writer) error {
	refused := false
	for _, name := range names {
		l, err := Find(root, name)
		if err != nil {
			if l = Unreadable(root, name); l == nil {
				return err
			}
		}
		if l.Watched {
			fmt.Fprintf(warn, "ralph-watch: error: loop '%s' is being watched (pid %d); stop it first\n", name, l.State.WatcherPID)
			refused = true
			continue
		}
		if l.Pane == PaneRunning && l.State.LastIterationStarted != "" { // a loop prepared (--no-run) never ran: its pane runs the person's shell
			fmt.Fprintf(warn, "ralph-watch: warning: loop '%s' is still running (only ralph state removed)\n", name)
		}
		if err := l.Store.Remove(); err != nil {
			return Errorf(contract.ExitFailed, "remove state of '%s': %v", name, err)
		}
		forgetPane(l)
		fmt.Fprintf(out, "cleaned ralph state for %s\n", name)
		if l.State.Worktree != "" {
			fmt.Fprintf(out, "kept worktree %s (branch %s); remove it with: git worktree remove %s\n",
				l.State.Worktree, l.State.WorktreeBranch, l.State.Worktree)
		}
	}
	if refused {
		return Errorf(contract.ExitFailed, "")
	}
	return nil
}

// Followed records how ralph-watch follow ended on a loop no watcher
// holds: its status and exit reason (pr_ready, follow_rounds), why in
// words; its status line keeps note ("PR #12 ✓") until the loop is forgotten.
func Followed(l *Loop, reason contract.Reason, status contract.Status, why, note string, clk clock.Clock) error {
	err := withoutWatcher(l, func(st *state.State) {
		status.Record(st, why, clk.Now())
		reason.Write(st)
	})
	if err == nil && !PaneGone(l) {
		showPaneStatusNoted(l, status, clk.Now(), note)
	}
	return err
}

// TellFollow tells the person how following loop l's pull request ended,
// as a loop's end is told: a message in tmux, the bell, @ralph-notify-command.
func TellFollow(l *Loop, why string) {
	if l.Pane == PaneRemoved || PaneGone(l) {
		return
	}
	st := l.State
	shown := contract.Shown{Status: contract.StatusOf(st), Name: l.Name, Iteration: st.CurrentIteration, Max: st.MaxIterations, Reason: string(contract.ReasonOf(st))}
	pane.Tell(l.Tmux, st.PaneID, l.Name, shown, folderOf(st), "[ralph] "+l.Name+": "+why, func(string, ...any) {})
}

// ShowFollow shows on the pane of a loop no watcher holds what follow
// sees of its pull request ("PR #12 ✗ ci"), after the loop's own status.
func ShowFollow(l *Loop, note string) {
	if l.Watched || l.Pane == PaneRemoved || PaneGone(l) {
		return
	}
	st := l.State
	status := contract.StatusOf(st)
	shown := contract.Shown{Status: status, Name: l.Name, Iteration: st.CurrentIteration, Max: st.MaxIterations, Reason: st.Reason, Note: note,
		Cost: receipt.Total(l.Receipts()).Compact()}
	_ = l.Tmux.SetPaneOptions(st.PaneID, shown.Options())
}
