package watch

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/between"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// Loop supervises one pane: it runs iterations until done, a limit, a fatal
// failure or an interrupt.
type Loop struct {
	Config
	Tmux  tmux.Client
	Store *state.Store
	Out   io.Writer // progress lines, "[ralph] NAME: …"
	Err   io.Writer // warnings and errors
	Clock clock.Clock
	Wake  <-chan os.Signal // a command left a request (SIGUSR1)

	killOnStop   bool
	beatMu       sync.Mutex // one writer of @ralph-beat at a time: the beat never outlives the loop's status
	beating      bool       // the status shown is one a running watcher beats for
	agentPID     int        // the pane's process of the latest iteration
	stream       *Stream
	streamTried  bool   // the pane's output was asked for (a dead pane cannot be piped)
	prevRemain   string // the pane's own remain-on-exit before the loop
	hadRemain    bool
	st           *state.State
	start        time.Time
	iteration    int
	lastBeat     time.Time
	turnHook     bool            // the agent reports the end of its turns itself
	hooked       map[string]bool // what the agent's installed hooks report (agent.HookTurnEnd, …)
	hooksLost    bool            // they did not report: the screen tells from now on
	plainCommand []string        // the command without the hooks' arguments
	hookEnv      []string        // NAME=value the agent runs with for its hooks (Gemini CLI's overlay)
	turnEnded    time.Time       // when the last iteration's turn ended, for the turn gap
	note         string          // shown after the status mark, e.g. the limit's reset time
	shown        words.Status    // the status last shown
	lastShown    words.Shown
	reason       string // how the loop ended, why it pauses, what it waits for

	feedback       string // the last iteration's check failures, for the next prompt
	checked        int    // the iteration whose checks ran last; -1: none
	checksPassed   bool   // how they went
	baseline       string // the working tree's fingerprint when the iteration started; "": unknown
	commitWarned   bool
	pauseFileFound bool
	casts          castLog  // the iteration's recording (casts.go)
	spend          spending // the iteration's receipt so far, and the budget (receipts.go)
}

// Result is how a loop ended: the process exit code and the recorded reason.
type Result struct {
	Code   int
	Reason words.Reason
}

// iteration is what one iteration saw.
type iteration struct {
	nonce    string
	scanner  *agent.DoneScanner
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
	took     bool      // the agent took the prompt: the typing ended with it alive
}

// Run loops until the end and returns the exit code.
func (l *Loop) Run(ctx context.Context) Result {
	res, ok := l.open()
	if ok {
		stop := l.beat()
		res = l.run(ctx)
		stop()
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
		l.Clock = clock.Real{}
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
	l.showStatus(words.StatusPaused)
	return nil
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
		if l.st.PromptUntyped && l.PromptMode == agent.ModeType {
			it = l.adoptUntyped(ctx, started)
		} else {
			l.showStatus(words.StatusRunning)
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
		text, err := ReadPrompt(l.PromptFile)
		if err != nil { // before the count: the iteration that cannot run is not counted as run
			l.errorf("%v", err)
			return l.end(words.StatusFailed, words.ReasonPromptFileMissing, words.ExitFailed)
		}
		l.iteration++
		prompt := Compose(text, PromptVars{Iteration: l.iteration, MaxIterations: l.MaxIterations, Name: l.Name,
			CheckFailures: l.feedback}, l.CheckFailAction, l.IncludeIterationCount)

		now := l.Clock.Now()
		l.beginReceipt(now)
		l.sayf("starting iteration %s", l.progress())
		l.st.CurrentIteration = l.iteration
		l.st.LastIterationStarted = state.Stamp(now)
		l.st.LastIterationEnded = ""
		l.st.Status = state.Running
		l.st.WaitingUntil, l.note, l.st.DoneMatch, l.st.PromptLine, l.st.Error = "", "", "", nil, ""
		if !l.turnEnded.IsZero() {
			gap := now.Sub(l.turnEnded).Milliseconds()
			l.st.TurnGapMS, l.turnEnded = &gap, time.Time{}
		}
		if err := l.trySave(); err != nil { // no iteration runs that the record would not show
			l.errorf("cannot record iteration %d, stopping loop: %v", l.iteration, err)
			return l.end(words.StatusFailed, words.ReasonStateUnwritable, words.ExitFailed)
		}
		l.log("START", "iteration "+l.progress())
		if l.PromptMode == agent.ModeType {
			l.reason = l.readyWait()
			l.showStatus(words.StatusStarting) // until the agent takes the prompt
		} else {
			l.showStatus(words.StatusRunning)
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
		return l.limit(words.ReasonMaxTime, fmt.Sprintf("max time (%s) reached", l.MaxTime)), true
	case l.MaxIterations > 0 && l.iteration >= l.MaxIterations:
		return l.limit(words.ReasonMaxIterations, fmt.Sprintf("max iterations (%d) reached", l.MaxIterations)), true
	}
	if res, stop := l.budgetStop(); stop {
		return res, true
	}
	l.baseline = ""
	if l.StallLimit > 0 {
		l.baseline, _ = between.Fingerprint(l.Dir)
	}
	return Result{}, false
}
