package iteration

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// delivery types the prompt into the agent once it is ready, and
// finishes one a previous watcher was typing.
type delivery struct {
	cfg    *Settings // read only
	tmux   tmux.Client
	clock  clock.Clock
	rec    Record
	status Status
	pane   Pane
	hooks  Hooks
	asks   Requests
	events *events
	out    *output
	turn   *turn // the dialog or limit that showed instead

	ready bool // it took input: the prompt was typed
	typed bool // the agent was ready and the prompt typed (type mode)
	took  bool // the agent took the prompt: the typing ended with it alive
}

// awaitReady waits until the agent takes input. The agent's own word comes
// first: its session-start hook, once it turned on bracketed paste (the
// hook can come before it reads its terminal raw). Else its screen: it has
// written something since it was started, and its visible screen matches
// the ready pattern, or has been still a moment (a shorter one once it
// turned on bracketed paste); where a pattern does not match, the
// agent-agnostic signals (paste on, screen and cursor still, its processes
// idle) stand in for it. The ready timeout bounds the wait. Any ending but
// EndReady means the prompt must not be typed: the agent exited, the pane
// went away, a dialog or limit showed, a request came, or the wait was
// interrupted.
func (d *delivery) awaitReady(ctx context.Context) Ending {
	deadline := d.clock.Now().Add(d.cfg.ReadyTimeout)
	look := Readiness{Pattern: d.cfg.ReadyPattern, PID: d.pane.AgentPID(), AwaitPaste: d.pane.AgentPastes()}
	for {
		d.out.take()
		if d.out.exited {
			return EndExit
		}
		// The visible screen only: the history still shows the last agent.
		screen, err := d.tmux.Capture(tmux.CaptureRequest{Pane: d.cfg.Pane, Join: true})
		if err != nil {
			return d.pane.Gone(err)
		}
		lines := agent.ScreenLines(screen, 0)
		switch st, detail := d.cfg.Agent.Classify(lines); st {
		case agent.StateNoLogin:
			d.turn.detail = detail
			return EndNoLogin
		case agent.StateStartup, agent.StateLimited:
			d.turn.detail = detail
			d.events.tell(map[agent.State]contract.EventKind{agent.StateStartup: contract.EventStartup, agent.StateLimited: contract.EventLimit}[st], contract.ViaScreen, detail)
			return map[agent.State]Ending{agent.StateStartup: EndStartup, agent.StateLimited: EndLimit}[st]
		}
		if _, ok := d.hooks.Record(agent.HookSessionStart); ok && d.out.pasteOn {
			d.ready = true
			d.events.tell(contract.EventReady, contract.ViaHook, "")
			return EndReady
		}
		var cursor tmux.Cursor
		if pane, err := d.tmux.Pane(d.cfg.Pane); err == nil {
			cursor = pane.Cursor
		}
		now := d.clock.Now()
		look.Observe(screen+fmt.Sprint(cursor), now)
		if d.out.stream() == nil || d.out.stream().Bytes() > d.out.since {
			via := readyVia[look.Judge(lines, d.out.pasteOn)]
			if via != "" {
				d.ready = true
				d.events.tell(contract.EventReady, via, "")
				return EndReady
			}
		}
		if now.After(deadline) {
			d.rec.Warnf("agent did not become ready within %s, typing the prompt anyway", d.cfg.ReadyTimeout)
			d.ready = true
			d.events.tell(contract.EventReady, contract.ViaTimeout, "")
			return EndReady
		}
		if pane, err := d.tmux.Pane(d.cfg.Pane); err != nil {
			return d.pane.Gone(err)
		} else if pane.Dead {
			return EndExit
		}
		if end, ok := d.asks.Take(); ok { // pause and stop work while the loop starts
			return end
		}
		if !d.sleep(ctx, ReadyPoll) {
			return EndInterrupted
		}
	}
}

// readyVia is how each way of seeing the agent ready is told to a listener.
var readyVia = map[ReadyBy]string{ByPattern: contract.ViaPattern, ByStable: contract.ViaStable,
	ByPaste: contract.ViaPaste, ByIdle: contract.ViaIdle}

// deliver waits for the agent to be ready, pastes the prompt, checks it
// landed, and presses Enter until the submit takes.
func (d *delivery) deliver(ctx context.Context, prompt string) (Ending, bool) {
	switch end := d.awaitReady(ctx); end {
	case EndReady:
	case EndExit:
		d.status.Show(contract.StatusRunning) // the agent exited before it was ready: that is watched as usual
		return end, false
	default:
		return end, true
	}
	d.rec.AgentState(agent.StateIdle)
	d.typed = true
	d.status.Show(contract.StatusRunning)
	// The baseline: only output from here on can hold the done signal.
	d.out.take()
	if d.cfg.DonePattern != nil {
		d.out.scanner = agent.NewDoneScanner(d.cfg.DonePattern, prompt)
	}
	d.rec.SetCursor(d.rec.Cursor().Typing(true))
	d.markPrompt() // saves
	end, halt := d.typeText(ctx, prompt)
	if end != EndInterrupted { // interrupted while typing: the next watcher finishes it
		d.rec.SetCursor(d.rec.Cursor().Typing(false))
	}
	return end, halt
}

// typeText types text into the agent's pane (see Typist.Type); halt
// is true when the iteration must end with end.
func (d *delivery) typeText(ctx context.Context, text string) (end Ending, halt bool) {
	err := d.typist().Type(ctx, text)
	switch {
	case err == nil:
		d.took = true
		return EndNone, false
	case errors.Is(err, ErrInterrupted):
		return EndInterrupted, true
	case errors.Is(err, tmux.ErrPaneDead):
		// tmux refused the write: the agent exited, which the watch that follows records.
		d.rec.Warnf("the agent exited before its prompt was submitted")
		return EndNone, false
	}
	return d.pane.Gone(err), true
}

// typist types into the loop's pane while the iteration's output is read.
func (d *delivery) typist() *Typist {
	return &Typist{
		Tmux: d.tmux, Pane: d.cfg.Pane, Name: d.cfg.Name, Clock: d.clock, Agent: &d.cfg.Agent, Lines: d.cfg.Lines,
		View: typistView{d}, Warnf: d.rec.Warnf,
		Report: func(s Step, detail string) {
			if c := d.rec.Cursor(); s == PasteSent && c.Pending {
				d.rec.SetCursor(c.PasteTaken()) // a watcher killed from here on must not paste it again
			}
			for _, e := range stepEvents[s] {
				d.events.tell(e.kind, e.via, detail)
			}
		},
	}
}

// stepEvents are the events each step of typing tells the listener.
var stepEvents = map[Step][]struct {
	kind contract.EventKind
	via  string
}{
	PasteChecked:      {{contract.EventPasteCheck, contract.ViaPaste}},
	Pasted:            {{contract.EventPasted, contract.ViaScreen}},
	ProbeSubmitted:    {{contract.EventPasted, contract.ViaProbe}, {contract.EventSubmitted, contract.ViaProbe}},
	SubmittedByHook:   {{contract.EventSubmitted, contract.ViaHook}},
	SubmittedByScreen: {{contract.EventSubmitted, contract.ViaScreen}},
}

// typistView is what the typist learns of the iteration's agent.
type typistView struct{ d *delivery }

func (v typistView) Take()        { v.d.out.take() }
func (v typistView) Exited() bool { return v.d.out.exited }

func (v typistView) Output() (int64, bool) {
	if v.d.out.stream() == nil {
		return 0, false
	}
	return v.d.out.stream().Bytes(), true
}

func (v typistView) Hooked(name string) bool {
	_, ok := v.d.hooks.Record(name)
	return ok
}

// ReadyBy says how an agent was seen to be ready for input.
type ReadyBy int

// The ways a look finds the agent ready.
const (
	NotReady  ReadyBy = iota
	ByPattern         // the ready pattern matched
	ByStable          // the screen held still
	ByPaste           // bracketed paste on, then a shorter still screen
	ByIdle            // no pattern matched, but paste, still screen and idle processes say so
)

// Readiness judges, look by look, whether an agent takes input yet: its
// visible screen matches the ready pattern, or has been still a moment (a
// shorter one once it turned on bracketed paste); where a pattern does not
// match, the agent-agnostic signals (paste on, screen and cursor still, its
// processes idle) stand in for it.
type Readiness struct {
	Pattern *regexp.Regexp // the ready pattern; nil: a still screen is ready
	PID     int            // the agent's process, whose terminal's foreground is read
	// AwaitPaste: the agent turned on bracketed paste in an earlier
	// iteration, so its input box is not ready before it does (Gemini CLI on
	// a busy machine drew it first and dropped the Enter): the pattern
	// waits for paste on, PatternWithoutPaste at most.
	AwaitPaste bool
	matchedAt  time.Time // when the pattern first matched without paste on
	det        agent.Detector
	fg         agent.Foreground
	stable     time.Duration // how long the screen has held still, at the last look
	now        time.Time     // when the last look was
}

// PatternWithoutPaste bounds the wait for bracketed paste once the ready
// pattern matches, for an agent that turned it on before.
const PatternWithoutPaste = 3 * time.Second

// Observe notes a look at the visible screen with its cursor at now.
func (r *Readiness) Observe(screenAndCursor string, now time.Time) {
	r.stable, r.now = r.det.Observe(agent.ScreenHash(screenAndCursor, 0), now), now
}

// Judge says whether the last look shows the agent ready: its screen's
// lines, and whether it turned on bracketed paste.
func (r *Readiness) Judge(lines []string, pasteOn bool) ReadyBy {
	stable, now := r.stable, r.now
	switch {
	case r.Pattern != nil && agent.ReadyMatch(r.Pattern, lines):
		if pasteOn || !r.AwaitPaste {
			return ByPattern
		}
		if r.matchedAt.IsZero() {
			r.matchedAt = now
		}
		if now.Sub(r.matchedAt) >= PatternWithoutPaste {
			return ByPattern // a release that no longer turns it on
		}
		return NotReady
	case r.Pattern == nil && len(lines) > 0 && (stable >= agent.ReadyStable || pasteOn && stable >= agent.PasteOnStable):
		if pasteOn && stable < agent.ReadyStable {
			return ByPaste
		}
		return ByStable
	case r.Pattern != nil && len(lines) > 0 && stable >= agent.ReadyStable && (!r.fg.OK || now.Sub(r.fg.At) >= agent.IdleSpan):
		// No pattern matched: is the agent idle on its terminal all the same?
		next := agent.LookForeground(r.PID, now)
		if agent.ReadyBySignals(pasteOn, stable, agent.IdleBetween(r.fg, next)) {
			return ByIdle
		}
		r.fg = next
	}
	return NotReady
}
