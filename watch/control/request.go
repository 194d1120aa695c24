package control

import (
	"context"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/ended"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// How long a command waits for a watcher to answer, and how often it looks.
const (
	answerWait = 10 * time.Second // pause; a watcher on its way out after a pause
	stopWait   = 15 * time.Second // stop: the watcher ends the agent first
	exitWait   = 5 * time.Second  // a watcher whose loop has ended, or was killed
	lookEvery  = 50 * time.Millisecond
)

// tell leaves a request for a loop's watcher and wakes it.
func tell(l *Loop, request string) error {
	if err := l.Store.Request(request); err != nil {
		return failed(err)
	}
	if l.State.WatcherPID > 0 {
		syscall.Kill(l.State.WatcherPID, syscall.SIGUSR1)
	}
	return nil
}

// waitFor reads the loop's state until cond holds or timeout passes.
func waitFor(l *Loop, clk clock.Clock, timeout time.Duration, cond func(*state.State) bool) bool {
	deadline := clk.Now().Add(timeout)
	for clk.Now().Before(deadline) {
		if st, err := l.Store.Load(); err == nil && cond(st) {
			l.State = st
			return true
		}
		clock.Sleep(context.Background(), clk, lookEvery)
	}
	return false
}

// unwatched waits until no watcher holds the loop.
func unwatched(l *Loop, clk clock.Clock, timeout time.Duration) bool {
	return waitFor(l, clk, timeout, func(*state.State) bool { return !l.Store.Locked() })
}

// withoutWatcher changes the state of a loop no watcher holds, under its lock.
func withoutWatcher(l *Loop, change func(*state.State)) error {
	if err := l.Store.Lock(); err != nil {
		return Errorf(contract.ExitFailed, "loop '%s' is busy: %v", l.Name, err)
	}
	defer l.Store.Unlock()
	st, err := l.Store.Load()
	if err != nil {
		return failed(err)
	}
	change(st)
	if err := l.Store.Save(st); err != nil {
		return failed(err)
	}
	l.State = st
	return nil
}

// showPaneStatus updates a loop's pane options when no watcher does; an
// ended loop leaves the status line after @ralph-ended-linger.
func showPaneStatus(l *Loop, status contract.Status, now time.Time) {
	showPaneStatusNoted(l, status, now, "")
}

// showPaneStatusNoted is showPaneStatus with note after the mark.
func showPaneStatusNoted(l *Loop, status contract.Status, now time.Time, note string) {
	if l.Pane == PaneRemoved {
		return
	}
	shown := contract.Shown{Status: status, Name: l.Name, Iteration: l.State.CurrentIteration, Max: l.State.MaxIterations, Reason: l.State.Reason,
		Cost: receipt.Total(l.Receipts()).Compact(), Note: note}
	if !status.Live() {
		shown.Ended = now
	}
	_ = l.Tmux.SetPaneOptions(l.State.PaneID, shown.Options())
	if d := ended.Linger(l.Tmux); !status.Live() && d > 0 {
		_ = l.Tmux.Later(d, ended.Forget(l.State.PaneID, shown.Ended))
	}
}

// forgetPane removes a loop's options from its pane at once, if the pane
// still shows that loop.
func forgetPane(l *Loop) {
	if l.Pane == PaneRemoved {
		return
	}
	if name, _, _ := l.Tmux.PaneOption(l.State.PaneID, contract.OptionName); name == l.Name {
		_ = l.Tmux.SetPaneOptions(l.State.PaneID, contract.Unset())
	}
}
