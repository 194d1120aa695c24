package watch

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/ended"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// recorder keeps the loop's record: it is the only writer of state.json,
// the iterations log, the receipts and the pane's status options, and it
// owns the status shown and the watcher's beat. The loop decides; the
// recorder writes down what it decided.
type recorder struct {
	cfg   *Config // read only
	tmux  tmux.Client
	store *state.Store
	clock clock.Clock
	out   io.Writer // progress lines, "[ralph] NAME: …"
	err   io.Writer // warnings and errors

	st        *state.State
	shown     words.Status // the status last shown
	lastShown words.Shown
	note      string // shown after the status mark, e.g. the limit's reset time
	reason    string // how the loop ended, why it pauses, what it waits for
	cost      string // the loop's spend as the status line shows it
	lastSave  time.Time

	beatMu  sync.Mutex // one writer of @ralph-beat at a time: the beat never outlives the loop's status
	beating bool       // the status shown is one a running watcher beats for
}

// iteration is the loop's iteration: the one running, or the last one run.
func (r *recorder) iteration() int { return r.st.CurrentIteration }

// record writes the loop's settings and whereabouts into its state.
func (r *recorder) record() {
	r.st.PromptFile = r.cfg.PromptFile
	r.st.MaxIterations = r.cfg.MaxIterations
	r.st.Status = state.Running
	r.st.InactivityTimeout = int(r.cfg.InactivityTimeout / time.Second)
	r.st.CheckDoneContinuous = r.cfg.CheckDoneContinuous
	r.st.PaneID, r.st.TmuxSocket, r.st.Command = r.cfg.Pane, r.cfg.Socket, r.cfg.Command
	r.st.Dir = r.cfg.Dir
	r.st.WatcherPID, r.st.WatcherArgs, r.st.WatcherDir = os.Getpid(), r.cfg.WatcherArgs, r.cfg.WatcherDir
	r.st.Agent = r.cfg.Agent.Name
	r.st.Worktree, r.st.WorktreeBranch = r.cfg.Worktree, r.cfg.WorktreeBranch
	if r.st.WorktreeBase == "" { // kept from the first start: a resume may see another branch checked out
		r.st.WorktreeBase = r.cfg.WorktreeBase
	}
	if !r.cfg.Resume { // a resumed watcher sees every value as a flag; the first start knew better
		r.st.CommandSources = r.cfg.CommandSources
	}
	if r.st.Path == "" { // kept from the first start: a resume from another shell must find the same programs
		r.st.Path = r.cfg.Path
	}
	r.st.EndCommand = r.cfg.EndCommand
	r.st.ReadyTimeout = int(r.cfg.ReadyTimeout / time.Second)
	r.st.MaxTokens, r.st.MaxCostUSD = r.cfg.Budget.Tokens, r.cfg.Budget.CostUSD
	r.st.DonePattern = nil
	if r.cfg.DonePattern != nil {
		p := r.cfg.DonePattern.String()
		r.st.DonePattern = &p
	}
}

func (r *recorder) progress() string {
	if r.cfg.MaxIterations > 0 {
		return fmt.Sprintf("%d/%d", r.iteration(), r.cfg.MaxIterations)
	}
	return strconv.Itoa(r.iteration())
}

// showStatus records the loop's status in its state (saved) and mirrors it
// in the pane's options for the status line; the person hears of a status
// that needs them once, when it begins.
func (r *recorder) showStatus(status words.Status) {
	now := r.clock.Now()
	changed := status != r.shown
	r.shown = status
	shown := words.Shown{Status: status, Name: r.cfg.Name, Iteration: r.iteration(), Max: r.cfg.MaxIterations, Reason: r.reason, Cost: r.cost}
	switch status {
	case words.StatusRunning, words.StatusBackoff:
		shown.Reason = ""
	case words.StatusWaiting:
		shown.Note, shown.Reason = r.note, strings.TrimPrefix(r.note, "waiting for ")
	case words.StatusNeedsInput:
		shown.Reason = "an answer in the pane (the agent is asking a question)"
	case words.StatusFailed:
		shown.Error = r.st.Error // the sentence, not only its code word
	}
	if !status.Live() {
		shown.Ended = now
	}
	status.Record(r.st, shown.Reason, now)
	r.save()
	r.beatMu.Lock()
	if r.beating = r.cfg.BeatEvery > 0 && status.Live() && status != words.StatusPaused; r.beating {
		shown.Beat = time.Now() // the status line compares it with its own clock
	}
	_ = r.tmux.SetPaneOptions(r.cfg.Pane, shown.Options())
	r.beatMu.Unlock()
	r.lastShown = shown
	if changed && status.Live() { // an ended loop's notice waits for its pane's shell
		r.notify(shown)
	}
}

// saveScreen keeps the pane's last screen of the iteration for a post-mortem.
func (r *recorder) saveScreen() {
	if screen, err := r.tmux.Capture(tmux.CaptureRequest{Pane: r.cfg.Pane, Start: -1000, Join: true}); err == nil {
		_ = os.WriteFile(r.store.Path(state.LastScreen), []byte(screen), 0o600)
	}
}

// beat writes @ralph-beat every BeatEvery while the loop shows a status its
// watcher beats for, until stop: a watcher that dies (kill -9) leaves a beat
// that grows old, and the status line, comparing it with the time, says so.
func (r *recorder) beat() (stop func()) {
	if r.cfg.BeatEvery <= 0 {
		return func() {}
	}
	done, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		tick := time.NewTicker(r.cfg.BeatEvery) // the wall clock: the status line's is one
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				r.beatMu.Lock()
				if r.beating {
					_ = r.tmux.SetPaneOptions(r.cfg.Pane, []tmux.Option{{Name: words.OptionBeat, Value: strconv.FormatInt(now.Unix(), 10)}})
				}
				r.beatMu.Unlock()
			}
		}
	}()
	return func() { close(done); <-over }
}

func (r *recorder) save() {
	if err := r.trySave(); err != nil {
		r.warnf("%v", err)
	}
}

func (r *recorder) trySave() error {
	now := r.clock.Now()
	r.lastSave = now
	r.st.Heartbeat = state.Stamp(now)
	return r.write()
}

// write writes the state as it is, the heartbeat untouched.
func (r *recorder) write() error { return r.store.Save(r.st) }

// startIteration records that the next iteration starts now (the last
// turn's end, if known, gives the gap between turns) and returns its number.
// The caller saves.
func (r *recorder) startIteration(now, lastTurnEnded time.Time) int {
	st := r.st
	st.CurrentIteration++
	st.LastIterationStarted, st.LastIterationEnded = state.Stamp(now), ""
	st.Status = state.Running
	st.WaitingUntil, r.note, st.DoneMatch, st.PromptLine, st.Error = "", "", "", nil, ""
	if !lastTurnEnded.IsZero() {
		gap := now.Sub(lastTurnEnded).Milliseconds()
		st.TurnGapMS = &gap
	}
	return st.CurrentIteration
}

func (r *recorder) log(event, message string) {
	if err := r.store.Log(r.clock.Now(), event, message); err != nil {
		r.warnf("%v", err)
	}
}

func (r *recorder) sayf(format string, args ...any) {
	fmt.Fprintf(r.out, "[ralph] %s: %s\n", r.cfg.Name, fmt.Sprintf(format, args...))
}

func (r *recorder) warnf(format string, args ...any) {
	fmt.Fprintf(r.err, "ralph-watch: warning: %s\n", fmt.Sprintf(format, args...))
}

func (r *recorder) errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(r.err, "ralph-watch: error: %s\n", msg)
	if r.st != nil {
		r.st.Error = msg // shown where the person looks: the tmux message, status, the popup
	}
}

// seconds prints a duration in whole seconds, the way the swarm messages do.
func seconds(d time.Duration) string { return fmt.Sprintf("%ds", int(d/time.Second)) }

// NotifyOption is the global tmux option holding a shell command run when a
// loop needs the person; it reads RALPH_NAME, RALPH_STATE, RALPH_REASON,
// RALPH_ITERATION, RALPH_PANE and RALPH_MESSAGE from its environment.
const NotifyOption = "@ralph-notify-command"

// notice is what to tell the person of a status, "" when it needs no one:
// a question waits, a limit pauses the loop, it failed or it finished. A
// stop or pause the person asked for needs no notice.
func notice(s words.Shown, iteration int) string {
	var what string
	switch s.Status {
	case words.StatusNeedsInput:
		return fmt.Sprintf("[ralph] %s: needs input in iteration %s (the agent is asking a question)", s.Name, s.Progress())
	case words.StatusWaiting:
		return fmt.Sprintf("[ralph] %s: usage limit reached, %s", s.Name, s.Note)
	case words.StatusDone:
		what = "done"
	case words.StatusFailed:
		what = "failed (" + s.Reason + ")"
	case words.StatusLimit:
		what = "reached its limit (" + s.Reason + ") without the done signal"
	default:
		return ""
	}
	msg := fmt.Sprintf("[ralph] %s: %s after %d iteration", s.Name, what, iteration)
	if iteration != 1 {
		msg += "s"
	}
	if s.Error != "" {
		msg += ": " + s.Error
	}
	return msg
}

// notify tells the person, once per event, where they are: a message on
// the clients of the pane's session, the window's bell flag, and the
// command in @ralph-notify-command.
func (r *recorder) notify(s words.Shown) {
	msg := notice(s, r.iteration())
	if msg == "" {
		return
	}
	_ = r.tmux.Message(r.cfg.Pane, msg)
	if pane, err := r.tmux.Pane(r.cfg.Pane); err == nil && !pane.Dead {
		ringBell(pane.PID)
	}
	command, err := r.tmux.GlobalOption(NotifyOption)
	if err != nil || command == "" {
		return
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = r.cfg.Dir
	cmd.Env = append(os.Environ(), "RALPH_NAME="+r.cfg.Name, "RALPH_STATE="+s.Status.String(), "RALPH_REASON="+s.Reason,
		"RALPH_ITERATION="+strconv.Itoa(r.iteration()), "RALPH_PANE="+r.cfg.Pane, "RALPH_MESSAGE="+msg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives the watcher, which may exit next
	if err := cmd.Start(); err != nil {
		r.warnf("run %s: %v", NotifyOption, err)
		return
	}
	go func() { _ = cmd.Wait() }() // reaped, not left a zombie while the loop goes on
}

// ringBell writes BEL to the terminal of the pane's process, as if the agent
// rang it: tmux raises the window's bell flag (and bell-action applies).
func ringBell(pid int) {
	path := "/proc/" + strconv.Itoa(pid) + "/fd/1"
	if target, err := os.Readlink(path); err != nil || !strings.HasPrefix(target, "/dev/pts/") {
		return // not a terminal: nothing to ring
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	_, _ = f.Write([]byte("\a"))
	f.Close()
}

// linger has the server remove the ended loop's pane options after the
// linger time, unless another loop took the pane meanwhile (its
// @ralph-ended is then another or none). The watcher need not wait for it.
func (r *recorder) linger() {
	d := ended.Linger(r.tmux)
	if d <= 0 || r.lastShown.Ended.IsZero() {
		return
	}
	if err := r.tmux.Later(d, ended.Forget(r.cfg.Pane, r.lastShown.Ended)); err != nil {
		r.warnf("schedule the removal of the ended loop from the status line: %v", err)
	}
}

// receipt appends an iteration's receipt to the receipts file, its [COST]
// line to the log, and shows the loop's spend.
func (r *recorder) receipt(rc receipt.Receipt) {
	path := r.store.Path(state.ReceiptsFile)
	if err := receipt.Append(path, rc); err != nil {
		r.warnf("record the receipt of iteration %d: %v", rc.Iteration, err)
	}
	r.log("COST", rc.LogLine())
	all, _ := receipt.Load(path)
	r.cost = receipt.Total(all).Compact()
}

// agentState records what the agent's screen says, for status --json.
func (r *recorder) agentState(s agent.State) {
	if r.cfg.Agent.Knows() {
		r.st.AgentState = s.String()
	}
}
