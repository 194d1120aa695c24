package watch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Clock is the loop's source of time (see package clock).
type Clock = clock.Clock

// RealClock is the wall clock.
type RealClock = clock.Real

// Loop supervises one pane: it runs iterations until done, a limit, a fatal
// failure or an interrupt.
type Loop struct {
	Config
	Tmux  tmux.Client
	Store *state.Store
	Out   io.Writer // progress lines, "[ralph] NAME: …"
	Err   io.Writer // warnings and errors
	Clock Clock
	Wake  <-chan os.Signal // a command left a request (SIGUSR1)

	killOnStop   bool
	agentPID     int // the pane's process of the latest iteration
	stream       *Stream
	streamTried  bool   // the pane's output was asked for (a dead pane cannot be piped)
	prevRemain   string // the pane's own remain-on-exit before the loop
	hadRemain    bool
	st           *state.State
	start        time.Time
	iteration    int
	lastBeat     time.Time
	turnHook     bool            // the agent reports the end of its turns itself
	hooked       map[string]bool // what the agent's installed hooks report (HookTurnEnd, …)
	hooksLost    bool            // they did not report: the screen tells from now on
	plainCommand []string        // the command without the hooks' arguments
	turnEnded    time.Time       // when the last iteration's turn ended, for the turn gap
	note         string          // shown after the status mark, e.g. the limit's reset time
	shown        Status          // the status last shown
	lastShown    Shown
	reason       string // how the loop ended, why it pauses, what it waits for

	feedback       string // the last iteration's check failures, for the next prompt
	checked        int    // the iteration whose checks ran last; -1: none
	checksPassed   bool   // how they went
	baseline       string // the working tree's fingerprint when the iteration started; "": unknown
	commitWarned   bool
	pauseFileFound bool
}

// Result is how a loop ended: the process exit code and the recorded reason.
type Result struct {
	Code   int
	Reason string
}

// How one iteration ended.
type ending int

const (
	endExit ending = iota
	endDone
	endDoneFile
	endInactivity
	endTimeout
	endMaxTime
	endInterrupted
	endPaneGone
	endServerGone
	endPaused     // a pause request: the agent runs on
	endStopped    // a stop request
	endTurn       // the agent finished its turn and sits idle at its prompt
	endLimit      // a usage limit: wait for the reset
	endDialog     // a question went unanswered for the dialog timeout
	endStartup    // a start-up dialog: the prompt must not be typed into it
	endTurnFailed // the agent's hook said its turn failed (an API error): a failure
)

// iteration is what one iteration saw.
type iteration struct {
	nonce    string
	scanner  *DoneScanner
	match    string
	exited   bool
	exitCode int       // from the exit marker; -1 until seen
	since    int64     // the stream's length when the agent was started
	pasteOn  bool      // the agent turned on bracketed paste
	turn     turn      // what its screen showed
	started  time.Time // when the agent was respawned
	spoke    bool      // the agent has written something
	ready    bool      // it took input: the prompt was typed
	typed    bool      // the agent was ready and the prompt typed (type mode)
}

// Run loops until the end and returns the exit code.
func (l *Loop) Run(ctx context.Context) Result {
	res, ok := l.open()
	if ok {
		res = l.run(ctx)
		l.close(res)
	}
	if !l.shown.Live() { // the pane is back to a shell: the bell can ring in it
		l.notify(l.lastShown)
		l.linger()
	}
	return res
}

// Prepare records a loop that is not started: its state (paused, at
// iteration 0) and the pane's options, for resume to start it later.
func (l *Loop) Prepare() error {
	if l.Clock == nil {
		l.Clock = RealClock{}
	}
	l.start = l.Clock.Now()
	l.st = &state.State{WorkerName: l.Name, Started: state.Stamp(l.start), IterationDurations: []int{}}
	l.record()
	l.st.Status, l.st.WatcherPID = state.Paused, 0
	if err := l.Store.Save(l.st); err != nil {
		return err
	}
	l.log("PAUSE", "loop prepared, not started")
	l.reason = "not started ('ralph-watch resume' starts it)"
	l.showStatus(StatusPaused)
	return nil
}

// open records the loop's start, takes over the pane's remain-on-exit and
// starts reading its output.
func (l *Loop) open() (Result, bool) {
	if l.Clock == nil {
		l.Clock = RealClock{}
	}
	l.start = l.Clock.Now()
	if l.Resume {
		st, err := l.Store.Load()
		if err != nil {
			l.errorf("%v", err)
			return Result{Code: ExitFailed, Reason: "no_state"}, false
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
	if pane, err := l.Tmux.Pane(l.Pane); err == nil && pane.Dead {
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
	stream, err := OpenStream(l.Tmux, l.Pane, l.Store.Path("output.fifo"))
	if err != nil {
		l.warnf("cannot read the pane's output (%v); the done pattern will not be checked", err)
	}
	l.stream, l.streamTried = stream, true
}

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
	if !l.Resume { // a resumed watcher sees every value as a flag; the first start knew better
		l.st.CommandSources = l.CommandSources
	}
	l.st.EndCommand = l.EndCommand
	l.st.ReadyTimeout = int(l.ReadyTimeout / time.Second)
	l.st.DonePattern = nil
	if l.DonePattern != nil {
		p := l.DonePattern.String()
		l.st.DonePattern = &p
	}
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
	if res.Reason != "interrupted" && res.Reason != "paused" && res.Reason != "pane_closed" && res.Reason != "server_gone" {
		if res.Reason == "done_pattern" {
			l.awaitExit(exitGrace) // an agent that printed the done token may be on its way out
		}
		if pid := BackToShell(l.Tmux, l.Pane, l.Dir, l.EndCommand); pid > 0 {
			l.st.ShellPID = pid // the pane runs a shell now, not the agent
			l.save()
		}
		restore := l.prevRemain
		if !l.hadRemain {
			restore = "" // unset: back to the window's value
		}
		l.Tmux.SetPaneOptions(l.Pane, []tmux.Option{{Name: "remain-on-exit", Value: restore}})
	}
}

// awaitExit gives the agent up to d to exit on its own.
func (l *Loop) awaitExit(d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if p, err := l.Tmux.Pane(l.Pane); err != nil || p.Dead {
			return
		}
	}
}

// endLeftovers ends what the last agent left behind once the loop is over:
// children that ignore SIGHUP and SIGTERM outlive a dead agent, a closed pane
// and a killed server, and would run on unseen. A live agent in a live pane
// runs on, and a paused loop's agent is the person's.
func (l *Loop) endLeftovers(res Result) {
	switch res.Reason {
	case "interrupted", "paused":
		return
	case "pane_closed", "server_gone":
		if l.agentPID > 0 {
			endSession(l.agentPID, killGrace)
		}
		return
	}
	if pane, err := l.Tmux.Pane(l.Pane); err == nil && pane.Dead {
		l.endAgent(pane)
	}
}

func (l *Loop) run(ctx context.Context) Result {
	waited := false
	if l.Resume && l.st.WaitingUntil != "" { // paused while it waited for a limit's reset
		var res Result
		var stop bool
		if res, stop, waited = l.resumeWait(ctx); stop {
			return res
		}
	}
	if l.Resume && !waited && l.inProgress() {
		started, _ := time.ParseInLocation(state.TimeFormat, l.st.LastIterationStarted, time.Local)
		l.sayf("resuming iteration %s", l.progress())
		var it outcome
		if l.st.PromptUntyped && l.PromptMode == ModeType {
			it = l.adoptUntyped(ctx, started)
		} else {
			l.showStatus(StatusRunning)
			it = l.adopt(ctx, started)
		}
		if res, stop := l.settle(ctx, it, started); stop {
			return res
		}
	}
	for {
		if res, stop := l.beforeIteration(ctx); stop {
			return res
		}
		l.iteration++
		text, err := ReadPrompt(l.PromptFile)
		if err != nil {
			l.errorf("%v", err)
			return l.end(StatusFailed, "prompt_file_missing", ExitFailed)
		}
		prompt := Compose(text, PromptVars{Iteration: l.iteration, MaxIterations: l.MaxIterations, Name: l.Name,
			CheckFailures: l.feedback}, l.CheckFailAction, l.IncludeIterationCount)

		now := l.Clock.Now()
		l.sayf("starting iteration %s", l.progress())
		l.st.CurrentIteration = l.iteration
		l.st.LastIterationStarted = state.Stamp(now)
		l.st.LastIterationEnded = ""
		l.st.Status = state.Running
		l.st.WaitingUntil, l.note, l.st.DoneMatch = "", "", ""
		if !l.turnEnded.IsZero() {
			gap := now.Sub(l.turnEnded).Milliseconds()
			l.st.TurnGapMS, l.turnEnded = &gap, time.Time{}
		}
		if err := l.trySave(); err != nil { // no iteration runs that the record would not show
			l.errorf("cannot record iteration %d, stopping loop: %v", l.iteration, err)
			return l.end(StatusFailed, "state_unwritable", ExitFailed)
		}
		l.log("START", "iteration "+l.progress())
		if l.PromptMode == ModeType {
			l.reason = l.readyWait()
			l.showStatus(StatusStarting) // until the agent takes the prompt
		} else {
			l.showStatus(StatusRunning)
		}

		if res, stop := l.settle(ctx, l.iterate(ctx, prompt), now); stop {
			return res
		}
	}
}

// inProgress reports whether the state left an iteration started and not ended.
func (l *Loop) inProgress() bool {
	return l.iteration > 0 && l.st.LastIterationStarted != "" && l.st.LastIterationEnded == ""
}

// settle records how an iteration ended and decides what comes next: the
// loop's end, or (after any backoff and the restart delay) another iteration.
func (l *Loop) settle(ctx context.Context, it outcome, started time.Time) (Result, bool) {
	end := it.ending
	ended := l.Clock.Now()
	l.st.LastIterationEnded = state.Stamp(ended)
	saved := make(chan struct{})
	go func() { l.saveScreen(); close(saved) }() // meanwhile the state is written
	defer func() { <-saved }()                   // the next agent's screen is not this one's

	switch end {
	case endInterrupted, endPaused:
		if l.st.WaitingUntil == "" { // else no iteration runs: the loop waits for a limit's reset
			l.st.LastIterationEnded = "" // the agent runs on: the iteration is not over
		}
		l.st.PromptUntyped = it.untyped // paused while the agent started: resume types the prompt
		l.st.DoneMatch = it.match       // resume ends the loop on it, as it would have
		if end == endInterrupted {
			return l.interrupted(), true
		}
		return l.paused(), true
	case endStopped:
		return l.stopped(), true
	}
	done := it.match != "" || end == endDoneFile
	if !done {
		switch end {
		case endPaneGone:
			l.errorf("pane %s was closed", l.Pane)
			return l.end(StatusFailed, "pane_closed", ExitFailed), true
		case endServerGone:
			l.errorf("tmux server is gone")
			return l.end(StatusFailed, "server_gone", ExitFailed), true
		case endMaxTime:
			return l.limit("max_time", fmt.Sprintf("max time (%s) reached", l.MaxTime)), true
		case endStartup:
			what, fix := l.Agent.StartupAdvice(it.detail)
			l.errorf("%s is asking %s; the prompt was not typed. To loop it, %s", l.program(), what, fix)
			l.log("FAIL", fmt.Sprintf("iteration %d startup_dialog", l.iteration))
			return l.end(StatusFailed, "startup_dialog", ExitFailed), true
		case endLimit: // not an iteration: no checks, no hooks
			return l.waitForLimit(ctx, it.detail, started)
		}
	}
	switch end {
	case endDialog:
		l.sayf("question unanswered for %s, restarting", l.DialogTimeout)
		l.log("TIMEOUT", fmt.Sprintf("iteration %d dialog_timeout=%s", l.iteration, l.DialogTimeout))
	case endTurn:
		l.turnEnded = it.turnEnded
		l.st.LastTurnEnded = state.Stamp(it.turnEnded)
		l.completed(ended.Sub(started), "turn ended", "turn_end")
	case endInactivity:
		l.sayf("inactivity timeout (%s), restarting", seconds(l.InactivityTimeout))
		l.log("TIMEOUT", fmt.Sprintf("iteration %d inactivity_timeout=%s", l.iteration, seconds(l.InactivityTimeout)))
	case endTimeout:
		l.sayf("iteration timeout (%s), restarting", l.IterationTimeout)
		l.log("TIMEOUT", fmt.Sprintf("iteration %d iteration_timeout=%s", l.iteration, l.IterationTimeout))
	case endTurnFailed:
		l.st.ConsecutiveFailures++
		l.st.TotalFailures++
	case endExit:
		code := it.code
		l.st.LastExitCode = &code
		switch {
		case code == 0:
			l.completed(ended.Sub(started), "exit: 0", "exit=0")
		case code == ExitPause:
			l.log("END", fmt.Sprintf("iteration %d exit=%d pause", l.iteration, code))
		case code == 126 || code == 127:
			l.st.ConsecutiveFailures++
			l.st.TotalFailures++
			what := "command not found"
			if code == 126 {
				what = "command not executable"
			}
			l.log("FAIL", fmt.Sprintf("iteration %d exit=%d fatal", l.iteration, code))
			l.errorf("%s: %s (exit %d)", what, l.program(), code)
			return l.end(StatusFailed, "fatal_exit", ExitFailed), true
		default:
			l.st.ConsecutiveFailures++
			l.st.TotalFailures++
		}
	}

	passed := l.afterIteration(ctx, it, ended.Sub(started))
	if ctx.Err() != nil {
		return l.interrupted(), true
	}
	if done && passed {
		if it.match == "" {
			return l.doneFile(), true
		}
		l.sayf("done pattern matched, stopping loop")
		l.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=done_pattern", l.iteration))
		return l.end(StatusDone, "done_pattern", ExitDone), true
	}
	if done {
		l.rejectDone()
	}
	if end == endExit && it.code == ExitPause {
		return l.pause(fmt.Sprintf("the agent exited %d, pausing loop ('ralph-watch resume %s' goes on)", ExitPause, l.Name), "agent_exit_42", "paused"), true
	}
	if l.StallLimit > 0 && l.st.UnchangedIterations >= l.StallLimit {
		l.sayf("%d iterations in a row changed nothing, stopping loop", l.st.UnchangedIterations)
		l.log("FAIL", fmt.Sprintf("iteration %d stalled unchanged=%d", l.iteration, l.st.UnchangedIterations))
		return l.end(StatusFailed, "stalled", ExitFailed), true
	}
	if end == endExit && it.code != 0 || end == endTurnFailed {
		n := l.st.ConsecutiveFailures
		shown, logged := "exit: "+exitText(it.code), "exit="+exitText(it.code)
		if end == endTurnFailed {
			shown, logged = "API error: "+it.detail, "turn_failed="+strconv.Quote(it.detail)
		}
		if n >= maxFailures {
			l.log("FAIL", fmt.Sprintf("iteration %d %s attempt=%d/%d", l.iteration, logged, n, maxFailures))
			l.sayf("%d consecutive failures, stopping loop", n)
			return l.end(StatusFailed, "consecutive_failures", ExitFailed), true
		}
		wait := Backoff(n)
		l.sayf("iteration %d failed (%s), retrying in %s (attempt %d/%d)", l.iteration, shown, seconds(wait), n, maxFailures)
		l.log("FAIL", fmt.Sprintf("iteration %d %s attempt=%d/%d backoff=%s", l.iteration, logged, n, maxFailures, seconds(wait)))
		l.save()
		l.showStatus(StatusBackoff)
		if end := l.wait(ctx, wait); end != endExit {
			return l.settle(ctx, outcome{ending: end}, started)
		}
	}
	l.save()
	if end := l.wait(ctx, l.RestartDelay); end != endExit {
		return l.settle(ctx, outcome{ending: end}, started)
	}
	return Result{}, false
}

// completed records an iteration that ended well, after d.
func (l *Loop) completed(d time.Duration, shown, logged string) {
	l.st.ConsecutiveFailures = 0
	l.st.IterationDurations = append(l.st.IterationDurations, int(d/time.Second))
	l.sayf("iteration %d completed (%s, duration: %s)", l.iteration, shown, FormatDuration(d))
	l.log("END", fmt.Sprintf("iteration %d %s duration=%s", l.iteration, logged, FormatDuration(d)))
}

// wait sleeps between iterations; a pause or stop request, or an interrupt,
// ends the wait at once and is returned (endExit: the wait ran out).
func (l *Loop) wait(ctx context.Context, d time.Duration) ending {
	timer := l.Clock.After(d)
	for {
		if end, ok := l.request(); ok {
			return end
		}
		select {
		case <-ctx.Done():
			return endInterrupted
		case <-timer:
			return endExit
		case <-l.Wake:
		case <-l.Clock.After(time.Second): // a request whose signal was lost
		}
	}
}

// request takes a pending pause or stop request.
func (l *Loop) request() (ending, bool) {
	switch l.Store.TakeRequest() {
	case state.RequestPause:
		return endPaused, true
	case state.RequestStop:
		return endStopped, true
	case state.RequestStopKill:
		l.killOnStop = true
		return endStopped, true
	}
	return endExit, false
}

// adopt watches an iteration a previous watcher started: the agent may still
// be running, or may have ended while nobody watched.
func (l *Loop) adopt(ctx context.Context, started time.Time) outcome {
	it := &iteration{exitCode: -1} // no nonce: any exit marker is this agent's
	if l.DonePattern != nil {
		prompt, _ := os.ReadFile(l.Store.Path("prompt.txt"))
		it.scanner = NewDoneScanner(l.DonePattern, string(prompt))
		if it.match = l.st.DoneMatch; it.match != "" {
			l.sayf("the done signal came before the pause (%s)", it.match)
		}
	}
	l.st.DoneMatch = ""
	return l.watchAgent(ctx, it, started)
}

// adoptUntyped takes over an agent started before a pause that came before
// its prompt was typed: the prompt of that iteration is typed now, once it
// is ready, and the agent watched.
func (l *Loop) adoptUntyped(ctx context.Context, started time.Time) (r outcome) {
	l.st.PromptUntyped = false
	prompt, err := os.ReadFile(l.Store.Path("prompt.txt"))
	if err != nil {
		l.warnf("the prompt of iteration %d is lost (%v); watching the agent", l.iteration, err)
		l.showStatus(StatusRunning)
		return l.adopt(ctx, started)
	}
	it := &iteration{exitCode: -1, since: -1, started: l.Clock.Now()} // its output came before the watcher: it has spoken
	l.reason = l.readyWait()
	l.showStatus(StatusStarting)
	if end, stop := l.deliver(ctx, it, string(prompt)); stop {
		r.ending, r.detail, r.untyped = end, it.turn.detail, !it.typed
		return r
	}
	return l.watchAgent(ctx, it, started)
}

// watchAgent watches the agent until the iteration ends; when it exited,
// takes all its output and its exit status; then judges what the done
// scanner held back.
func (l *Loop) watchAgent(ctx context.Context, it *iteration, started time.Time) (r outcome) {
	r.ending = l.monitor(ctx, it, started)
	if r.ending == endExit {
		l.drain(it)
		r.code = l.exitCode(it)
		if r.code != 0 && l.Agent.Limit != nil { // "usage limit reached|1700000000", then exit 1
			if screen, err := l.capture(); err == nil {
				if st, detail := l.Agent.Classify(ScreenLines(screen, l.Lines)); st == StateLimited {
					r.ending, it.turn.detail = endLimit, detail
				}
			}
		}
	}
	if r.ending == endTurn && l.turnHook {
		l.quiet(it) // the hook may come before the last words are drawn
	}
	l.flush(it)
	r.match, r.detail, r.turnEnded = it.match, it.turn.detail, it.turn.ended
	return r
}

// beforeIteration runs the stop checks: interrupt, pause file, done file
// (which counts only when the checks pass), limits. When the loop goes on,
// it notes the working tree, to tell whether the iteration changes it.
func (l *Loop) beforeIteration(ctx context.Context) (Result, bool) {
	if end, ok := l.request(); ok {
		return l.settle(ctx, outcome{ending: end}, l.Clock.Now())
	}
	if ctx.Err() != nil {
		return l.interrupted(), true
	}
	if l.pauseFileSeen() {
		return l.paused(), true
	}
	if l.doneFileExists() {
		if l.checksPass(ctx) {
			return l.doneFile(), true
		}
		if ctx.Err() != nil {
			return l.interrupted(), true
		}
		l.rejectDone()
	}
	switch {
	case l.MaxTime > 0 && l.Clock.Now().Sub(l.start) >= l.MaxTime:
		return l.limit("max_time", fmt.Sprintf("max time (%s) reached", l.MaxTime)), true
	case l.MaxIterations > 0 && l.iteration >= l.MaxIterations:
		return l.limit("max_iterations", fmt.Sprintf("max iterations (%d) reached", l.MaxIterations)), true
	}
	l.baseline = ""
	if l.StallLimit > 0 {
		l.baseline, _ = Fingerprint(l.Dir)
	}
	return Result{}, false
}

func (l *Loop) doneFile() Result {
	l.sayf("done file %s exists, stopping loop", l.DoneFile)
	l.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=done_file", l.iteration))
	return l.end(StatusDone, "done_file", ExitDone)
}

// limit ends the loop on a limit: success when nothing else could end it,
// exit 3 when a completion criterion was set and not met.
func (l *Loop) limit(reason, what string) Result {
	l.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=%s", l.iteration, reason))
	if l.Criterion() {
		l.sayf("%s without the done signal, stopping loop", what)
		return l.end(StatusLimit, reason, ExitLimit)
	}
	l.sayf("loop complete after %d iterations", l.iteration)
	return l.end(StatusDone, reason, ExitDone)
}

func (l *Loop) interrupted() Result {
	return l.pause("interrupted, pausing loop (the agent runs on)", "interrupt", "interrupted")
}

func (l *Loop) paused() Result {
	if l.pauseFileFound {
		l.pauseFileFound = false
		return l.pause(fmt.Sprintf("pause file %s found, pausing loop (the agent runs on; the file is removed)", l.PauseFile), "pause_file", "paused")
	}
	return l.pause("paused, exiting loop (the agent runs on)", "request", "paused")
}

// pause leaves the loop paused with the agent running, for resume.
func (l *Loop) pause(message, cause, reason string) Result {
	l.sayf("%s", message)
	l.log("PAUSE", "loop paused reason="+cause)
	l.reason = cause
	l.showStatus(StatusPaused)
	return Result{Code: ExitInterrupted, Reason: reason}
}

// stopped ends the loop on a stop request, and the agent too if asked.
func (l *Loop) stopped() Result {
	if l.killOnStop {
		if pane, err := l.Tmux.Pane(l.Pane); err == nil {
			l.endAgent(pane)
		}
	}
	l.sayf("stopped, exiting loop")
	l.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=killed", l.iteration))
	res := l.end(StatusStopped, "killed", ExitInterrupted)
	return res
}

func (l *Loop) lost(err error) Result {
	if tmux.NoServer(err) {
		l.errorf("tmux server is gone")
		return l.end(StatusFailed, "server_gone", ExitFailed)
	}
	l.errorf("pane %s was closed", l.Pane)
	return l.end(StatusFailed, "pane_closed", ExitFailed)
}

func (l *Loop) end(status Status, reason string, code int) Result {
	l.st.ExitReason = &reason
	l.reason = reason
	l.showStatus(status) // saves the state
	switch code {
	case ExitDone:
		l.hook("on-done", l.OnDone, strconv.Itoa(code), reason)
	case ExitFailed, ExitLimit:
		l.hook("on-fail", l.OnFail, strconv.Itoa(code), reason)
	}
	return Result{Code: code, Reason: reason}
}

// outcome is how one iteration ended, with the exit code when the agent
// exited and the done match when there was one.
type outcome struct {
	ending    ending
	code      int
	match     string
	detail    string    // the limit text, or the start-up dialog's index
	turnEnded time.Time // endTurn: when the agent finished
	untyped   bool      // it ended (a pause) before the prompt was typed
}

// iterate runs one iteration: end the old agent, respawn, deliver, watch.
func (l *Loop) iterate(ctx context.Context, prompt string) (r outcome) {
	it := &iteration{nonce: nonce(), exitCode: -1}
	promptPath := l.Store.Path("prompt.txt")
	if err := os.WriteFile(promptPath, []byte(prompt), 0o600); err != nil {
		l.warnf("save prompt: %v", err)
	}
	pane, err := l.Tmux.Pane(l.Pane)
	if err != nil {
		r.ending = l.goneEnding(err)
		return r
	}
	if !l.streamTried { // started or resumed on a dead pane, which tmux does not pipe
		pane = l.holdPane(pane)
		l.openStream()
	}
	l.endAgent(pane)
	l.clearHooks() // a record left by an earlier loop of this name is not this agent's
	// Whatever the old agent (or the pane's shell) wrote is not this
	// iteration's: not its first output, its bracketed paste, nor its exit.
	l.take(&iteration{nonce: "old", spoke: true, pasteOn: true, exitCode: -1})
	if l.stream != nil {
		it.since = l.stream.Bytes()
	}
	if l.PromptMode != ModeType && l.DonePattern != nil {
		it.scanner = NewDoneScanner(l.DonePattern, prompt)
	}
	err = l.Tmux.Respawn(tmux.RespawnRequest{
		Pane: l.Pane, Dir: l.Dir, Command: l.wrapped(it.nonce, promptPath),
		// An agent's screen is read for its state: an old dialog or limit
		// message left in the history must not be read again.
		ClearHistory: l.Agent.Knows(),
		Env: []string{
			"RALPH_ITERATION=" + strconv.Itoa(l.iteration),
			"RALPH_MAX_ITERATIONS=" + strconv.Itoa(l.MaxIterations),
			"RALPH_NAME=" + l.Name,
			// For hooks the person configured: `ralph-watch hook NAME` finds the loop by these.
			"RALPH_STATE_DIR=" + filepath.Dir(l.Store.Dir),
		},
	})
	if err != nil {
		if _, perr := l.Tmux.Pane(l.Pane); perr != nil {
			r.ending = l.goneEnding(perr)
			return r
		}
		l.warnf("respawn pane: %v", err)
		r.code = -1
		return r
	}
	if p, err := l.Tmux.Pane(l.Pane); err == nil {
		l.agentPID = p.PID // to end what it leaves if the pane goes away
	}
	started := l.Clock.Now()
	it.started = started
	l.event(it, EventStarted, "", strings.Join(l.Command, " "))
	if l.PromptMode == ModeType {
		if end, stop := l.deliver(ctx, it, prompt); stop {
			r.ending, r.detail, r.untyped = end, it.turn.detail, !it.typed
			return r
		}
	}
	r = l.watchAgent(ctx, it, started)
	l.hooksBrokeStart(it, r)
	return r
}

// endAgent ends whatever runs in the pane, its children included.
func (l *Loop) endAgent(pane tmux.Pane) {
	if !pane.Dead {
		EndTree(pane.PID, killGrace)
		return
	}
	// The pane's process is gone; end what it left behind in its session,
	// unless its pid already belongs to someone else.
	if _, err := os.Stat("/proc/" + strconv.Itoa(pane.PID)); err != nil {
		EndTree(pane.PID, killGrace)
	}
}

// wrapped is the pane's command: the agent, with the prompt as argument or
// stdin if so configured, then a marker carrying its exit status. The marker
// arrives after all the agent's output, so the watcher knows it has all of it.
// With job control (set -m) the agent is the terminal's foreground process
// group: tmux names the window after it, not "sh", and a Ctrl-C the person
// types reaches the agent alone, so the marker still comes.
func (l *Loop) wrapped(nonce, promptPath string) []string {
	const report = `rc=$?; printf '\033]7777;ralph-exit;%s;%s\007' "$n" "$rc"; exit "$rc"`
	switch l.PromptMode {
	case ModeArg:
		return append([]string{"/bin/sh", "-c",
			`set -m; n=$1; f=$2; shift 2; p=$(cat "$f"; printf x); p=${p%x}; "$@" "$p"; ` + report,
			"ralph", nonce, promptPath}, l.Command...)
	case ModeStdin:
		return append([]string{"/bin/sh", "-c", `set -m; n=$1; f=$2; shift 2; "$@" < "$f"; ` + report,
			"ralph", nonce, promptPath}, l.Command...)
	}
	return append([]string{"/bin/sh", "-c", `set -m; n=$1; shift; "$@"; ` + report, "ralph", nonce}, l.Command...)
}

// take moves new output into the iteration: text to the done scanner,
// markers to the exit status.
func (l *Loop) take(it *iteration) {
	if l.stream == nil {
		return
	}
	text, markers := l.stream.Take()
	if text != "" && !it.spoke {
		it.spoke = true
		l.event(it, EventOutput, ViaStream, "")
	}
	if it.scanner != nil && it.match == "" && text != "" {
		if m, ok := it.scanner.Feed(text); ok {
			it.match = m
			l.event(it, EventDone, ViaStream, m)
		}
	}
	for _, m := range markers {
		if m == PasteOn {
			if !it.pasteOn {
				l.event(it, EventPasteOn, ViaStream, "")
			}
			it.pasteOn = true
			continue
		}
		f := strings.Split(m, ";")
		if len(f) == 3 && f[0] == "exit" && (f[1] == it.nonce || it.nonce == "") {
			if code, err := strconv.Atoi(f[2]); err == nil {
				it.exited, it.exitCode = true, code
				l.event(it, EventExit, ViaExit, f[2])
			}
		}
	}
}

// flush judges what the done scanner held back for want of context: the
// output has gone quiet or the iteration is over.
func (l *Loop) flush(it *iteration) {
	if it.scanner != nil && it.match == "" {
		if m, ok := it.scanner.Flush(); ok {
			it.match = m
			l.event(it, EventDone, ViaStream, m)
		}
	}
}

// awaitReady waits until the agent takes input. The agent's own word comes
// first: its session-start hook, once it turned on bracketed paste (the
// hook can come before it reads its terminal raw). Else its screen: it has
// written something since it was started, and its visible screen matches
// the ready pattern, or has been still a moment (a shorter one once it
// turned on bracketed paste); where a pattern does not match, the
// agent-agnostic signals (paste on, screen and cursor still, its processes
// idle) stand in for it. The ready timeout bounds the wait. ready is false
// when the prompt must not be typed: the agent exited, the pane went away,
// or the wait was interrupted.
func (l *Loop) awaitReady(ctx context.Context, it *iteration) (end ending, ready bool) {
	deadline := l.Clock.Now().Add(l.ReadyTimeout)
	var det Detector
	var fg foreground
	for {
		l.take(it)
		if it.exited {
			return endExit, false
		}
		// The visible screen only: the history still shows the last agent.
		screen, err := l.Tmux.Capture(tmux.CaptureRequest{Pane: l.Pane, Join: true})
		if err != nil {
			return l.goneEnding(err), false
		}
		lines := ScreenLines(screen, 0)
		switch st, detail := l.Agent.Classify(lines); st {
		case StateStartup, StateLimited:
			it.turn.detail = detail
			l.event(it, map[AgentState]EventKind{StateStartup: EventStartup, StateLimited: EventLimit}[st], ViaScreen, detail)
			return map[AgentState]ending{StateStartup: endStartup, StateLimited: endLimit}[st], false
		}
		if _, ok := l.hookRecord(HookSessionStart); ok && it.pasteOn {
			it.ready = true
			l.event(it, EventReady, ViaHook, "")
			return endExit, true
		}
		cursor, _ := l.Tmux.Cursor(l.Pane)
		now := l.Clock.Now()
		stable := det.Observe(ScreenHash(screen+fmt.Sprint(cursor), 0), now)
		if l.stream == nil || l.stream.Bytes() > it.since {
			via := ""
			switch {
			case l.ReadyPattern != nil && ReadyMatch(l.ReadyPattern, lines):
				via = ViaPattern
			case l.ReadyPattern == nil && len(lines) > 0 && (stable >= readyStable || it.pasteOn && stable >= pasteOnStable):
				via = map[bool]string{true: ViaPaste, false: ViaStable}[it.pasteOn && stable < readyStable]
			case l.ReadyPattern != nil && len(lines) > 0 && stable >= readyStable && (!fg.ok || now.Sub(fg.at) >= idleSpan):
				// No pattern matched: is the agent idle on its terminal all the same?
				next := lookForeground(l.agentPID, now)
				if readyBySignals(it.pasteOn, stable, idleBetween(fg, next)) {
					via = ViaIdle
				} else {
					fg = next
				}
			}
			if via != "" {
				it.ready = true
				l.event(it, EventReady, via, "")
				return endExit, true
			}
		}
		if now.After(deadline) {
			l.warnf("agent did not become ready within %s, typing the prompt anyway", l.ReadyTimeout)
			it.ready = true
			l.event(it, EventReady, ViaTimeout, "")
			return endExit, true
		}
		if pane, err := l.Tmux.Pane(l.Pane); err != nil {
			return l.goneEnding(err), false
		} else if pane.Dead {
			return endExit, false
		}
		if end, ok := l.request(); ok { // pause and stop work while the loop starts
			return end, false
		}
		if !l.sleep(ctx, readyPoll) {
			return endInterrupted, false
		}
	}
}

// deliver waits for the agent to be ready, pastes the prompt, checks it
// landed, and presses Enter until the submit takes.
func (l *Loop) deliver(ctx context.Context, it *iteration, prompt string) (ending, bool) {
	if end, ready := l.awaitReady(ctx, it); !ready {
		if end == endExit {
			l.showStatus(StatusRunning) // the agent exited before it was ready: that is watched as usual
		}
		return end, end != endExit
	}
	l.setAgentState(StateIdle)
	it.typed = true
	l.showStatus(StatusRunning)
	// The baseline: only output from here on can hold the done signal.
	l.take(it)
	if l.DonePattern != nil {
		it.scanner = NewDoneScanner(l.DonePattern, prompt)
	}
	return l.typeText(ctx, it, prompt)
}

// typeText pastes text as a bracketed paste, byte for byte, checks it
// landed (pasting again only on evidence it was dropped, see
// nextAfterPaste), waits a moment, and presses Enter until the submit takes.
func (l *Loop) typeText(ctx context.Context, it *iteration, text string) (ending, bool) {
	if text != "" {
		sent, end, stop := l.paste(ctx, it, text)
		if stop || sent {
			return end, stop
		}
		if !l.sleep(ctx, settleDelay) {
			return endInterrupted, true
		}
	}
	for try := 1; try <= enterTries && !it.exited; try++ {
		moved, err := l.after(ctx, it, submitWait, true, func() error {
			return l.Tmux.SendKeys(l.Pane, "Enter")
		})
		if err != nil {
			return l.goneEnding(err), true
		}
		if moved && l.submitted(ctx) {
			_, byHook := l.hookRecord(HookPromptSubmit)
			l.event(it, EventSubmitted, map[bool]string{true: ViaHook, false: ViaScreen}[byHook], "")
			break
		}
	}
	if ctx.Err() != nil {
		return endInterrupted, true
	}
	return endExit, false
}

// paste delivers text once; sent reports that an Enter pressed to see
// whether the agent had it also submitted it.
func (l *Loop) paste(ctx context.Context, it *iteration, text string) (sent bool, end ending, stop bool) {
	if !l.startedReading(ctx, it, text) {
		return false, endInterrupted, true
	}
	buffer := fmt.Sprintf("ralph-%s-%s", l.Name, nonce())
	seen := pasteSeen{}
	waitUntil := l.Clock.Now().Add(pasteQueueWait)
	act := func() error { return l.Tmux.Paste(l.Pane, buffer, []byte(text)) }
	for {
		if act != nil {
			seen.Pastes++
			moved, err := l.after(ctx, it, pasteLandWait, true, act)
			if err != nil {
				return false, l.goneEnding(err), true
			}
			seen.Shown, act = moved, nil
		}
		if it.exited || ctx.Err() != nil {
			return false, endExit, false
		}
		seen.Queued = -1
		if pane, err := l.Tmux.Pane(l.Pane); err == nil {
			seen.Queued = ttyQueued(pane.PID)
		}
		next := nextAfterPaste(seen)
		if !seen.Shown {
			l.event(it, EventPasteCheck, ViaPaste, next.String())
		}
		switch next {
		case pasteLanded:
			if seen.Shown || seen.ProbeShown {
				l.event(it, EventPasted, ViaScreen, "")
			} else {
				l.warnf("the text did not show in the pane after %d pastes; pressing Enter anyway", seen.Pastes)
			}
			return false, endExit, false
		case pasteSubmitted:
			l.event(it, EventPasted, ViaProbe, "")
			l.event(it, EventSubmitted, ViaProbe, "")
			return true, endExit, false
		case pasteWait:
			if !l.Clock.Now().Before(waitUntil) {
				return false, endExit, false // it is there to be read: Enter follows it
			}
			moved, err := l.after(ctx, it, 200*time.Millisecond, true, func() error { return nil })
			if err != nil {
				return false, l.goneEnding(err), true
			}
			seen.Shown = moved
		case pasteProbe:
			if !l.sleep(ctx, settleDelay) {
				return false, endInterrupted, true
			}
			// The screen alone: an agent redrawing an empty input line writes bytes and shows nothing new.
			moved, err := l.after(ctx, it, submitWait, false, func() error { return l.Tmux.SendKeys(l.Pane, "Enter") })
			if err != nil {
				return false, l.goneEnding(err), true
			}
			seen.Probed, seen.ProbeShown = true, moved
			seen.ProbeSent = moved && l.submitted(ctx)
		case pasteAgain:
			l.warnf("the agent showed nothing of the text nor of an Enter; pasting it again")
			seen.Probed, seen.ProbeShown, seen.ProbeSent = false, false, false
			act = func() error { return l.Tmux.Paste(l.Pane, buffer, []byte(text)) }
		}
	}
}

// startedReading waits, a bounded while, for an agent that has not yet
// started to read keys before a multi-line text goes in (see tooEarly);
// false if interrupted.
func (l *Loop) startedReading(ctx context.Context, it *iteration, text string) bool {
	deadline := l.Clock.Now().Add(pasteStartWait)
	for {
		l.take(it)
		pane, err := l.Tmux.Pane(l.Pane)
		if err != nil || pane.Dead || !tooEarly(text, ttyCanonical(pane.PID)) || !l.Clock.Now().Before(deadline) {
			return true
		}
		if !l.sleep(ctx, readyPoll) {
			return false
		}
	}
}

// submitted reports whether the Enter that moved the screen sent the text:
// the agent's prompt-submit hook says so at once. Gemini CLI takes an Enter
// that comes soon after a paste as a new line in its input box: with a
// profile that knows the agent's empty input box, only a screen showing it
// (or the agent busy, or asking) says the text went.
func (l *Loop) submitted(ctx context.Context) bool {
	if _, ok := l.hookRecord(HookPromptSubmit); ok {
		return true
	}
	p := &l.Agent
	if !p.Knows() || p.Ready == nil {
		return true
	}
	deadline := l.Clock.Now().Add(submitWait)
	for {
		if _, ok := l.hookRecord(HookPromptSubmit); ok {
			return true
		}
		screen, err := l.capture()
		if err != nil {
			return true // the caller finds out what happened
		}
		lines := ScreenLines(screen, l.Lines)
		if st, _ := p.Classify(lines); st != StateUnknown || p.Ready.MatchString(strings.Join(lines, "\n")) {
			return true
		}
		if !l.Clock.Now().Before(deadline) || !l.sleep(ctx, 100*time.Millisecond) {
			return false
		}
	}
}

// Send types a message into a loop's pane mid-iteration, the way the prompt
// is delivered: a bracketed paste, then Enter until the submit takes.
func Send(ctx context.Context, client tmux.Client, pane, name, message string, warnings io.Writer) error {
	l := &Loop{Config: Config{Name: name, Pane: pane}, Tmux: client, Out: io.Discard, Err: warnings, Clock: RealClock{}}
	if _, err := client.Pane(pane); err != nil {
		return err
	}
	switch end, _ := l.typeText(ctx, &iteration{exitCode: -1}, message); end {
	case endPaneGone:
		return fmt.Errorf("pane %s is gone", pane)
	case endServerGone:
		return errors.New("tmux server is gone")
	case endInterrupted:
		return ctx.Err()
	}
	return nil
}

// after runs act and reports whether the pane showed any change within
// wait: any output (when output counts) or a different screen.
func (l *Loop) after(ctx context.Context, it *iteration, wait time.Duration, output bool, act func() error) (bool, error) {
	var before int64
	if l.stream != nil {
		before = l.stream.Bytes()
	}
	screen, err := l.capture()
	if err != nil {
		return false, err
	}
	hash := ScreenHash(screen, 0)
	if err := act(); err != nil {
		return false, err
	}
	deadline := l.Clock.Now().Add(wait)
	for l.Clock.Now().Before(deadline) {
		if !l.sleep(ctx, 50*time.Millisecond) {
			return false, nil
		}
		l.take(it)
		if output && l.stream != nil && l.stream.Bytes() > before {
			return true, nil
		}
		if screen, err := l.capture(); err == nil && ScreenHash(screen, 0) != hash {
			return true, nil
		}
	}
	return false, nil
}

// monitor watches the running agent until something ends the iteration.
//
// It wakes on the agent's output: the done scanner reads it as it arrives,
// and the screen is looked at (captured and hashed) at most once per poll
// interval while output flows, and again when the inactivity timeout would
// run out, so a still pane costs no tmux call at all. What output cannot
// tell (the pane closed, the server gone, a done file, a lost request) is
// checked every checkEvery without tmux: the pane's process is looked up in
// /proc, and only a change there costs a look. Without a stream it polls
// the screen every poll interval, as it must.
func (l *Loop) monitor(ctx context.Context, it *iteration, started time.Time) ending {
	var det Detector
	var timeout <-chan time.Time
	if l.IterationTimeout > 0 {
		timeout = l.Clock.After(l.IterationTimeout - l.Clock.Now().Sub(started))
	}
	var notify <-chan struct{}
	if l.stream != nil {
		notify = l.stream.Notify()
	}
	due := l.Clock.After(0) // the next look the detector needs (first, deadline, or poll)
	dueAt := l.Clock.Now()
	var soon <-chan time.Time // a look because output arrived
	checkInterval := l.PollInterval
	if l.stream != nil {
		checkInterval = max(checkInterval, checkEvery)
	}
	check := l.Clock.After(checkInterval)
	var quiet <-chan time.Time // fires when output has paused after arriving
	var agent paneProcess
	for {
		select { // first, before a flood of output is read: it could keep them waiting
		case <-ctx.Done():
			return endInterrupted
		case <-timeout:
			return endTimeout
		default:
		}
		l.take(it)
		if it.match != "" && l.CheckDoneContinuous {
			return endDone
		}
		if it.exited {
			return endExit
		}
		looked := false
		select {
		case <-ctx.Done():
			return endInterrupted
		case <-l.Wake:
			if end, ok := l.request(); ok {
				return end
			}
			if end, ok := l.hookEnding(it); ok {
				return end
			}
		case <-notify:
			quiet = l.Clock.After(quietAfter)
			if soon == nil {
				soon = l.Clock.After(l.PollInterval)
			}
		case <-quiet:
			quiet = nil
			if l.CheckDoneContinuous {
				l.flush(it)
			}
		case <-timeout:
			return endTimeout
		case <-soon:
			soon, looked = nil, true
		case <-due:
			due, looked = nil, true
		case <-check:
			check = l.Clock.After(checkInterval)
			if l.doneFileExists() {
				return endDoneFile
			}
			if l.pauseFileSeen() {
				return endPaused
			}
			if end, ok := l.request(); ok {
				return end
			}
			if l.MaxTime > 0 && l.Clock.Now().Sub(l.start) >= l.MaxTime {
				return endMaxTime
			}
			if end, ok := l.hookEnding(it); ok { // its signal was lost
				return end
			}
			if l.Clock.Now().Sub(l.lastBeat) >= heartbeatEvery {
				l.save()
			}
			looked = !agent.running()
		}
		if !looked {
			continue
		}
		pane, end, ended, next, err := l.look(it, &det)
		if err != nil {
			return l.goneEnding(err)
		}
		if pane.Dead {
			return endExit
		}
		if ended {
			return end
		}
		agent = watchProcess(pane.PID)
		now := l.Clock.Now()
		switch {
		case l.stream == nil:
			if due == nil {
				due = l.Clock.After(l.PollInterval)
			}
		case next > 0 && (due == nil || now.Add(next).Before(dueAt)): // the soonest deadline wins
			due, dueAt = l.Clock.After(next), now.Add(next)
		}
	}
}

// look captures the pane's last lines and judges them (the agent's state,
// inactivity): the one place the monitor reads the screen. next is how soon
// another look could change the verdict with no new output; 0: never.
func (l *Loop) look(it *iteration, det *Detector) (pane tmux.Pane, end ending, ended bool, next time.Duration, err error) {
	now := l.Clock.Now()
	pane, screen, err := l.Tmux.Snapshot(l.captureRequest())
	if err != nil || pane.Dead {
		return pane, endExit, false, 0, err
	}
	end, ended, next = l.observe(it, det, screen, now)
	return pane, end, ended, next, nil
}

// drain waits for the exit marker, which follows the agent's last output, so
// nothing the agent wrote is judged in the next iteration. A pipe still
// delivering (a flood on a busy machine) is waited for; a silent one a second.
func (l *Loop) drain(it *iteration) {
	if l.stream == nil {
		return
	}
	limit := time.After(drainLimit)
	for {
		l.take(it)
		if it.exited {
			return
		}
		select {
		case <-l.stream.Notify():
		case <-time.After(time.Second):
			return
		case <-limit:
			return
		}
	}
}

// drainLimit bounds the wait for a pane whose output never stops arriving.
const drainLimit = 30 * time.Second

// exitCode reads the dead pane's exit status. tmux 3.3a sometimes leaves it
// empty until another child exits; a nudge makes the server reap and record it.
func (l *Loop) exitCode(it *iteration) int {
	for try := 0; try < 100; try++ {
		pane, err := l.Tmux.Pane(l.Pane)
		if err != nil {
			break
		}
		if pane.Dead && pane.DeadStatus != "" {
			if code, err := strconv.Atoi(pane.DeadStatus); err == nil {
				return code
			}
		}
		if pane.Dead && pane.DeadSignal != "" {
			if sig, err := strconv.Atoi(pane.DeadSignal); err == nil {
				return 128 + sig
			}
		}
		if pane.Dead {
			l.Tmux.Nudge()
		}
		time.Sleep(10 * time.Millisecond)
	}
	return it.exitCode
}

func (l *Loop) capture() (string, error) {
	return l.Tmux.Capture(l.captureRequest())
}

// captureRequest asks for the last lines with wrapped lines joined, so a
// client attaching at another width does not look like activity.
func (l *Loop) captureRequest() tmux.CaptureRequest {
	return tmux.CaptureRequest{Pane: l.Pane, Start: -l.Lines, Join: true}
}

// serverGoneWait is how long a killed server may take to stop answering.
const serverGoneWait = 200 * time.Millisecond

// goneEnding tells a closed pane from a dead server.
func (l *Loop) goneEnding(err error) ending {
	if tmux.NoServer(err) {
		return endServerGone
	}
	if errors.Is(err, tmux.ErrNoPane) {
		// A server shutting down drops its panes first: ask again a moment later.
		time.Sleep(serverGoneWait)
	}
	if _, perr := l.Tmux.Pane(l.Pane); perr != nil {
		if tmux.NoServer(perr) {
			return endServerGone
		}
		return endPaneGone
	}
	return endPaneGone
}

func (l *Loop) doneFileExists() bool {
	if l.DoneFile == "" {
		return false
	}
	_, err := os.Stat(l.DoneFile)
	return err == nil
}

// sleep waits d or until ctx ends; false if ctx ended. A done file ends a long wait early.
func (l *Loop) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-l.Clock.After(d):
		return true
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
func (l *Loop) showStatus(status Status) {
	now := l.Clock.Now()
	changed := status != l.shown
	l.shown = status
	shown := Shown{Status: status, Name: l.Name, Iteration: l.iteration, Max: l.MaxIterations, Reason: l.reason}
	switch status {
	case StatusRunning, StatusBackoff:
		shown.Reason = ""
	case StatusWaiting:
		shown.Note, shown.Reason = l.note, strings.TrimPrefix(l.note, "waiting for ")
	case StatusNeedsInput:
		shown.Reason = "an answer in the pane (the agent is asking a question)"
	}
	if !status.Live() {
		shown.Ended = now
	}
	status.Record(l.st, shown.Reason, now)
	l.save()
	l.Tmux.SetPaneOptions(l.Pane, shown.Options())
	l.lastShown = shown
	if changed && status.Live() { // an ended loop's notice waits for its pane's shell
		l.notify(shown)
	}
}

// saveScreen keeps the pane's last screen of the iteration for a post-mortem.
func (l *Loop) saveScreen() {
	if screen, err := l.Tmux.Capture(tmux.CaptureRequest{Pane: l.Pane, Start: -1000, Join: true}); err == nil {
		os.WriteFile(l.Store.Path("last-screen.txt"), []byte(screen), 0o600)
	}
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
	fmt.Fprintf(l.Err, "ralph-watch: error: %s\n", fmt.Sprintf(format, args...))
}

func nonce() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func exitText(code int) string {
	if code < 0 {
		return "unknown"
	}
	return strconv.Itoa(code)
}

// seconds prints a duration in whole seconds, the way the swarm messages do.
func seconds(d time.Duration) string { return fmt.Sprintf("%ds", int(d/time.Second)) }

// FormatDuration prints 3m 42s, 1h 2m, 5s.
func FormatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh %dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm %ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}

// waitForLimit waits out a usage limit until its reset (or the limit wait
// when no time is written). The iteration is not counted, nor is it a failure.
func (l *Loop) waitForLimit(ctx context.Context, text string, started time.Time) (Result, bool) {
	now := l.Clock.Now()
	until, ok := ParseReset(text, now)
	if !ok || until.Sub(now) > maxLimitWait {
		until = now.Add(l.LimitWait)
	}
	if until.Sub(now) < minLimitWait {
		until = now.Add(minLimitWait)
	}
	l.iteration--
	l.st.CurrentIteration = l.iteration
	l.st.WaitingUntil = state.Stamp(until)
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	l.sayf("usage limit reached (%s), %s", strings.TrimSpace(line), resetNote(until))
	l.log("LIMIT", fmt.Sprintf("iteration %d not counted, waiting until %s", l.iteration+1, state.Stamp(until)))
	l.setAgentState(StateLimited)
	return l.waitForReset(ctx, until, started)
}

// waitForReset waits until a usage limit resets; a pause meanwhile keeps
// the reset time, so resume waits on instead of starting an iteration.
func (l *Loop) waitForReset(ctx context.Context, until, started time.Time) (Result, bool) {
	now := l.Clock.Now()
	l.note = resetNote(until)
	l.showStatus(StatusWaiting)
	wait := until.Sub(now)
	if l.MaxTime > 0 {
		wait = max(0, min(wait, l.MaxTime-now.Sub(l.start)))
	}
	if end := l.wait(ctx, wait); end != endExit {
		return l.settle(ctx, outcome{ending: end}, started)
	}
	return Result{}, false
}

func resetNote(until time.Time) string {
	return "waiting for limit reset (" + until.Format("15:04") + ")"
}

// resumeWait goes back to waiting for a usage limit's reset when the loop
// was paused while it waited; ok is false when there is nothing to wait for.
func (l *Loop) resumeWait(ctx context.Context) (res Result, stop, ok bool) {
	until, err := time.ParseInLocation(state.TimeFormat, l.st.WaitingUntil, time.Local)
	if err != nil {
		return Result{}, false, false
	}
	if !until.After(l.Clock.Now()) {
		return Result{}, false, true // the reset has passed: the next iteration starts
	}
	l.sayf("resuming the wait for the usage limit's reset (%s)", until.Format("15:04"))
	l.shown = StatusWaiting // the person was told when the limit came, and resumed it knowing
	res, stop = l.waitForReset(ctx, until, l.Clock.Now())
	return res, stop, true
}

// quiet takes output until the agent pauses a moment, at most hookSettle.
func (l *Loop) quiet(it *iteration) {
	if l.stream == nil {
		return
	}
	deadline := time.After(hookSettle)
	for {
		l.take(it)
		select {
		case <-l.stream.Notify():
		case <-time.After(hookQuiet):
			l.take(it)
			return
		case <-deadline:
			l.take(it)
			return
		}
	}
}
