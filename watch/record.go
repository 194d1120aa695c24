package watch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// record writes the loop's settings and whereabouts into its state.
func (l *Loop) record() {
	l.st.PromptFile = l.PromptFile
	l.st.MaxIterations = l.MaxIterations
	l.st.Status = state.Running
	l.st.InactivityTimeout = int(l.InactivityTimeout / time.Second)
	l.st.CheckDoneContinuous = l.CheckDoneContinuous
	l.st.PaneID, l.st.TmuxSocket, l.st.Command = l.Pane, l.Socket, l.Command
	l.st.Dir = l.Dir
	l.st.WatcherPID, l.st.WatcherArgs, l.st.WatcherDir = os.Getpid(), l.WatcherArgs, l.WatcherDir
	l.st.Agent = l.Agent.Name
	l.st.Worktree, l.st.WorktreeBranch = l.Worktree, l.WorktreeBranch
	if l.st.WorktreeBase == "" { // kept from the first start: a resume may see another branch checked out
		l.st.WorktreeBase = l.WorktreeBase
	}
	if !l.Resume { // a resumed watcher sees every value as a flag; the first start knew better
		l.st.CommandSources = l.CommandSources
	}
	if l.st.Path == "" { // kept from the first start: a resume from another shell must find the same programs
		l.st.Path = l.Path
	}
	l.st.EndCommand = l.EndCommand
	l.st.ReadyTimeout = int(l.ReadyTimeout / time.Second)
	l.st.MaxTokens, l.st.MaxCostUSD = l.Budget.Tokens, l.Budget.CostUSD
	l.st.DonePattern = nil
	if l.DonePattern != nil {
		p := l.DonePattern.String()
		l.st.DonePattern = &p
	}
}

func (l *Loop) progress() string {
	if l.MaxIterations > 0 {
		return fmt.Sprintf("%d/%d", l.iteration, l.MaxIterations)
	}
	return strconv.Itoa(l.iteration)
}

// showStatus records the loop's status in its state (saved) and mirrors it
// in the pane's options for the status line; the person hears of a status
// that needs them once, when it begins.
func (l *Loop) showStatus(status words.Status) {
	now := l.Clock.Now()
	changed := status != l.shown
	l.shown = status
	shown := words.Shown{Status: status, Name: l.Name, Iteration: l.iteration, Max: l.MaxIterations, Reason: l.reason, Cost: l.spend.shown}
	switch status {
	case words.StatusRunning, words.StatusBackoff:
		shown.Reason = ""
	case words.StatusWaiting:
		shown.Note, shown.Reason = l.note, strings.TrimPrefix(l.note, "waiting for ")
	case words.StatusNeedsInput:
		shown.Reason = "an answer in the pane (the agent is asking a question)"
	case words.StatusFailed:
		shown.Error = l.st.Error // the sentence, not only its code word
	}
	if !status.Live() {
		shown.Ended = now
	}
	status.Record(l.st, shown.Reason, now)
	l.save()
	l.beatMu.Lock()
	if l.beating = l.BeatEvery > 0 && status.Live() && status != words.StatusPaused; l.beating {
		shown.Beat = time.Now() // the status line compares it with its own clock
	}
	_ = l.Tmux.SetPaneOptions(l.Pane, shown.Options())
	l.beatMu.Unlock()
	l.lastShown = shown
	if changed && status.Live() { // an ended loop's notice waits for its pane's shell
		l.notify(shown)
	}
}

// saveScreen keeps the pane's last screen of the iteration for a post-mortem.
func (l *Loop) saveScreen() {
	if screen, err := l.Tmux.Capture(tmux.CaptureRequest{Pane: l.Pane, Start: -1000, Join: true}); err == nil {
		_ = os.WriteFile(l.Store.Path(state.LastScreen), []byte(screen), 0o600)
	}
}

// beat writes @ralph-beat every BeatEvery while the loop shows a status its
// watcher beats for, until stop: a watcher that dies (kill -9) leaves a beat
// that grows old, and the status line, comparing it with the time, says so.
func (l *Loop) beat() (stop func()) {
	if l.BeatEvery <= 0 {
		return func() {}
	}
	done, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		tick := time.NewTicker(l.BeatEvery) // the wall clock: the status line's is one
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				l.beatMu.Lock()
				if l.beating {
					_ = l.Tmux.SetPaneOptions(l.Pane, []tmux.Option{{Name: words.OptionBeat, Value: strconv.FormatInt(now.Unix(), 10)}})
				}
				l.beatMu.Unlock()
			}
		}
	}()
	return func() { close(done); <-over }
}

func (l *Loop) save() {
	if err := l.trySave(); err != nil {
		l.warnf("%v", err)
	}
}

func (l *Loop) trySave() error {
	now := l.Clock.Now()
	l.lastBeat = now
	l.st.Heartbeat = state.Stamp(now)
	return l.Store.Save(l.st)
}

func (l *Loop) log(event, message string) {
	if err := l.Store.Log(l.Clock.Now(), event, message); err != nil {
		l.warnf("%v", err)
	}
}

func (l *Loop) sayf(format string, args ...any) {
	fmt.Fprintf(l.Out, "[ralph] %s: %s\n", l.Name, fmt.Sprintf(format, args...))
}

func (l *Loop) warnf(format string, args ...any) {
	fmt.Fprintf(l.Err, "ralph-watch: warning: %s\n", fmt.Sprintf(format, args...))
}

func (l *Loop) errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(l.Err, "ralph-watch: error: %s\n", msg)
	if l.st != nil {
		l.st.Error = msg // shown where the person looks: the tmux message, status, the popup
	}
}

// seconds prints a duration in whole seconds, the way the swarm messages do.
func seconds(d time.Duration) string { return fmt.Sprintf("%ds", int(d/time.Second)) }
