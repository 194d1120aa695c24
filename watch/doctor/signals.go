package doctor

// The signal table: what the loop's events say of each signal a loop relies
// on. A pure function of the recorded events, so it is tested with tables.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// Status is how a signal fared.
type Status string

// The statuses of a signal.
const (
	OK   Status = "ok"   // seen, as a loop needs it
	Fail Status = "fail" // not seen, or seen wrong
	Skip Status = "n/a"  // does not apply to this agent
	// Untried: not seen because the loop never got that far (no prompt
	// was typed, no turn reached it); an earlier line says why.
	Untried Status = "untried"
)

// Mark is the status as one character.
func (s Status) Mark() string {
	switch s {
	case OK:
		return "✓"
	case Fail:
		return "✗"
	case Untried:
		return "·"
	}
	return "–"
}

// Signal is one line of the report.
type Signal struct {
	Key    string        `json:"key"`   // stable name: ready, paste, turn-end-hook, …
	Title  string        `json:"title"` // as printed: "paste lands"
	Status Status        `json:"status"`
	Via    string        `json:"via,omitempty"` // how it was known (watch.Via…)
	After  time.Duration `json:"-"`             // the time the detail speaks of
	Detail string        `json:"detail,omitempty"`
	Fix    string        `json:"fix,omitempty"`    // what to set when it failed
	Needed bool          `json:"needed"`           // a loop needs it to work
	Screen string        `json:"screen,omitempty"` // the pane's last lines, when they explain a failure
}

// The signals, in the order they are printed.
var signalTitles = []struct{ Key, Title string }{
	{"dialog", "starts without a dialog"},
	{"ready", "ready"},
	{"paste", "paste lands"},
	{"submit", "submit taken"},
	{"busy", "busy seen"},
	{"turn-end-hook", "turn end by hook"},
	{"turn-end-screen", "turn end by screen"},
	{"done", "done token after the prompt only"},
	{"limit", "usage limit recognised"},
	{"prompt", "prompt reaches the model intact"},
}

// Observed is what doctor's two loops of the agent showed.
type Observed struct {
	Profile agent.Profile
	// Hook is the loop with the agent's turn-end hook installed: turn 1 is
	// answered without the done token, turn 2 with it.
	Hook []contract.Event
	// Screen is the loop with the hook off: turn 1 is answered without the
	// token, turn 2 with a usage limit.
	Screen      []contract.Event
	Prompt      string   // what was typed each turn
	Received    []string // what the model received, one per turn
	APIUsed     bool     // the agent made any request to the fake API
	ReadyScreen string   // the screen when the wait for ready ran out, if it did
}

// Evaluate turns the events into the signal table.
func Evaluate(o Observed) []Signal {
	byKey := map[string]*Signal{}
	var out []Signal
	for _, t := range signalTitles {
		out = append(out, Signal{Key: t.Key, Title: t.Title, Status: OK, Needed: true})
	}
	for i := range out {
		byKey[out[i].Key] = &out[i]
	}
	fail := func(key, detail, fix string) {
		s := byKey[key]
		if s.Status == Fail {
			return // the first failure explains it
		}
		s.Status, s.Detail, s.Fix = Fail, detail, fix
	}
	// untried marks a signal the loop never got far enough to see.
	untried := func(key, detail string) {
		if s := byKey[key]; s.Status == OK {
			s.Status, s.Detail = Untried, "not tried: "+detail
		}
	}
	p := &o.Profile
	turns := []turn{at(o.Hook, 1), at(o.Hook, 2), at(o.Screen, 1), at(o.Screen, 2)}
	hook1, hook2, screen1, screen2 := turns[0], turns[1], turns[2], turns[3]

	// Start-up: no dialog before the prompt, no question during a plain turn.
	for _, t := range turns {
		if e, ok := t.first(contract.EventStartup); ok {
			what, fix := p.StartupAdvice(e.Detail)
			fail("dialog", "it asks "+what, fix)
		}
		if _, ok := t.first(contract.EventDialog); ok {
			fail("dialog", "a question waited for the person during a plain turn",
				"answer it once by hand, or set --dialog-timeout to restart past it")
		}
	}

	// Delivery, in each turn the agent was started for. Ready by the agent's
	// own hook is what a loop uses; the screen, seen in the run without
	// hooks, is then only the fallback.
	readyByHook := true
	for _, t := range turns[:2] {
		e, _ := t.first(contract.EventReady)
		readyByHook = readyByHook && t.started && e.Via == contract.ViaHook
	}
	fallbackNote := ""
	for i, t := range turns {
		if !t.started {
			continue
		}
		ready, ok := t.first(contract.EventReady)
		switch {
		case ok && ready.Via == contract.ViaTimeout && i >= 2 && readyByHook:
			fallbackNote = "; without its hooks the screen never showed it ready"
		case !ok:
			what, fix := "it never took input", ""
			if e, exited := t.first(contract.EventExit); exited {
				what = "it exited (status " + e.Detail + ") before taking input"
				if i < 2 && p.TurnHook != "" && delivered(screen1) {
					what = "with ralph-watch's turn-end hook added it exited (status " + e.Detail +
						") before taking input; without the hook it ran"
					fix = "start it by its own program, where the hook's arguments can go (not through env, npx or a wrapper), or --turn-hook=false"
				}
			}
			fail("ready", what, fix)
			continue
		case ready.Via == contract.ViaTimeout:
			fix := "--ready-pattern RE matching its screen when it waits for input"
			if re := suggestReady(o.ReadyScreen); re != "" {
				fix = "--ready-pattern '" + re + "' (from its last line then; try it: ralph-watch doctor --ready-pattern '" + re + "')"
			}
			fail("ready", "not seen: the prompt was typed when the ready timeout ("+seconds(ready.After)+") ran out", fix)
			byKey["ready"].Screen = o.ReadyScreen
		}
		if _, ok := t.first(contract.EventPasted); !ok {
			fail("paste", "the pasted prompt never showed in the pane", "--prompt-mode arg, if it takes the prompt as an argument")
			continue
		}
		if !delivered(t) {
			fail("submit", "Enter did not send the prompt", "--prompt-mode arg, if it takes the prompt as an argument")
		}
	}
	// A line never says a step went well that no turn reached.
	pasted, anyDelivered := false, false
	for _, t := range turns {
		_, ok := t.first(contract.EventPasted)
		pasted = pasted || ok
		anyDelivered = anyDelivered || delivered(t)
	}
	if !pasted {
		untried("paste", "the prompt was never typed")
	}
	if !anyDelivered {
		untried("submit", "no paste to send")
	}
	// Timings come from the first turn that took its prompt.
	ref := hook1
	if !delivered(hook1) && delivered(screen1) {
		ref = screen1
	}
	if s := byKey["ready"]; s.Status == OK {
		if !hook1.started {
			fail("ready", "the agent was never started", "")
		} else {
			ready, _ := hook1.first(contract.EventReady)
			s.Via, s.After = ready.Via, ready.After
			s.Detail = "by " + viaWords(ready.Via)
			if out, ok := hook1.first(contract.EventOutput); ok {
				s.After = ready.After - out.After
				if s.After < 0 { // a hook can report before anything is drawn
					s.Detail += ", " + seconds(-s.After) + " before its first output"
				} else {
					s.Detail += ", " + seconds(s.After) + " after its first output"
				}
			}
			s.Detail += " (" + seconds(ready.After) + " after start)" + fallbackNote
		}
	}
	between := func(key string, t turn, from, to contract.EventKind, what string) {
		s := byKey[key]
		a, okA := t.first(from)
		b, okB := t.first(to)
		if s.Status == OK && okA && okB {
			s.Via, s.After = b.Via, b.After-a.After
			s.Detail = seconds(s.After) + " after " + what
		}
	}
	// Timed in the reference turn, else in the first turn that saw both.
	betweenAny := func(key string, from, to contract.EventKind, what string) {
		for _, t := range append([]turn{ref}, turns...) {
			if _, ok := t.first(from); !ok {
				continue
			}
			if _, ok := t.first(to); ok {
				between(key, t, from, to, what)
				return
			}
		}
	}
	betweenAny("paste", contract.EventReady, contract.EventPasted, "ready")
	betweenAny("submit", contract.EventPasted, contract.EventSubmitted, "the paste")
	if s := byKey["submit"]; s.Status == OK && s.Detail == "" {
		s.Detail = "Enter sent the prompt, though its paste was not seen first"
		for _, t := range turns {
			if _, ok := t.first(contract.EventPasted); ok && delivered(t) {
				s.Detail = "Enter sent the prompt (the agent answered it), though its screen did not show the submit in time to time it"
				break
			}
		}
	}

	// Busy: a quick turn can be missed, so it is not needed.
	byKey["busy"].Needed = false
	if _, ok := hook1.first(contract.EventBusy); ok {
		between("busy", hook1, contract.EventSubmitted, contract.EventBusy, "submit")
	} else if _, ok := screen1.first(contract.EventBusy); ok {
		between("busy", screen1, contract.EventSubmitted, contract.EventBusy, "submit")
	} else if !delivered(hook1) && !delivered(screen1) {
		untried("busy", "no first turn took its prompt")
	} else {
		fail("busy", "never seen working", "--busy-pattern RE matching its screen while it works")
	}

	// Turn end: the hook first, the screen as the fallback; one of them is needed.
	hookEnd, screenEnd := byKey["turn-end-hook"], byKey["turn-end-screen"]
	switch e, ok := hook1.firstVia(contract.EventTurnEnd, contract.ViaHook); {
	case p.TurnHook == "":
		hookEnd.Status, hookEnd.Detail = Skip, "ralph-watch installs no turn-end hook in this agent"
	case ok:
		between("turn-end-hook", hook1, contract.EventSubmitted, contract.EventTurnEnd, "submit")
		hookEnd.Via = e.Via
		hookEnd.Detail += " (" + agent.HookWiring[p.TurnHook] + ")"
	case !delivered(hook1):
		untried("turn-end-hook", "the turn with the hook never took its prompt")
	default:
		fail("turn-end-hook", "the agent's hook never reported the turn's end ("+agent.HookWiring[p.TurnHook]+")", "")
	}
	readsScreen := p.Ready != nil && p.IdleGrace != 0
	if !delivered(screen1) && readsScreen {
		// An idle screen with no prompt sent ends no turn.
		untried("turn-end-screen", "the turn without hooks never took its prompt")
	} else if e, ok := screen1.firstVia(contract.EventTurnEnd, contract.ViaScreen); ok {
		between("turn-end-screen", screen1, contract.EventSubmitted, contract.EventTurnEnd, "submit")
		screenEnd.Via = e.Via
	} else if !readsScreen {
		fail("turn-end-screen", "this profile does not read a turn's end from the screen",
			"--agent NAME for a known agent; else each iteration ends by --inactivity-timeout")
	} else {
		fail("turn-end-screen", "its idle screen after the turn was not recognised",
			"--ready-pattern RE matching its screen when it waits for input")
	}
	hookEnd.Needed = false
	screenEnd.Needed = hookEnd.Status != OK
	if screenEnd.Needed && screenEnd.Status == OK {
		screenEnd.Detail = strings.TrimSpace(screenEnd.Detail + " (the only turn-end signal)")
	}

	// The done token: the echoed prompt holds it, only the reply's counts.
	switch e, ok := hook1.first(contract.EventDone); {
	case ok:
		fail("done", "the echoed prompt matched the done pattern ("+e.Detail+")",
			"--check-done-continuous=false (match only after the agent exits)")
	case !delivered(hook2):
		untried("done", "the second turn, whose reply holds the token, never took its prompt")
	default:
		if e, ok := hook2.first(contract.EventDone); ok {
			byKey["done"].Detail = "not in turn 1's echo; in turn 2's reply " + seconds(e.After-hook2.at(contract.EventSubmitted)) + " after submit"
		} else {
			fail("done", "the reply's done token was not seen", "--done-pattern RE matching the agent's own line")
		}
	}

	// The usage limit, when the profile claims to know it.
	limit := byKey["limit"]
	limit.Needed = p.Limit != nil
	if e, ok := screen2.first(contract.EventLimit); ok {
		line, _, _ := strings.Cut(strings.TrimSpace(e.Detail), "\n")
		line = strings.Join(strings.Fields(strings.Trim(line, " │■●⎿✕")), " ") // no frame, no padding
		limit.Via, limit.Detail = e.Via, shorten(line, 70)
	} else if p.Limit == nil && p.TurnHook != "" {
		limit.Status, limit.Detail = Skip, "its screen shows none (it retries); a loop learns it from its hook"
	} else if !delivered(screen2) {
		untried("limit", "the turn answered with a usage limit never took its prompt")
	} else {
		fail("limit", "its usage-limit message was not recognised", "--limit-pattern RE matching its limit message")
	}

	// The prompt as the model received it.
	prompt := byKey["prompt"]
	switch {
	case !anyDelivered:
		untried("prompt", "no prompt went in")
	case !o.APIUsed:
		prompt.Status, prompt.Detail = Skip, "the agent made no request to the fake API"
	case len(o.Received) == 0:
		fail("prompt", "no turn reached the model", "")
	default:
		for _, got := range o.Received {
			if p.PromptPrefix != nil {
				got = p.PromptPrefix.ReplaceAllString(got, "")
			}
			if strings.TrimSpace(got) != strings.TrimSpace(o.Prompt) {
				fail("prompt", fmt.Sprintf("the model received %q", shorten(got, 70)), "")
			}
		}
		if prompt.Status == OK {
			prompt.Detail = fmt.Sprintf("%d turns, byte for byte", len(o.Received))
		}
	}
	return out
}

// Works reports whether a loop would work: every needed signal is OK. It
// returns the fixes of the failed ones, needed or not, one per flag (the
// first, most precise, wins).
func Works(signals []Signal) (bool, []string) {
	works := true
	var fixes []string
	for _, s := range signals {
		if s.Status == Untried && s.Needed {
			works = false // not seen: a loop cannot be said to work
		}
		if s.Status != Fail {
			continue
		}
		if s.Needed {
			works = false
		}
		flag, _, _ := strings.Cut(s.Fix, " ")
		if s.Fix != "" && !slices.ContainsFunc(fixes, func(f string) bool { return strings.HasPrefix(f, flag+" ") || f == s.Fix }) {
			fixes = append(fixes, s.Fix)
		}
	}
	return works, fixes
}

// suggestReady proposes a ready pattern from the screen of an agent that
// waits for input: the start of its last line (a footer such as "⏵⏵ auto
// mode on (shift+tab to cycle) · ← for agents"), up to a separator. "" when
// nothing fits on one shell-quotable line.
func suggestReady(screen string) string {
	lines := strings.Split(strings.TrimSpace(screen), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	for _, sep := range []string{" · ", " (", "  "} {
		last, _, _ = strings.Cut(last, sep)
	}
	words := strings.Fields(last)
	if len(words) > 4 {
		words = words[:4]
	}
	text := strings.Join(words, " ")
	if len([]rune(text)) < 4 || strings.ContainsAny(text, "'\\") || !strings.ContainsFunc(text, unicode.IsLetter) {
		return ""
	}
	return regexp.QuoteMeta(text)
}
