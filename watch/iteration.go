package watch

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// adopt watches an iteration a previous watcher started: the agent may still
// be running, or may have ended while nobody watched.
func (l *Loop) adopt(ctx context.Context, started time.Time) outcome {
	it := &iteration{exitCode: -1} // no nonce: any exit marker is this agent's
	if l.DonePattern != nil {
		prompt, _ := os.ReadFile(l.Store.Path(state.PromptCopy))
		it.scanner = agent.NewDoneScanner(l.DonePattern, string(prompt))
		if it.match = l.st.DoneMatch; it.match != "" {
			l.sayf("the done signal came before the pause (%s)", it.match)
		} else if match, ok := l.doneSincePrompt(it); ok {
			it.match = match
			l.sayf("the done signal came while no watcher ran (%s)", match)
		}
	}
	l.st.DoneMatch = ""
	if it.match != "" { // the agent said it is done: nothing it does now changes that
		return outcome{ending: endDone, match: it.match}
	}
	if l.st.PromptPending && l.PromptMode == agent.ModeType {
		if end, stop := l.finishTyping(ctx, it); stop {
			return outcome{ending: end}
		}
	}
	return l.watchAgent(ctx, it, started)
}

// finishTyping completes a prompt the last watcher was typing when it
// stopped: still in the agent's input box, it is submitted; not there, it
// is typed again; either way once.
func (l *Loop) finishTyping(ctx context.Context, it *iteration) (ending, bool) {
	l.st.PromptPending = false
	prompt, err := os.ReadFile(l.Store.Path(state.PromptCopy))
	if err != nil {
		return endNone, false
	}
	text := string(prompt)
	if screen, err := l.capture(); err == nil && agent.ShowsInput(screen, text) {
		text = "" // it is there: Enter alone
		l.sayf("the prompt is still in the input box; submitting it")
	} else {
		l.sayf("the prompt did not reach the agent; typing it again")
	}
	end, stop := l.typeText(ctx, it, text)
	l.save()
	return end, stop
}

// doneSincePrompt reads what the pane holds from the line the prompt went
// in at (history included) for a done signal printed while no watcher read
// the agent's output; an echo of the prompt still never counts.
func (l *Loop) doneSincePrompt(it *iteration) (string, bool) {
	pane, err := l.Tmux.Pane(l.Pane)
	if err != nil || l.st.PromptLine == nil {
		return "", false
	}
	// The history may have been trimmed since: then all of it is later than the prompt.
	start := max(*l.st.PromptLine-pane.HistorySize, -pane.HistorySize)
	text, err := l.Tmux.Capture(tmux.CaptureRequest{Pane: l.Pane, Start: start, Join: true})
	if err != nil {
		return "", false
	}
	if match, ok := it.scanner.Feed(agent.Normalize(text)); ok {
		return match, true
	}
	return it.scanner.Flush()
}

// markPrompt notes the pane's line the prompt goes in at (state.PromptLine).
func (l *Loop) markPrompt() {
	l.st.PromptLine = nil
	if pane, err := l.Tmux.Pane(l.Pane); err == nil {
		line := pane.HistorySize + pane.CursorY
		l.st.PromptLine = &line
	}
	l.save()
}

// adoptUntyped takes over an agent started before a pause that came before
// its prompt was typed: the prompt of that iteration is typed now, once it
// is ready, and the agent watched.
func (l *Loop) adoptUntyped(ctx context.Context, started time.Time) (r outcome) {
	l.st.PromptUntyped = false
	prompt, err := os.ReadFile(l.Store.Path(state.PromptCopy))
	if err != nil {
		l.warnf("the prompt of iteration %d is lost (%v); watching the agent", l.iteration, err)
		l.showStatus(words.StatusRunning)
		return l.adopt(ctx, started)
	}
	it := &iteration{exitCode: -1, since: -1, started: l.Clock.Now()} // its output came before the watcher: it has spoken
	l.reason = l.readyWait()
	l.showStatus(words.StatusStarting)
	if end, stop := l.deliver(ctx, it, string(prompt)); stop {
		r.ending, r.detail, r.untyped = end, it.turn.detail, !it.typed
		return r
	}
	r = l.watchAgent(ctx, it, started)
	r.untaken = !it.took
	return r
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
				if st, detail := l.Agent.Classify(agent.ScreenLines(screen, l.Lines)); st == agent.StateLimited {
					r.ending, it.turn.detail = endLimit, detail
				}
			}
		}
	}
	if r.ending == endTurn && l.turnHook {
		l.awaitDrawn(it)
		l.quiet(it) // the hook may come before the last words are drawn
	}
	l.flush(it)
	if r.ending == endTurn {
		l.doneOnScreen(it) // an agent whose stream never holds the token whole
	}
	r.match, r.detail, r.turnEnded = it.match, it.turn.detail, it.turn.ended
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

// iterate runs one iteration: end the old agent, respawn, deliver, watch.
func (l *Loop) iterate(ctx context.Context, prompt string) (r outcome) {
	it := &iteration{nonce: nonce(), exitCode: -1}
	promptPath := l.Store.Path(state.PromptCopy)
	if err := os.WriteFile(promptPath, []byte(prompt), 0o600); err != nil {
		l.warnf("save prompt: %v", err)
	}
	pane, err := l.Tmux.Pane(l.Pane)
	if err == nil && !l.sameServer(pane) {
		err = errNewServer
	}
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
	if l.PromptMode != agent.ModeType && l.DonePattern != nil {
		it.scanner = agent.NewDoneScanner(l.DonePattern, prompt)
	}
	l.startCast(pane)
	err = l.Tmux.Respawn(tmux.RespawnRequest{
		Pane: l.Pane, Dir: l.Dir, Command: l.wrapped(it.nonce, promptPath),
		// An agent's screen is read for its state: an old dialog or limit
		// message left in the history must not be read again.
		ClearHistory: l.Agent.Knows(),
		Env:          append(l.agentEnv(), l.hookEnv...),
		Path:         l.st.Path, // as at the loop's start, whoever resumed it
	})
	if err != nil {
		if _, perr := l.Tmux.Pane(l.Pane); perr != nil {
			r.ending = l.goneEnding(perr)
			return r
		}
		l.warnf("respawn pane: %v", err)
		r.ending, r.code = endExit, -1
		return r
	}
	if p, err := l.Tmux.Pane(l.Pane); err == nil {
		l.agentPID = p.PID // to end what it leaves if the pane goes away
	}
	if l.PromptMode != agent.ModeType {
		l.markPrompt() // it has the prompt from its start
	}
	started := l.Clock.Now()
	it.started = started
	l.event(it, words.EventStarted, "", strings.Join(l.Command, " "))
	if l.PromptMode == agent.ModeType {
		if end, stop := l.deliver(ctx, it, prompt); stop {
			r.ending, r.detail, r.untyped = end, it.turn.detail, !it.typed
			return r
		}
	}
	r = l.watchAgent(ctx, it, started)
	r.untaken = l.PromptMode == agent.ModeType && !it.took
	l.hooksBrokeStart(it, r)
	return r
}

// agentEnv is what the loop adds to each agent's environment.
func (l *Loop) agentEnv() []string {
	return []string{
		"RALPH_ITERATION=" + strconv.Itoa(l.iteration),
		"RALPH_MAX_ITERATIONS=" + strconv.Itoa(l.MaxIterations),
		"RALPH_NAME=" + l.Name,
		// For hooks the person configured: `ralph-watch hook NAME` finds the loop by these.
		"RALPH_STATE_DIR=" + filepath.Dir(l.Store.Dir),
		"RALPH_AFTER_EXIT=" + l.Store.Path(state.AfterExitFile),
		// The words the loop added for its hooks, AT:COUNT in the command:
		// the loop key leaves them out when it loops this agent again.
		"RALPH_ADDED_ARGS=" + addedArgs(l.plainCommand, l.Command),
	}
}
