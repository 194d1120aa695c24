package watch_test

import (
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// What the loop decides once an agent's hooks have reported: a failed
// turn, a limit, a permission, a hook that never comes. That the hooks
// reach the watcher through `ralph-watch hook` is proved on real tmux
// (hook_loop_test.go, launch_loop_test.go); here a program reports as
// the command would.

// hooked sets u up for a Claude Code with its hooks installed, whose
// reports (see report) wake this process's loop; it returns what the loop
// told its listener.
func (u *unit) hooked() *events {
	u.t.Helper()
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGUSR1) // a report wakes the watcher by its pid: this process
	u.t.Cleanup(func() { signal.Stop(wake) })
	u.wake = wake
	u.simulate()
	u.asClaude()
	u.cfg.Command = []string{"claude"} // the hook goes after the agent's own program word
	u.cfg.TurnHook, u.cfg.Executable = true, "/usr/bin/ralph-watch"
	u.cfg.InactivityTimeout = 5 * time.Minute
	ev := &events{}
	logged := u.cfg.Events
	u.cfg.Events = func(e contract.Event) {
		logged(e)
		ev.add(e)
	}
	return ev
}

// report does what `ralph-watch hook` does when Claude Code's hook for
// event runs in the agent's pane t with input on its stdin.
func (u *unit) report(t *tmuxfake.Term, event, input string) {
	name := ""
	for _, e := range agent.ClaudeEvents {
		if e.Event == event {
			name = e.Name
		}
	}
	iteration := ""
	for _, e := range t.Env {
		if v, ok := strings.CutPrefix(e, "RALPH_ITERATION="); ok {
			iteration = v
		}
	}
	detail, record := agent.HookDetail(name, []byte(input))
	if !record {
		return
	}
	var in agent.HookInput
	if json.Unmarshal([]byte(input), &in) == nil && in.TranscriptPath != "" {
		if err := agent.RecordTranscript(u.store, in.TranscriptPath); err != nil {
			u.t.Error(err)
		}
	}
	if err := agent.RecordHook(u.store, name, iteration, detail); err != nil {
		u.t.Errorf("report %s: %v", event, err)
	}
}

// claudeHooked is a Claude Code that reports its start, takes input once
// bracketed paste is on, and at work does what turn does.
func (u *unit) claudeHooked(turn func(t *tmuxfake.Term)) *tmuxfake.Program {
	p := repl(func(t *tmuxfake.Term, _ string) {
		t.Write("* working (esc to interrupt)")
		turn(t)
	})
	p.Start = func(t *tmuxfake.Term) {
		t.Write("  ? for shortcuts\n")
		u.report(t, "SessionStart", "")
		t.Raw("\x1b[?2004h")
		t.Write("> ")
	}
	return p
}

func TestUnitAFailedTurnByHookIsAFailure(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	ev := u.hooked()
	u.launch(func(int) *tmuxfake.Program {
		return u.claudeHooked(func(*tmuxfake.Term) {
			u.plan(300*time.Millisecond, func(t *tmuxfake.Term) {
				u.report(t, "StopFailure", `{"error":"server_error","error_details":"500 Internal Server Error"}`)
			})
		})
	})
	u.cfg.Agent.IdleGrace = 0
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitFailed, "max_iterations") // both turns failed: not done
	u.wantOutput("iteration 1 failed (API error: 500 Internal Server Error), retrying in 1s (attempt 1/5)")
	if st := u.state(); st.TotalFailures != 2 {
		t.Errorf("total failures %d, want 2", st.TotalFailures)
	}
	if !ev.has(1, contract.EventTurnFailed, contract.ViaHook) {
		t.Errorf("no turn-failed event; events: %s", ev)
	}
}

func TestUnitARateLimitByHookWaitsAndIsNoFailure(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	u.hooked()
	u.launch(func(n int) *tmuxfake.Program { // the first start meets the limit; after the wait the agent works
		return u.claudeHooked(func(*tmuxfake.Term) {
			u.plan(300*time.Millisecond, func(t *tmuxfake.Term) {
				if n == 1 {
					u.report(t, "StopFailure", `{"error":"rate_limit","error_details":"429 rate limited"}`)
					return
				}
				u.report(t, "Stop", "")
			})
		})
	})
	u.cfg.MinLimitWait = time.Nanosecond // the reset, not a minute
	u.cfg.Agent.IdleGrace = 0
	u.cfg.LimitWait = 2 * time.Second
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantOutput("usage limit reached (429 rate limited)", "iteration 1 completed (turn ended")
	if st := u.state(); st.TotalFailures != 0 {
		t.Errorf("a rate limit counted as a failure: %+v", st)
	}
}

// A permission the agent asks for by its hook shows as needs-input even
// when its screen draws a dialog no profile knows; the question is not
// inactivity, and the dialog timeout restarts it.
func TestUnitAPermissionReportedByHookNeedsInput(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	ev := u.hooked()
	var asking string
	u.launch(func(int) *tmuxfake.Program {
		return u.claudeHooked(func(*tmuxfake.Term) {
			u.plan(300*time.Millisecond, func(t *tmuxfake.Term) {
				u.report(t, "PermissionRequest", `{"tool_name":"Bash"}`)
				t.Clear() // the spinner gone, a dialog no profile knows
				t.Write("┃ A brand-new permission dialog\n┃ [allow] [deny]")
				u.schedule(3*time.Second, func() { asking, _, _ = u.tmux.PaneOption(u.cfg.Pane, contract.OptionState) })
			})
		})
	})
	u.cfg.InactivityTimeout = 2 * time.Second
	u.cfg.DialogTimeout = 4 * time.Second
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if asking != "needs-input" {
		t.Errorf("past the inactivity timeout the pane showed %q, want needs-input", asking)
	}
	u.wantOutput("the agent is asking a question", "question unanswered for 4s, restarting")
	if strings.Contains(u.out.String(), "inactivity timeout") {
		t.Errorf("a question counted as inactivity:\n%s", u.out.String())
	}
	if !ev.has(1, contract.EventDialog, contract.ViaHook) {
		t.Errorf("no dialog event by hook; events: %s", ev)
	}
}

// An agent in a sandbox cannot reach the watcher: its hooks never report.
// The screen ends its turns all the same, and the loop says once that it
// reads the screen from now on.
func TestUnitAHookThatNeverFiresFallsBackToTheScreenOnce(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	ev := u.hooked()
	u.launch(claudeScreen(func(*tmuxfake.Term, string) { // draws Claude's screen, runs no hook
		u.plan(time.Second, func(t *tmuxfake.Term) {
			t.Clear()
			t.Write("● Done with the work.\n  ? for shortcuts\n")
		})
	}))
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantOutput("iteration 1 completed (turn ended", "iteration 3 completed (turn ended")
	if n := strings.Count(u.out.String(), "hook did not report"); n != 1 {
		t.Errorf("the lost hook was told %d times, want once:\n%s", n, u.out.String())
	}
	if !ev.has(1, contract.EventFallback, contract.ViaScreen) || !ev.has(3, contract.EventTurnEnd, contract.ViaScreen) {
		t.Errorf("want a fallback in iteration 1 and turn ends by screen; events: %s", ev)
	}
	u.wantLog("[HOOK] iteration 1 the agent's turn-end hook did not report")
}

// Claude Code in a sandbox that cannot see the --settings file exits at
// once ("Settings file not found"). One failed iteration, said once, and the
// loop goes on without the hooks' arguments, by the screen.
func TestUnitAnAgentThatCannotStartWithItsHooksRunsWithoutThem(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	u.hooked()
	working := u.claudeWorking()
	u.launch(func(n int) *tmuxfake.Program {
		p := working(n)
		start := p.Start
		p.Start = func(t *tmuxfake.Term) {
			if len(t.Argv) > 2 && t.Argv[1] == "--settings" {
				t.Write("Error: Settings file not found: /sandbox" + t.Argv[2] + "\n")
				t.Exit(1)
				return
			}
			start(t)
		}
		return p
	})
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantOutput("running it without them from the next iteration", "iteration 1 failed (exit: 1 before it took the prompt)",
		"iteration 2 completed (turn ended", "iteration 3 completed (turn ended")
	if n := strings.Count(u.out.String(), "before it took input"); n != 1 {
		t.Errorf("the fallback was told %d times, want once:\n%s", n, u.out.String())
	}
}

// A wrapper script whose name is not the agent's gets nothing added: the
// loop says once that the hook is lost and how to get it back, and each
// turn ends by what the screen shows.
func TestUnitAnUnknownWrapperLosesTheHookOnceAndEndsTurnsByTheScreen(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	u.hooked()
	u.launch(u.claudeWorking())
	wrapper := filepath.Join(u.cfg.Dir, "mywrap")
	u.cfg.Command = []string{wrapper, "claude.script"}
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	u.wantOutput("iteration 1 completed (turn ended", "iteration 2 completed (turn ended")
	warning := "ralph-watch: warning: cannot add Claude Code's hooks to '" + wrapper +
		"' (not claude's own program): the turn end is read from the screen; pass --settings FILE to claude yourself or run claude directly"
	if n := strings.Count(u.out.String(), "warning: cannot add"); n != 1 || !strings.Contains(u.out.String(), warning) {
		t.Errorf("want the warning once, got %d:\n%s", n, u.out.String())
	}
	if _, err := os.Stat(u.store.Path(agent.TurnEndFile)); err == nil {
		t.Errorf("a turn-end file, yet no hook was added")
	}
}

// Claude Code's Stop hook can come before a busy machine has drawn the
// reply, and the reply can come after a silence far longer than the pause
// the loop reads as the end of the output: while the screen still shows the
// agent working, the loop waits, and the done token it then draws is this
// iteration's.
func TestUnitAReplyDrawnLongAfterTheTurnEndHookIsThisIterations(t *testing.T) {
	u := newUnit(t, "do the work", nil)
	ev := u.hooked()
	u.launch(func(int) *tmuxfake.Program {
		return u.claudeHooked(func(*tmuxfake.Term) {
			u.plan(300*time.Millisecond, func(t *tmuxfake.Term) { u.report(t, "Stop", "") })
			u.plan(1300*time.Millisecond, func(t *tmuxfake.Term) { // a second of silence, still at work
				t.Clear()
				t.Write("● All done.\nRALPH_DONE\n> ")
			})
		})
	})
	u.cfg.Agent.IdleGrace = 0
	u.cfg.MaxIterations = 2
	u.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE`)
	u.wantResult(u.run(), contract.ExitDone, "done_pattern")
	if !ev.has(1, contract.EventTurnEnd, contract.ViaHook) || !ev.has(1, contract.EventDone, contract.ViaStream) {
		t.Errorf("want the turn ended by the hook and the token read in iteration 1; events: %s", ev)
	}
	if len(u.started()) != 1 {
		t.Errorf("the agent started %d times, want once", len(u.started()))
	}
}
