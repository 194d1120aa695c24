package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// agentWatch is one iteration's agent, from its start to the end of its
// turn: it starts the agent (run) or takes over one a previous watcher
// started (adopt), types the prompt (deliver.go), reads its output
// (output.go) and its screen (monitor.go, turn.go), and returns an outcome.
// What comes next is the loop's to decide (settle.go).
type agentWatch struct {
	cfg    *Config // read only
	tmux   tmux.Client
	clock  clock.Clock
	rec    *recorder
	status *statusLine
	pane   *loopPane
	hooks  *agentHooks
	casts  *castLog
	spend  *spending
	asks   *requests
	// loopChecks is what the loop checks now and then while the agent runs:
	// the done and pause files, a request, max time, the budget.
	loopChecks func() (ending, bool)

	nonce      string // its exit marker's; "": any marker is this agent's
	scanner    *agent.DoneScanner
	match      string
	exited     bool
	exitMarked int       // the status in its exit marker; -1 until seen
	since      int64     // the stream's length when the agent was started
	pasteOn    bool      // the agent turned on bracketed paste
	turn       turn      // what its screen showed
	started    time.Time // when the agent was respawned
	spoke      bool      // the agent has written something
	ready      bool      // it took input: the prompt was typed
	typed      bool      // the agent was ready and the prompt typed (type mode)
	took       bool      // the agent took the prompt: the typing ended with it alive
}

// adopt watches an iteration a previous watcher started: the agent may still
// be running, or may have ended while nobody watched.
func (w *agentWatch) adopt(ctx context.Context, started time.Time) outcome {
	if w.cfg.DonePattern != nil {
		prompt, _ := os.ReadFile(w.rec.store.Path(state.PromptCopy))
		w.scanner = agent.NewDoneScanner(w.cfg.DonePattern, string(prompt))
		if w.match = w.rec.takeDoneMatch(); w.match != "" {
			w.rec.sayf("the done signal came before the pause (%s)", w.match)
		} else if match, ok := w.doneSincePrompt(); ok {
			w.match = match
			w.rec.sayf("the done signal came while no watcher ran (%s)", match)
		}
	}
	if w.match != "" { // the agent said it is done: nothing it does now changes that
		return outcome{ending: endDone, match: w.match}
	}
	if w.rec.st.PromptPending && w.cfg.PromptMode == agent.ModeType {
		if end, halt := w.finishTyping(ctx); halt {
			return outcome{ending: end}
		}
	}
	return w.watch(ctx, started)
}

// finishTyping completes a prompt the last watcher was typing when it
// stopped: still in the agent's input box, it is submitted; not there, it
// is typed again; either way once.
func (w *agentWatch) finishTyping(ctx context.Context) (ending, bool) {
	w.rec.promptPending(false)
	prompt, err := os.ReadFile(w.rec.store.Path(state.PromptCopy))
	if err != nil {
		return endNone, false
	}
	text := string(prompt)
	screen, err := w.pane.capture()
	inBox := err == nil && agent.ShowsInput(screen, text)
	// Killed after the Enter that sent it: its hook saw it, or an agent that shows no echo of a paste answered it.
	if _, hooked := w.hooks.record(agent.HookPromptSubmit); hooked || !inBox && w.wroteAfterPrompt() {
		w.rec.sayf("the agent took the prompt before the last watcher stopped")
		w.took = true
		w.rec.save()
		return endNone, false
	}
	if inBox {
		text = "" // it is there: Enter alone
		w.rec.sayf("the prompt is still in the input box; submitting it")
	} else {
		w.rec.sayf("the prompt did not reach the agent; typing it again")
	}
	end, halt := w.typeText(ctx, text)
	w.rec.save()
	return end, halt
}

// doneSincePrompt reads what the pane holds from the line the prompt went
// in at (history included) for a done signal printed while no watcher read
// the agent's output; an echo of the prompt still never counts.
func (w *agentWatch) doneSincePrompt() (string, bool) {
	pane, err := w.tmux.Pane(w.cfg.Pane)
	if err != nil || w.rec.st.PromptLine == nil {
		return "", false
	}
	// The history may have been trimmed since: then all of it is later than the prompt.
	start := max(*w.rec.st.PromptLine-pane.HistorySize, -pane.HistorySize)
	text, err := w.tmux.Capture(tmux.CaptureRequest{Pane: w.cfg.Pane, Start: start, Join: true})
	if err != nil {
		return "", false
	}
	if match, ok := w.scanner.Feed(agent.Normalize(text)); ok {
		return match, true
	}
	return w.scanner.Flush()
}

// wroteAfterPrompt reports whether the pane holds text below the line the
// prompt went in at (state.PromptLine): what the agent wrote once it took it.
func (w *agentWatch) wroteAfterPrompt() bool {
	pane, err := w.tmux.Pane(w.cfg.Pane)
	if err != nil || w.rec.st.PromptLine == nil {
		return false
	}
	start := *w.rec.st.PromptLine + 1 - pane.HistorySize
	if start > pane.CursorY {
		return false
	}
	text, err := w.tmux.Capture(tmux.CaptureRequest{Pane: w.cfg.Pane, Start: max(start, -pane.HistorySize), Join: true})
	return err == nil && strings.TrimSpace(text) != ""
}

// markPrompt notes the pane's line the prompt goes in at (state.PromptLine).
func (w *agentWatch) markPrompt() {
	var at *int
	if pane, err := w.tmux.Pane(w.cfg.Pane); err == nil {
		line := pane.HistorySize + pane.CursorY
		at = &line
	}
	w.rec.promptAt(at)
}

// adoptUntyped takes over an agent started before a pause that came before
// its prompt was typed: the prompt of that iteration is typed now, once it
// is ready, and the agent watched.
func (w *agentWatch) adoptUntyped(ctx context.Context, started time.Time) (r outcome) {
	prompt, err := os.ReadFile(w.rec.store.Path(state.PromptCopy))
	if err != nil {
		w.rec.warnf("the prompt of iteration %d is lost (%v); watching the agent", w.rec.iteration(), err)
		w.status.show(words.StatusRunning)
		return w.adopt(ctx, started)
	}
	w.since, w.started = -1, w.clock.Now() // its output came before the watcher: it has spoken
	w.status.reason = w.cfg.readyWait()
	w.status.show(words.StatusStarting)
	if end, halt := w.deliver(ctx, string(prompt)); halt {
		r.ending, r.detail, r.untyped = end, w.turn.detail, !w.typed
		return r
	}
	r = w.watch(ctx, started)
	r.untaken = !w.took
	return r
}

// watch watches the agent until the iteration ends; when it exited,
// takes all its output and its exit status; then judges what the done
// scanner held back.
func (w *agentWatch) watch(ctx context.Context, started time.Time) (r outcome) {
	r.ending = w.monitor(ctx, started)
	if r.ending == endExit {
		w.drain()
		r.code = w.exitCode()
		if r.code != 0 && w.cfg.Agent.Limit != nil { // "usage limit reached|1700000000", then exit 1
			if screen, err := w.pane.capture(); err == nil {
				if st, detail := w.cfg.Agent.Classify(agent.ScreenLines(screen, w.cfg.Lines)); st == agent.StateLimited {
					r.ending, w.turn.detail = endLimit, detail
				}
			}
		}
	}
	if r.ending == endTurn && w.hooks.on {
		w.awaitDrawn()
		w.quiet() // the hook may come before the last words are drawn
	}
	w.flush()
	if r.ending == endTurn {
		w.doneOnScreen() // an agent whose stream never holds the token whole
	}
	r.match, r.detail, r.turnEnded = w.match, w.turn.detail, w.turn.ended
	return r
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
	between   bool      // it came between iterations: the last one is over
	untaken   bool      // type mode: the agent exited before it took the prompt
}

// run runs one iteration (its prompt saved in state.PromptCopy): end the
// old agent, respawn, deliver, watch.
func (w *agentWatch) run(ctx context.Context, prompt string) (r outcome) {
	promptPath := w.rec.store.Path(state.PromptCopy) // the loop saved it there
	pane, err := w.tmux.Pane(w.cfg.Pane)
	if err == nil && !w.pane.same(pane) {
		err = errNewServer
	}
	if err != nil {
		r.ending = w.pane.gone(err)
		return r
	}
	if !w.pane.streamTried { // started or resumed on a dead pane, which tmux does not pipe
		pane = w.pane.hold(pane)
		w.pane.openStream()
	}
	w.pane.endAgent(pane)
	w.hooks.clear() // a record left by an earlier loop of this name is not this agent's
	if s := w.pane.stream; s != nil {
		// Whatever the old agent (or the pane's shell) wrote is not this
		// iteration's: not its first output, its bracketed paste, nor its exit.
		_, _ = s.Take()
		w.since = s.Bytes()
	}
	if w.cfg.PromptMode != agent.ModeType && w.cfg.DonePattern != nil {
		w.scanner = agent.NewDoneScanner(w.cfg.DonePattern, prompt)
	}
	w.casts.start(pane, w.pane.stream, w.hooks.command)
	err = w.tmux.Respawn(tmux.RespawnRequest{
		Pane: w.cfg.Pane, Dir: w.cfg.Dir, Command: w.command(promptPath),
		// An agent's screen is read for its state: an old dialog or limit
		// message left in the history must not be read again.
		ClearHistory: w.cfg.Agent.Knows(),
		Env:          slices.Concat(w.env(), w.hooks.env, w.cfg.Secrets),
		Path:         w.rec.st.Path, // as at the loop's start, whoever resumed it
	})
	if err != nil {
		if _, perr := w.tmux.Pane(w.cfg.Pane); perr != nil {
			r.ending = w.pane.gone(perr)
			return r
		}
		w.rec.warnf("respawn pane: %v", err)
		r.ending, r.code = endExit, -1
		return r
	}
	if p, err := w.tmux.Pane(w.cfg.Pane); err == nil {
		w.pane.agentPID = p.PID // to end what it leaves if the pane goes away
	}
	if w.cfg.PromptMode != agent.ModeType {
		w.markPrompt() // it has the prompt from its start
	}
	started := w.clock.Now()
	w.started = started
	w.event(words.EventStarted, "", strings.Join(w.hooks.command, " "))
	if w.cfg.PromptMode == agent.ModeType {
		if end, halt := w.deliver(ctx, prompt); halt {
			r.ending, r.detail, r.untyped = end, w.turn.detail, !w.typed
			return r
		}
	}
	r = w.watch(ctx, started)
	r.untaken = w.cfg.PromptMode == agent.ModeType && !w.took
	w.hooksBrokeStart(r)
	return r
}

// env is what the loop adds to each agent's environment.
func (w *agentWatch) env() []string {
	return []string{
		"RALPH_ITERATION=" + strconv.Itoa(w.rec.iteration()),
		"RALPH_MAX_ITERATIONS=" + strconv.Itoa(w.cfg.MaxIterations),
		"RALPH_NAME=" + w.cfg.Name,
		// For hooks the person configured: `ralph-watch hook NAME` finds the loop by these.
		"RALPH_STATE_DIR=" + filepath.Dir(w.rec.store.Dir),
		"RALPH_AFTER_EXIT=" + w.rec.store.Path(state.AfterExitFile),
		// The words the loop added for its hooks, AT:COUNT in the command:
		// the loop key leaves them out when it loops this agent again.
		"RALPH_ADDED_ARGS=" + addedArgs(agent.Runnable(w.hooks.plain), agent.Runnable(w.hooks.command)),
		// Where the person's command hides a secret (AT:NAME …): the words the
		// loop key puts back, the values it reads from this agent's environment.
		"RALPH_HIDDEN_ARGS=" + agent.HiddenAt(w.cfg.Command),
	}
}
