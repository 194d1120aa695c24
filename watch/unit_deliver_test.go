package watch_test

import (
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

func TestUnitThePromptIsPastedOnceAndSubmittedOnceAnIteration(t *testing.T) {
	u := newUnit(t, "fix the bug;\n\tthen test", func(int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, input string) {
			t.Write("fixed: " + input)
			t.Exit(0)
		})
	})
	u.cfg.MaxIterations = 2
	res := u.run()
	u.wantResult(res, contract.ExitDone, "max_iterations")
	if want := []string{"fix the bug;\n\tthen test", "fix the bug;\n\tthen test"}; !reflect.DeepEqual(u.pastes(), want) {
		t.Errorf("pasted %q, want the prompt once an iteration", u.pastes())
	}
	if want := []string{"Enter", "Enter"}; !reflect.DeepEqual(u.keys(), want) {
		t.Errorf("keys %q, want one Enter an iteration", u.keys())
	}
	if st := u.state(); st.CurrentIteration != 2 || st.TotalFailures != 0 || st.LastExitCode == nil || *st.LastExitCode != 0 {
		t.Errorf("state = %+v", st)
	}
	u.wantLog("[START] iteration 1/2", "[END] iteration 1 exit=0", "[START] iteration 2/2", "[END] iteration 2 exit=0", "reason=max_iterations")
}

func TestUnitThePromptWaitsForTheReadyPattern(t *testing.T) {
	// The agent draws a banner, and its input box only once it has loaded:
	// the loop must wait for the box, though the banner stands still.
	loaded, early := false, false
	var u *unit
	u = newUnit(t, "go", func(int) *tmuxfake.Program {
		p := repl(func(t *tmuxfake.Term, input string) { t.Exit(0) })
		paste := p.Paste
		p.Start = func(t *tmuxfake.Term) {
			t.Write("loading plugins...")
			u.plan(5*time.Second, func(t *tmuxfake.Term) {
				loaded = true
				t.Write("\n> ")
			})
		}
		p.Paste = func(t *tmuxfake.Term, text string) {
			early = early || !loaded
			paste(t, text)
		}
		return p
	})
	u.simulate()
	u.cfg.ReadyPattern = regexp.MustCompile(`^>`)
	u.cfg.ReadyTimeout = time.Hour
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if early {
		t.Error("the prompt was pasted before the ready pattern showed")
	}
	if got := u.pastes(); len(got) != 1 || got[0] != "go" {
		t.Errorf("pasted %q, want the prompt once", got)
	}
	if strings.Contains(u.out.String(), "did not become ready") {
		t.Errorf("the ready timeout decided, not the pattern:\n%s", u.out.String())
	}
}

func TestUnitAnEnterThatDidNotTakeIsPressedAgainAndThePromptNeverPastedAgain(t *testing.T) {
	// The agent drops the first Enter (it was still drawing): nothing shows.
	u := newUnit(t, "go", func(int) *tmuxfake.Program {
		enters := 0
		p := repl(func(t *tmuxfake.Term, input string) {
			t.Write("went: " + input)
			t.Exit(0)
		})
		key := p.Key
		p.Key = func(t *tmuxfake.Term, k string) {
			if enters++; k == "Enter" && enters == 1 {
				return
			}
			key(t, k)
		}
		return p
	})
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if got := u.pastes(); len(got) != 1 {
		t.Errorf("pasted %d times (%q), want once", len(got), got)
	}
	if want := []string{"Enter", "Enter"}; !reflect.DeepEqual(u.keys(), want) {
		t.Errorf("keys %q, want Enter pressed again once", u.keys())
	}
	if got := u.tmux.Screen(u.cfg.Pane); !strings.Contains(got, "went: go") {
		t.Errorf("the agent never had the prompt; screen:\n%s", got)
	}
}

// timePastes makes p note in at when a paste reaches it, by the unit's clock.
func (u *unit) timePastes(p *tmuxfake.Program, at *time.Time) *tmuxfake.Program {
	paste := p.Paste
	p.Paste = func(t *tmuxfake.Term, text string) {
		*at = u.clock.Now()
		paste(t, text)
	}
	return p
}

func TestUnitWithoutAPatternTheScreenMustBeStillBeforeThePromptGoesIn(t *testing.T) {
	var pastedAt time.Time
	var u *unit
	u = newUnit(t, "go", func(int) *tmuxfake.Program {
		return u.timePastes(repl(func(t *tmuxfake.Term, input string) { t.Exit(0) }), &pastedAt)
	})
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if waited := pastedAt.Sub(u.started()[0]); waited < 700*time.Millisecond || waited > time.Minute {
		t.Errorf("pasted %s after the agent drew its prompt, want once it was still 0.7s", waited)
	}
}

func TestUnitAnAgentThatDrawsNothingGetsThePromptAtTheReadyTimeout(t *testing.T) {
	var pastedAt time.Time
	var u *unit
	u = newUnit(t, "go", func(int) *tmuxfake.Program {
		p := repl(func(t *tmuxfake.Term, input string) { t.Exit(0) })
		p.Start = nil // a blank screen, no output
		return u.timePastes(p, &pastedAt)
	})
	u.cfg.ReadyTimeout = 10 * time.Minute
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if waited := pastedAt.Sub(u.started()[0]); waited < u.cfg.ReadyTimeout {
		t.Errorf("pasted %s after the agent started, want the ready timeout (%s) first", waited, u.cfg.ReadyTimeout)
	}
	if !strings.Contains(u.out.String(), "agent did not become ready within 10m0s, typing the prompt anyway") {
		t.Errorf("no warning of the ready timeout:\n%s", u.out.String())
	}
}

func TestUnitTheDoneTokenEndsTheLoopButNotInTheEchoedPrompt(t *testing.T) {
	u := newUnit(t, "work until finished, then print\nRALPH_DONE\n", func(n int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, input string) {
			if n == 2 {
				t.Write("all tests pass\nRALPH_DONE\n")
			} else {
				t.Write("one more thing to fix\n")
			}
			t.Exit(0)
		})
	})
	u.cfg.DonePattern = regexp.MustCompile(`^RALPH_DONE$`)
	u.cfg.MaxIterations = 5
	u.wantResult(u.run(), contract.ExitDone, "done_pattern")
	if n := len(u.started()); n != 2 {
		t.Errorf("the agent started %d times, want 2: the echoed prompt is no done token", n)
	}
	u.wantLog("[END] iteration 1 exit=0", "[END] iteration 2 exit=0", "[DONE] loop complete after 2 iterations reason=done_pattern")
	if st := u.state(); st.ExitReason == nil || *st.ExitReason != "done_pattern" {
		t.Errorf("state = %+v", st)
	}
}

// An agent that turned on bracketed paste in an earlier iteration draws its
// input box before it does so again (Gemini CLI on a busy machine, which
// then dropped the Enter): the next prompt waits for paste on, though the
// ready pattern shows.
func TestUnitThePromptWaitsForPasteOnWhereTheAgentTurnedItOnBefore(t *testing.T) {
	u := newUnit(t, "work", nil)
	u.launch(func(int) *tmuxfake.Program {
		p := repl(func(t *tmuxfake.Term, input string) { t.Write("done") })
		start := p.Start
		p.Start = func(t *tmuxfake.Term) {
			start(t)
			u.plan(2*time.Second, func(t *tmuxfake.Term) { t.Raw("\x1b[?2004h") })
		}
		return p
	})
	u.simulate()
	u.cfg.Agent = knownAgent()
	u.cfg.ReadyPattern = regexp.MustCompile(`(?m)^> $`)
	u.cfg.MaxIterations = 2
	var mu sync.Mutex
	var seen []contract.Event
	told := u.cfg.Events
	u.cfg.Events = func(e contract.Event) {
		told(e)
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, e)
	}
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	mu.Lock()
	defer mu.Unlock()
	var order []contract.EventKind
	for _, e := range seen {
		if e.Iteration == 2 && (e.Kind == contract.EventPasteOn || e.Kind == contract.EventPasted) {
			order = append(order, e.Kind)
		}
	}
	if len(order) == 0 || order[0] != contract.EventPasteOn {
		t.Errorf("iteration 2: %v, want paste on before the paste", order)
	}
}
