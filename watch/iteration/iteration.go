// Package iteration answers "how does one iteration run?": from the
// agent's respawn (or the adoption of one a previous watcher started)
// through the prompt's delivery (ready, paste, submit: the Typist, also
// `ralph-watch send`'s), the watch of its output, screen and hooks, to the
// Outcome the loop acts on. What each ending means for the loop is the
// loop's (watch/decide.go); ending.go names them. It reaches the loop's parts through the narrow
// views of Needs (needs.go), and never calls back into the loop's
// decisions.
package iteration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Watch is one iteration's agent, from its start to the end of its
// turn: it starts the agent (Run) or takes over one a previous watcher
// started (Adopt), types the prompt (delivery, deliver.go and typist.go),
// reads its output (output, monitor.go) and its screen and hooks (turn,
// turn.go), and returns an Outcome.
// What comes next is the loop's to decide, by its endings table (watch/decide.go).
type Watch struct {
	cfg        *Settings // read only
	tmux       tmux.Client
	clock      clock.Clock
	rec        Record
	status     Status
	pane       Pane
	hooks      Hooks
	casts      Cast
	spend      Spend
	asks       Requests
	interrupts []Interrupt // what may end the iteration while it runs, asked in turn

	events   *events   // what it tells of the agent
	out      *output   // what the agent writes
	turn     *turn     // what its screen and hooks say
	delivery *delivery // the prompt, typed into the agent
}

// New is the watch of one iteration's agent; nonce "" takes any exit
// marker as this agent's (one a previous watcher started).
func New(n Needs, nonce string) *Watch {
	cfg := n.Settings
	ev := &events{listen: cfg.Events, casts: n.Cast, rec: n.Record, clock: n.Clock}
	out := &output{tmux: n.Tmux, paneID: cfg.Pane, pane: n.Pane, clock: n.Clock, events: ev, nonce: nonce, exitMarked: -1}
	t := &turn{cfg: &cfg, clock: n.Clock, rec: n.Record, status: n.Status, pane: n.Pane, hooks: n.Hooks, events: ev, out: out}
	return &Watch{cfg: &cfg, tmux: n.Tmux, clock: n.Clock, rec: n.Record, status: n.Status, pane: n.Pane, hooks: n.Hooks,
		casts: n.Cast, spend: n.Spend, asks: n.Requests, interrupts: n.Interrupts, events: ev, out: out, turn: t,
		delivery: &delivery{cfg: &cfg, tmux: n.Tmux, clock: n.Clock, rec: n.Record, status: n.Status, pane: n.Pane,
			hooks: n.Hooks, asks: n.Requests, events: ev, out: out, turn: t}}
}

// Adopt watches an iteration a previous watcher started: the agent may still
// be running, or may have ended while nobody watched.
func (w *Watch) Adopt(ctx context.Context, started time.Time) Outcome {
	if w.cfg.DonePattern != nil {
		prompt, _ := os.ReadFile(w.rec.Store().Path(state.PromptCopy))
		w.out.scanner = agent.NewDoneScanner(w.cfg.DonePattern, string(prompt))
		c := w.rec.Cursor()
		if w.out.match = c.DoneMatch; w.out.match != "" {
			c.DoneMatch = ""
			w.rec.SetCursor(c) // taken
			w.rec.Sayf("the done signal came before the pause (%s)", w.out.match)
		} else if match, ok := w.doneSincePrompt(); ok {
			w.out.match = match
			w.rec.Sayf("the done signal came while no watcher ran (%s)", match)
		}
	}
	if w.out.match != "" { // the agent said it is done: nothing it does now changes that
		return Outcome{Ending: EndDone, Match: w.out.match}
	}
	if w.rec.Cursor().Pending && w.cfg.PromptMode == agent.ModeType {
		if end, halt := w.delivery.finishTyping(ctx); halt {
			return Outcome{Ending: end}
		}
	}
	return w.watch(ctx, started)
}

// finishTyping completes a prompt the last watcher was typing when it
// stopped: still in the agent's input box, it is submitted; not there, it
// is typed again; either way once.
func (d *delivery) finishTyping(ctx context.Context) (Ending, bool) {
	pasted := d.rec.Cursor().Pasted
	d.rec.SetCursor(d.rec.Cursor().Typing(false))
	prompt, err := os.ReadFile(d.rec.Store().Path(state.PromptCopy))
	if err != nil {
		return EndNone, false
	}
	text := string(prompt)
	screen, err := capture(d.tmux, d.cfg)
	inBox := err == nil && agent.ShowsInput(screen, text)
	// Killed after the Enter that sent it: its hook saw it, or an agent that shows no echo of a paste answered it.
	if _, hooked := d.hooks.Record(agent.HookPromptSubmit); hooked || !inBox && d.wroteAfterPrompt() {
		d.rec.Sayf("the agent took the prompt before the last watcher stopped")
		d.took = true
		d.rec.Save()
		return EndNone, false
	}
	switch {
	case inBox:
		text = "" // it is there: Enter alone
		d.rec.Sayf("the prompt is still in the input box; submitting it")
	case pasted:
		text = "" // an agent that shows no paste has it all the same
		d.rec.Sayf("the prompt was pasted before the last watcher stopped; submitting it")
	default:
		d.rec.Sayf("the prompt did not reach the agent; typing it again")
	}
	end, halt := d.typeText(ctx, text)
	d.rec.Save()
	return end, halt
}

// doneSincePrompt reads what the pane holds from the line the prompt went
// in at (history included) for a done signal printed while no watcher read
// the agent's output; an echo of the prompt still never counts.
func (w *Watch) doneSincePrompt() (string, bool) {
	pane, err := w.tmux.Pane(w.cfg.Pane)
	line := w.rec.Cursor().Line
	if err != nil || line == nil {
		return "", false
	}
	// The history may have been trimmed since: then all of it is later than the prompt.
	start := max(*line-pane.HistorySize, -pane.HistorySize)
	text, err := w.tmux.Capture(tmux.CaptureRequest{Pane: w.cfg.Pane, Start: start, Join: true})
	if err != nil {
		return "", false
	}
	if match, ok := w.out.scanner.Feed(agent.Normalize(text)); ok {
		return match, true
	}
	return w.out.scanner.Flush()
}

// wroteAfterPrompt reports whether the pane holds text below the line the
// prompt went in at (state.PromptLine): what the agent wrote once it took it.
func (d *delivery) wroteAfterPrompt() bool {
	pane, err := d.tmux.Pane(d.cfg.Pane)
	line := d.rec.Cursor().Line
	if err != nil || line == nil {
		return false
	}
	start := *line + 1 - pane.HistorySize
	if start > pane.Cursor.Y {
		return false
	}
	text, err := d.tmux.Capture(tmux.CaptureRequest{Pane: d.cfg.Pane, Start: max(start, -pane.HistorySize), Join: true})
	return err == nil && strings.TrimSpace(text) != ""
}

// markPrompt notes the pane's line the prompt goes in at (state.PromptLine).
func (d *delivery) markPrompt() {
	var at *int
	if pane, err := d.tmux.Pane(d.cfg.Pane); err == nil {
		line := pane.HistorySize + pane.Cursor.Y
		at = &line
	}
	d.rec.SetCursor(d.rec.Cursor().At(at))
}

// AdoptUntyped takes over an agent started before a pause that came before
// its prompt was typed: the prompt of that iteration is typed now, once it
// is ready, and the agent watched.
func (w *Watch) AdoptUntyped(ctx context.Context, started time.Time) (r Outcome) {
	prompt, err := os.ReadFile(w.rec.Store().Path(state.PromptCopy))
	if err != nil {
		w.rec.Warnf("the prompt of iteration %d is lost (%v); watching the agent", w.rec.Iteration(), err)
		w.status.Show(contract.StatusRunning)
		return w.Adopt(ctx, started)
	}
	w.out.since, w.events.started = -1, w.clock.Now() // its output came before the watcher: it has spoken
	w.status.Starting()
	if end, halt := w.delivery.deliver(ctx, string(prompt)); halt {
		r.Ending, r.Detail, r.Untyped = end, w.turn.detail, !w.delivery.typed
		return r
	}
	r = w.watch(ctx, started)
	r.Untaken = !w.delivery.took
	return r
}

// watch watches the agent until the iteration ends; when it exited,
// takes all its output and its exit status; then judges what the done
// scanner held back.
func (w *Watch) watch(ctx context.Context, started time.Time) (r Outcome) {
	for {
		r.Ending = w.monitor(ctx, started)
		if r.Ending == EndTurn && w.hooks.On() {
			w.awaitDrawn()
			w.out.quiet() // the hook may come before the last words are drawn
		}
		if r.Ending != EndTurn || !w.turn.byHook {
			break
		}
		screen, _ := capture(w.tmux, w.cfg)
		if !w.turn.askedAfterHook(screen) {
			break
		}
	}
	if r.Ending == EndExit {
		w.out.drain()
		r.Code = w.out.exitCode()
		if r.Code != 0 && w.cfg.Agent.Limit != nil { // "usage limit reached|1700000000", then exit 1
			if screen, err := capture(w.tmux, w.cfg); err == nil {
				if st, detail := w.cfg.Agent.Classify(agent.ScreenLines(screen, w.cfg.Lines)); st == agent.StateLimited {
					r.Ending, w.turn.detail = EndLimit, detail
				}
			}
		}
	}
	w.out.flush()
	if r.Ending == EndTurn {
		w.doneOnScreen() // an agent whose stream never holds the token whole
	}
	r.Match, r.Detail, r.TurnEnded = w.out.match, w.turn.detail, w.turn.ended
	return r
}

// Outcome is how one iteration ended, with the exit code when the agent
// exited and the done match when there was one.
type Outcome struct {
	Ending    Ending
	Code      int
	Match     string
	Detail    string    // the limit text, or the start-up dialog's index
	TurnEnded time.Time // EndTurn: when the agent finished
	Untyped   bool      // it ended (a pause) before the prompt was typed
	Between   bool      // it came between iterations: the last one is over
	Untaken   bool      // type mode: the agent exited before it took the prompt
}

// Run runs one iteration (its prompt saved in state.PromptCopy): end the
// old agent, respawn, deliver, watch.
func (w *Watch) Run(ctx context.Context, prompt string) (r Outcome) {
	promptPath := w.rec.Store().Path(state.PromptCopy) // the loop saved it there
	pane, err := w.tmux.Pane(w.cfg.Pane)
	if err == nil && !w.pane.Same(pane) {
		err = ErrNewServer
	}
	if err != nil {
		r.Ending = w.pane.Gone(err)
		return r
	}
	pane = w.pane.ReadOutput(pane) // started or resumed on a dead pane, which tmux does not pipe
	w.pane.EndAgent(pane)
	w.hooks.Clear() // a record left by an earlier loop of this name is not this agent's
	if s := w.out.stream(); s != nil {
		// Whatever the old agent (or the pane's shell) wrote is not this
		// iteration's: not its first output, its bracketed paste, nor its exit.
		_, _ = s.Take()
		w.out.since = s.Bytes()
	}
	if w.cfg.PromptMode != agent.ModeType && w.cfg.DonePattern != nil {
		w.out.scanner = agent.NewDoneScanner(w.cfg.DonePattern, prompt)
	}
	w.casts.Start(pane, w.hooks.Command())
	pid, err := w.tmux.Respawn(tmux.RespawnRequest{
		Pane: w.cfg.Pane, Dir: w.cfg.Dir, Command: w.command(promptPath),
		// An agent's screen is read for its state: an old dialog or limit
		// message left in the history must not be read again.
		ClearHistory: w.cfg.Agent.Knows(),
		Env:          slices.Concat(w.env(), w.hooks.Env(), w.cfg.Secrets),
		Path:         w.cfg.Path, // as at the loop's start, whoever resumed it
	})
	if err != nil {
		if _, perr := w.tmux.Pane(w.cfg.Pane); perr != nil {
			r.Ending = w.pane.Gone(perr)
			return r
		}
		w.rec.Warnf("respawn pane: %v", err)
		r.Ending, r.Code = EndExit, -1
		return r
	}
	w.pane.AgentStarted(pid) // to end what it leaves if the pane goes away, even at once
	if w.cfg.PromptMode != agent.ModeType {
		w.delivery.markPrompt() // it has the prompt from its start
	}
	started := w.clock.Now()
	w.events.started = started
	w.events.tell(contract.EventStarted, "", strings.Join(w.hooks.Command(), " "))
	if w.cfg.PromptMode == agent.ModeType {
		if end, halt := w.delivery.deliver(ctx, prompt); halt {
			r.Ending, r.Detail, r.Untyped = end, w.turn.detail, !w.delivery.typed
			return r
		}
	}
	r = w.watch(ctx, started)
	r.Untaken = w.cfg.PromptMode == agent.ModeType && !w.delivery.took
	w.turn.hooksBrokeStart(r, w.delivery.ready)
	return r
}

// env is what the loop adds to each agent's environment.
func (w *Watch) env() []string {
	return []string{
		"RALPH_ITERATION=" + strconv.Itoa(w.rec.Iteration()),
		"RALPH_MAX_ITERATIONS=" + strconv.Itoa(w.cfg.MaxIterations),
		"RALPH_NAME=" + w.cfg.Name,
		// For hooks the person configured: `ralph-watch hook NAME` finds the loop by these.
		"RALPH_STATE_DIR=" + filepath.Dir(w.rec.Store().Dir),
		"RALPH_AFTER_EXIT=" + w.rec.Store().Path(state.AfterExitFile),
		// The words the loop added for its hooks, AT:COUNT in the command:
		// the loop key leaves them out when it loops this agent again.
		"RALPH_ADDED_ARGS=" + addedArgs(agent.Runnable(w.hooks.Plain()), agent.Runnable(w.hooks.Command())),
		// Where the person's command hides a secret (AT:NAME …): the words the
		// loop key puts back, the values it reads from this agent's environment.
		"RALPH_HIDDEN_ARGS=" + agent.HiddenAt(w.cfg.Command),
	}
}

// command is the pane's command: the agent, with the prompt as argument or
// stdin if so configured, then a marker carrying its exit status. The marker
// arrives after all the agent's output, so the watcher knows it has all of it.
// With job control (set -m) the agent is the terminal's foreground process
// group: tmux names the window after it, not "sh", and a Ctrl-C the person
// types reaches the agent alone, so the marker still comes.
func (w *Watch) command(promptPath string) []string {
	run := agent.Runnable(w.hooks.Command()) // the secrets it hides come by the environment
	// Once the loop is over, an agent that exits later leaves the pane at the
	// command the watcher left in RALPH_AFTER_EXIT's file, not dead.
	const report = `rc=$?; printf '\033]7777;ralph-exit;%s;%s\007' "$n" "$rc"; ` +
		`a=${RALPH_AFTER_EXIT:-}; if [ -n "$a" ] && [ -f "$a" ]; then c=$(cat "$a"); rm -f "$a"; eval "exec $c"; fi; exit "$rc"`
	switch w.cfg.PromptMode {
	case agent.ModeArg:
		return append([]string{"/bin/sh", "-c",
			`set -m; n=$1; f=$2; shift 2; p=$(cat "$f"; printf x); p=${p%x}; "$@" "$p"; ` + report,
			"ralph", w.out.nonce, promptPath}, run...)
	case agent.ModeStdin:
		return append([]string{"/bin/sh", "-c", `set -m; n=$1; f=$2; shift 2; "$@" < "$f"; ` + report,
			"ralph", w.out.nonce, promptPath}, run...)
	}
	return append([]string{"/bin/sh", "-c", `set -m; n=$1; shift; "$@"; ` + report, "ralph", w.out.nonce}, run...)
}

// Nonce is a new exit marker's: the agent's own, told from an earlier one's.
func Nonce() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// addedArgs says where the loop's own words stand in command, "AT:COUNT",
// compared with the person's plain one; "" when it added none.
func addedArgs(plain, command []string) string {
	if plain == nil || len(command) <= len(plain) {
		return ""
	}
	at := 0
	for at < len(plain) && plain[at] == command[at] {
		at++
	}
	return fmt.Sprintf("%d:%d", at, len(command)-len(plain))
}

func exitText(code int) string {
	if code < 0 {
		return "unknown"
	}
	return strconv.Itoa(code)
}
