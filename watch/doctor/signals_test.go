package doctor

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// ev is an event of iteration n, ms milliseconds after the agent started.
func ev(n int, kind contract.EventKind, via string, ms int, detail ...string) contract.Event {
	return contract.Event{Iteration: n, Kind: kind, Via: via, After: time.Duration(ms) * time.Millisecond, Detail: strings.Join(detail, "")}
}

// deliveredTurn is a turn that started, became ready by its screen and took the prompt.
func deliveredTurn(n int) []contract.Event {
	return []contract.Event{
		ev(n, contract.EventStarted, "", 0),
		ev(n, contract.EventOutput, contract.ViaStream, 900),
		ev(n, contract.EventReady, contract.ViaPattern, 1200),
		ev(n, contract.EventPasted, contract.ViaScreen, 1300),
		ev(n, contract.EventSubmitted, contract.ViaScreen, 1800),
		ev(n, contract.EventBusy, contract.ViaScreen, 2000),
	}
}

func join(lists ...[]contract.Event) []contract.Event {
	var out []contract.Event
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// healthy is what a working agent with a turn-end hook shows.
func healthy() Observed {
	p, _ := agent.Lookup("claude")
	return Observed{
		Profile: p,
		Hook: join(deliveredTurn(1), []contract.Event{ev(1, contract.EventTurnEnd, contract.ViaHook, 3300)},
			deliveredTurn(2), []contract.Event{ev(2, contract.EventDone, contract.ViaStream, 3400, "RALPH_DONE")}),
		Screen: join(deliveredTurn(1), []contract.Event{ev(1, contract.EventTurnEnd, contract.ViaScreen, 6800)},
			deliveredTurn(2), []contract.Event{ev(2, contract.EventLimit, contract.ViaScreen, 2500, "  ⎿  API Error: Request rejected (429)\nmore")}),
		Prompt:   Prompt,
		Received: []string{strings.TrimSpace(Prompt), strings.TrimSpace(Prompt)},
		APIUsed:  true,
	}
}

func statuses(signals []Signal) map[string]Status {
	m := map[string]Status{}
	for _, s := range signals {
		m[s.Key] = s.Status
	}
	return m
}

func find(signals []Signal, key string) Signal {
	for _, s := range signals {
		if s.Key == key {
			return s
		}
	}
	return Signal{}
}

// drop removes the events of kind (and via, if given) from iteration n.
func drop(events []contract.Event, n int, kind contract.EventKind, via ...string) []contract.Event {
	var out []contract.Event
	for _, e := range events {
		if e.Iteration == n && e.Kind == kind && (len(via) == 0 || e.Via == via[0]) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func TestEvaluateReadsEachSignalFromTheLoopsEvents(t *testing.T) {
	aider, _ := agent.Lookup("aider") // a profile whose agent has no hook ralph-watch installs
	generic, _ := agent.Lookup("generic")
	for _, tc := range []struct {
		name   string
		change func(o *Observed)
		fails  []string // the signals that fail; every other one passes or does not apply
		skips  []string
		works  bool
		fix    string // one of the fixes printed
	}{
		{"every signal seen", func(o *Observed) {}, nil, nil, true, ""},
		{"a start-up dialog", func(o *Observed) {
			o.Hook = append(o.Hook[:1], ev(1, contract.EventStartup, contract.ViaScreen, 900, "0"))
		}, []string{"dialog", "ready"}, nil, false, "hasTrustDialogAccepted"},
		{"ready only when the timeout ran out", func(o *Observed) {
			o.Screen[2].Via = contract.ViaTimeout
			o.ReadyScreen = "❯ \n  ⏵⏵ auto mode on"
		}, []string{"ready"}, nil, false, "--ready-pattern"},
		{"ready by hook, the screen fallback never saw it: a loop still works", func(o *Observed) {
			for _, e := range []*[]contract.Event{&o.Hook, &o.Screen} {
				for i := range *e {
					if (*e)[i].Kind == contract.EventReady {
						(*e)[i].Via = map[bool]string{true: contract.ViaHook, false: contract.ViaTimeout}[e == &o.Hook]
					}
				}
			}
		}, nil, nil, true, ""},
		{"ready by hook in one turn only, by the timeout in the other", func(o *Observed) {
			o.Hook[2].Via = contract.ViaHook
			o.Hook[len(deliveredTurn(1))+1+2].Via = contract.ViaTimeout
		}, []string{"ready"}, nil, false, "--ready-pattern"},
		{"the paste never showed", func(o *Observed) { o.Hook = drop(o.Hook, 2, contract.EventPasted) },
			[]string{"paste"}, nil, false, "--prompt-mode arg"},
		{"Enter did not take", func(o *Observed) { // nothing worked on the prompt
			for _, k := range []contract.EventKind{contract.EventSubmitted, contract.EventBusy, contract.EventDone, contract.EventTurnEnd} {
				o.Hook = drop(o.Hook, 1, k)
			}
		}, []string{"submit"}, nil, false, ""},
		{"never seen busy: a loop still works", func(o *Observed) {
			o.Hook, o.Screen = drop(o.Hook, 1, contract.EventBusy), drop(o.Screen, 1, contract.EventBusy)
		}, []string{"busy"}, nil, true, "--busy-pattern"},
		{"the hook never fired, the screen ends the turn", func(o *Observed) {
			o.Hook = append(drop(o.Hook, 1, contract.EventTurnEnd), ev(1, contract.EventTurnEnd, contract.ViaScreen, 6000))
		}, []string{"turn-end-hook"}, nil, true, ""},
		{"the screen's idle is not recognised, the hook ends the turn", func(o *Observed) {
			o.Screen = drop(o.Screen, 1, contract.EventTurnEnd)
		}, []string{"turn-end-screen"}, nil, true, "--ready-pattern"},
		{"neither hook nor screen ends a turn", func(o *Observed) {
			o.Hook, o.Screen = drop(o.Hook, 1, contract.EventTurnEnd), drop(o.Screen, 1, contract.EventTurnEnd)
		}, []string{"turn-end-hook", "turn-end-screen"}, nil, false, "--ready-pattern"},
		{"no hook for this agent, the screen ends the turn", func(o *Observed) {
			o.Profile = aider
			o.Hook = append(drop(o.Hook, 1, contract.EventTurnEnd), ev(1, contract.EventTurnEnd, contract.ViaScreen, 6000))
		}, nil, []string{"turn-end-hook"}, true, ""},
		{"the echoed prompt matched", func(o *Observed) {
			o.Hook = append(o.Hook, ev(1, contract.EventDone, contract.ViaStream, 1900, "RALPH_DONE"))
		}, []string{"done"}, nil, false, "--check-done-continuous=false"},
		{"the reply's token was missed", func(o *Observed) { o.Hook = drop(o.Hook, 2, contract.EventDone) },
			[]string{"done"}, nil, false, "--done-pattern"},
		{"the second turn never ran", func(o *Observed) { o.Hook = at(o.Hook, 1).events },
			nil, nil, false, ""},
		{"the limit was not recognised", func(o *Observed) { o.Screen = drop(o.Screen, 2, contract.EventLimit) },
			[]string{"limit"}, nil, false, "--limit-pattern"},
		{"the prompt arrived changed", func(o *Observed) { o.Received[1] = "Doctor check" },
			[]string{"prompt"}, nil, false, ""},
		{"an agent that does not use the fake API", func(o *Observed) { o.Received, o.APIUsed = nil, false },
			nil, []string{"prompt"}, true, ""},
		{"generic: no turn end, no limit, and the loop still ends turns by inactivity", func(o *Observed) {
			o.Profile = generic
			o.Hook = drop(o.Hook, 1, contract.EventTurnEnd)
			o.Screen = drop(drop(o.Screen, 1, contract.EventTurnEnd), 2, contract.EventLimit)
		}, []string{"turn-end-screen", "limit"}, []string{"turn-end-hook"}, false, "--agent NAME"},
	} {
		// Signals no turn got far enough to see: never ✓, never blamed.
		notTried := map[string][]string{
			"a start-up dialog":         {"turn-end-hook", "done"},
			"the second turn never ran": {"done"},
			"Enter did not take":        {"turn-end-hook"},
		}[tc.name]
		t.Run(tc.name, func(t *testing.T) {
			o := healthy()
			tc.change(&o)
			signals := Evaluate(o)
			if len(signals) != len(signalTitles) {
				t.Fatalf("%d signals, want %d", len(signals), len(signalTitles))
			}
			got := statuses(signals)
			for key, st := range got {
				want := OK
				if contains(tc.fails, key) {
					want = Fail
				} else if contains(notTried, key) {
					want = Untried
				} else if contains(tc.skips, key) {
					want = Skip
				}
				if st != want {
					t.Errorf("%s: %s, want %s (%s)", key, st, want, find(signals, key).Detail)
				}
			}
			works, fixes := Works(signals)
			if works != tc.works {
				t.Errorf("works = %v, want %v; signals %+v", works, tc.works, signals)
			}
			if tc.fix != "" && !strings.Contains(strings.Join(fixes, "\n"), tc.fix) {
				t.Errorf("fixes %q lack %q", fixes, tc.fix)
			}
		})
	}
}

func TestEvaluateMeasuresFromTheRightEvents(t *testing.T) {
	signals := Evaluate(healthy())
	for key, want := range map[string]string{
		"ready":           "by screen (ready pattern), 300ms after its first output (1.2s after start)",
		"paste":           "100ms after ready",
		"submit":          "500ms after the paste",
		"busy":            "200ms after submit",
		"turn-end-hook":   "1.5s after submit (hooks by a per-loop --settings file)",
		"turn-end-screen": "5.0s after submit",
		"done":            "not in turn 1's echo; in turn 2's reply 1.6s after submit",
		"limit":           "API Error: Request rejected (429)",
		"prompt":          "2 turns, byte for byte",
	} {
		if got := find(signals, key).Detail; got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
}

func TestTheReportPrintsALineASignalAndATableRow(t *testing.T) {
	o := healthy()
	o.Screen[2].Via = contract.ViaTimeout
	o.Screen = drop(o.Screen, 1, contract.EventTurnEnd)
	o.ReadyScreen = "❯ \n  ⏵⏵ auto mode on"
	rep := &Report{Agent: "claude", Command: []string{"claude"}, Version: "2.1.330 (Claude Code)", Signals: Evaluate(o)}
	rep.Works, rep.Fixes = Works(rep.Signals)
	var b strings.Builder
	rep.WriteText(&b)
	text := b.String()
	for _, want := range []string{"✓ agent", "✗ ready", "│   ⏵⏵ auto mode on", "✓ turn end by hook", "would not work", "try: --ready-pattern"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "\n✓ ") + strings.Count(text, "\n✗ ") + strings.Count(text, "\n– "); n != len(signalTitles) {
		t.Errorf("%d signal lines, want %d:\n%s", n, len(signalTitles), text)
	}
	header, row := MarkdownHeader(), rep.MarkdownRow()
	if cols, cells := strings.Count(strings.SplitN(header, "\n", 2)[0], "|"), strings.Count(row, "|"); cols != cells {
		t.Errorf("header has %d bars, row %d:\n%s%s", cols, cells, header, row)
	}
	if n := strings.Count(text, "try: --ready-pattern"); n != 1 {
		t.Errorf("%d ready-pattern fixes, want 1 (ready and the screen's turn end ask for the same flag):\n%s", n, text)
	}
	if !strings.HasPrefix(row, "| claude | 2.1.330 (Claude Code) | ✓ | ✗ |") || !strings.Contains(row, "✓ 1.5s") {
		t.Errorf("row %q", row)
	}
	b.Reset()
	if err := rep.WriteJSON(&b); err != nil || !strings.Contains(b.String(), `"key":"ready","title":"ready","status":"fail"`) ||
		!strings.Contains(b.String(), `"works":false`) || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("json: %v\n%s", err, b.String())
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestSuggestReadyTakesTheStartOfTheLastLine(t *testing.T) {
	for _, tc := range []struct{ screen, want string }{
		{"❯ \n──────\n  ⏵⏵ auto mode on (shift+tab to cycle) · ← for agents", `⏵⏵ auto mode on`},
		{"> Type your message or @path/to/file\n  ~/proj   no sandbox   gemini-9", `~/proj`},
		{"  ? for shortcuts · ← for agents\n\n", `\? for shortcuts`},
		{"", ""},
		{"──────", ""},
		{"> ", ""},
		{"it's ready", ""},
		{"one two three four five six", "one two three four"},
	} {
		if got := suggestReady(tc.screen); got != tc.want {
			t.Errorf("suggestReady(%q) = %q, want %q", tc.screen, got, tc.want)
		}
	}
}

// An agent started through a wrapper that refuses the hook's arguments (env
// before the program: exit 125) starts fine without the hook: doctor says so.
func TestEvaluateTellsAHookThatBreaksTheCommand(t *testing.T) {
	o := healthy()
	o.Hook = []contract.Event{ev(1, contract.EventStarted, "", 0), ev(1, contract.EventExit, contract.ViaExit, 40, "125"),
		ev(2, contract.EventStarted, "", 0), ev(2, contract.EventExit, contract.ViaExit, 40, "125")}
	signals := Evaluate(o)
	ready := find(signals, "ready")
	if ready.Status != Fail || !strings.Contains(ready.Detail, "with ralph-watch's turn-end hook added it exited (status 125)") ||
		!strings.Contains(ready.Fix, "--turn-hook=false") {
		t.Errorf("ready: %+v", ready)
	}
	if d := find(signals, "done"); d.Status != Untried || strings.Contains(d.Fix, "--done-pattern") {
		t.Errorf("done blames the pattern for a turn that never ran: %+v", d)
	}
	if p := find(signals, "paste"); p.Status != OK || p.Detail != "100ms after ready" {
		t.Errorf("paste is not timed from the run that took its prompt: %+v", p)
	}
}

// A hook can report the agent ready before it has drawn anything.
func TestEvaluateSaysAReadyByHookCameBeforeTheFirstOutput(t *testing.T) {
	o := healthy()
	o.Hook[1], o.Hook[2] = ev(1, contract.EventReady, contract.ViaHook, 700), ev(1, contract.EventOutput, contract.ViaStream, 760)
	want := "by hook, 60ms before its first output (700ms after start)"
	if got := find(Evaluate(o), "ready").Detail; got != want {
		t.Errorf("ready: %q, want %q", got, want)
	}
}

// The agent asks whether to trust the folder in every turn: no prompt is
// ever typed, and no line says a step after it went well, or blames it.
func TestEvaluateNeverPassesAStepNoTurnReached(t *testing.T) {
	o := healthy()
	o.Hook, o.Screen = nil, nil
	for n := 1; n <= 2; n++ {
		o.Hook = append(o.Hook, ev(n, contract.EventStarted, "", 0), ev(n, contract.EventOutput, contract.ViaStream, 500),
			ev(n, contract.EventStartup, contract.ViaScreen, 600, "0"))
	}
	o.Screen = append(o.Screen, o.Hook...)
	o.Received, o.APIUsed = nil, false
	signals := Evaluate(o)
	for _, s := range signals {
		want := Untried
		if s.Key == "dialog" || s.Key == "ready" {
			want = Fail
		}
		if s.Status != want {
			t.Errorf("%s: %s %q, want %s", s.Key, s.Status, s.Detail, want)
		}
	}
	if works, _ := Works(signals); works {
		t.Error("works with no prompt typed")
	}
	rep := &Report{Agent: "claude", Command: []string{"claude"}, Version: "2.1.330", Signals: signals}
	var b strings.Builder
	rep.WriteText(&b)
	if strings.Contains(b.String(), "✓ paste") || strings.Contains(b.String(), "✓ submit") || !strings.Contains(b.String(), "· paste lands") {
		t.Errorf("the report passes a step no turn reached:\n%s", b.String())
	}
}

// Seen on a loaded machine: the paste never showed, yet Enter sent the
// prompt; the run without hooks never took its prompt, yet its screen went
// idle. Each line says what happened, none a bare ✓.
func TestEvaluateSaysWhatHappenedWhenAStepWasSkipped(t *testing.T) {
	o := healthy()
	for _, n := range []int{1, 2} {
		o.Hook, o.Screen = drop(o.Hook, n, contract.EventPasted), drop(o.Screen, n, contract.EventPasted)
	}
	o.Screen = drop(o.Screen, 1, contract.EventSubmitted)
	o.Hook = drop(o.Hook, 1, contract.EventTurnEnd) // the screen is the only turn-end signal
	signals := Evaluate(o)
	if s := find(signals, "paste"); s.Status != Fail {
		t.Errorf("paste: %+v", s)
	}
	if s := find(signals, "submit"); s.Status != OK || !strings.Contains(s.Detail, "Enter sent the prompt, though its paste was not seen first") {
		t.Errorf("submit: %+v", s)
	}
	if s := find(signals, "turn-end-screen"); s.Status != Untried || strings.HasPrefix(s.Detail, " ") {
		t.Errorf("turn-end-screen: %+v", s)
	}
	for _, s := range signals {
		if s.Status == OK && s.Detail == "" && s.Key != "dialog" {
			t.Errorf("%s: ✓ with nothing said", s.Key)
		}
	}
}

// A slow agent (OpenCode on a busy machine) shows the submit too late for
// the typist, and then answers: its prompt went in, and doctor says so;
// a turn whose agent never worked on the pasted prompt still fails.
func TestEvaluateTakesAnAnsweredPromptAsSubmitted(t *testing.T) {
	o := healthy()
	o.Screen = drop(o.Screen, 2, contract.EventSubmitted)
	if s := find(Evaluate(o), "submit"); s.Status != OK {
		t.Errorf("submit of an answered prompt: %+v", s)
	}
	for _, k := range []contract.EventKind{contract.EventSubmitted, contract.EventBusy, contract.EventDone, contract.EventLimit, contract.EventTurnEnd} {
		o.Screen = drop(o.Screen, 2, k)
	}
	if s := find(Evaluate(o), "submit"); s.Status != Fail || s.Detail != "Enter did not send the prompt" {
		t.Errorf("submit of a prompt nobody worked on: %+v", s)
	}
}
