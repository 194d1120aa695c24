package watch

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/ended"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// open records the loop's start, takes over the pane's remain-on-exit and
// starts reading its output.
func (l *Loop) open() (Result, bool) {
	if l.Clock == nil {
		l.Clock = clock.Real{}
	}
	l.start = l.Clock.Now()
	if l.Resume {
		st, err := l.Store.Load()
		if err != nil {
			l.errorf("%v", err)
			return Result{Code: words.ExitFailed, Reason: words.ReasonNoState}, false
		}
		l.st, l.iteration = st, st.CurrentIteration
		if t, err := time.ParseInLocation(state.TimeFormat, st.Started, time.Local); err == nil {
			l.start = t // max-time counts from the loop's first start
		}
		l.st.ExitReason = nil
		l.restoreChecks()
	} else {
		l.checked = -1
		l.st = &state.State{
			WorkerName:         l.Name,
			Started:            state.Stamp(l.start),
			IterationDurations: []int{},
		}
	}
	l.record()
	l.installHooks()
	l.save()
	if l.Resume {
		l.log("RESUME", fmt.Sprintf("loop resumed at iteration %d", l.iteration))
	}

	if r := l.st.RemainOnExit; l.Resume && r != nil {
		l.prevRemain, l.hadRemain = r.Value, r.Set // the pane has the last watcher's "on"
	} else {
		l.prevRemain, l.hadRemain, _ = l.Tmux.PaneOption(l.Pane, "remain-on-exit")
		l.st.RemainOnExit = &state.PaneOption{Value: l.prevRemain, Set: l.hadRemain}
	}
	if err := l.Tmux.SetPaneOptions(l.Pane, []tmux.Option{{Name: "remain-on-exit", Value: "on"}}); err != nil {
		return l.lost(err), false
	}
	pane, err := l.Tmux.Pane(l.Pane)
	if err == nil {
		l.st.ServerPID = pane.ServerPID // the server the pane is in now; another is not the loop's
	}
	if err == nil && pane.Dead {
		return Result{}, true // tmux pipes no dead pane: the stream opens with the next agent
	}
	l.openStream()
	return Result{}, true
}

// holdPane gives a dead pane a placeholder process, so that its output can
// be piped before the agent starts: the pipe lasts through respawns.
func (l *Loop) holdPane(pane tmux.Pane) tmux.Pane {
	if !pane.Dead {
		return pane
	}
	if err := l.Tmux.Respawn(tmux.RespawnRequest{Pane: l.Pane, Dir: l.Dir,
		Command: []string{"/bin/sh", "-c", "exec sleep 2147483647"}}); err != nil {
		return pane
	}
	if p, err := l.Tmux.Pane(l.Pane); err == nil {
		return p
	}
	return pane
}

// openStream starts reading the pane's output; without it the done pattern
// is not checked and the screen is polled.
func (l *Loop) openStream() {
	stream, err := OpenStream(l.Tmux, l.Pane, l.Store.Path(state.OutputFIFO))
	if err != nil {
		l.warnf("cannot read the pane's output (%v); the done pattern will not be checked", err)
	}
	l.stream, l.streamTried = stream, true
}

// close stops reading the pane and gives back its remain-on-exit, unless the
// loop is only paused or the pane is gone.
func (l *Loop) close(res Result) {
	var wg sync.WaitGroup
	defer wg.Wait()
	if l.stream != nil {
		wg.Add(1)
		go func() { // two tmux calls at once: a stopped loop is waited for
			defer wg.Done()
			l.stream.Close(l.Tmux, l.Pane)
		}()
	}
	l.endLeftovers(res)
	if r := res.Reason; r != words.ReasonInterrupted && r != words.ReasonPaused && r != words.ReasonPaneClosed && r != words.ReasonServerGone {
		if l.EndCommand != "" { // an agent on its way out goes back to the shell when it exits
			if err := l.Store.WriteFile(state.AfterExitFile, []byte(l.EndCommand)); err != nil {
				l.warnf("leave the end command for the agent's exit: %v", err)
			}
		}
		if pid := ended.BackToShell(l.Tmux, l.Pane, l.Dir, l.EndCommand); pid > 0 {
			_ = os.Remove(l.Store.Path(state.AfterExitFile)) // the agent was gone already
			l.st.ShellPID = pid                              // the pane runs a shell now, not the agent
			l.save()
		}
		restore := l.prevRemain
		if !l.hadRemain {
			restore = "" // unset: back to the window's value
		}
		_ = l.Tmux.SetPaneOptions(l.Pane, []tmux.Option{{Name: "remain-on-exit", Value: restore}})
	}
}
