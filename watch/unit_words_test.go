package watch_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// Counts say what ran: a prompt file deleted during iteration 1 ends the
// loop "after 1 iteration", not after the one that could not start.
func TestUnitALostPromptFileCountsTheIterationsThatRan(t *testing.T) {
	var u *unit
	u = newUnit(t, "go", func(int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, input string) {
			_ = os.Remove(u.cfg.PromptFile)
			t.Exit(0)
		})
	})
	u.cfg.MaxIterations = 5
	u.wantResult(u.run(), contract.ExitFailed, "prompt_file_missing")
	var said []string
	for _, c := range u.tmux.Calls("message") {
		said = append(said, c.Args[0])
	}
	if !strings.Contains(strings.Join(said, "\n"), "failed (prompt_file_missing) after 1 iteration: prompt file not found: "+u.cfg.PromptFile) {
		t.Errorf("the person was told %q, want after 1 iteration", said)
	}
	if st := u.state(); st.CurrentIteration != 1 || !strings.HasPrefix(st.Error, "prompt file not found: ") {
		t.Errorf("state says iteration %d, error %q; want 1 and the sentence", st.CurrentIteration, st.Error)
	}
	// The popup lists @ralph-reason: the sentence is there too, not only its code word.
	if reason, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionReason); !strings.HasPrefix(reason, "prompt_file_missing: prompt file not found: ") {
		t.Errorf("@ralph-reason = %q, want the code word and its sentence", reason)
	}
}

// The watcher stops between the paste and the Enter (interrupted, or killed
// with the state saying so): the next watcher finds the prompt still in the
// input box and submits it, never pasting it twice.
func TestUnitAPromptLeftInTheInputBoxIsSubmittedByTheNextWatcher(t *testing.T) {
	var u *unit
	u = newUnit(t, "go", func(int) *tmuxfake.Program {
		p := repl(func(t *tmuxfake.Term, input string) {
			t.Write("went: " + input)
			t.Exit(0)
		})
		paste := p.Paste
		p.Paste = func(t *tmuxfake.Term, text string) {
			paste(t, text)
			u.mu.Lock()
			u.interrupt() // the watcher goes before its Enter
			u.mu.Unlock()
		}
		return p
	})
	u.wantResult(u.run(), contract.ExitInterrupted, "interrupted")
	// The interrupt races the typist's next step on the jumping clock: the
	// Enter may have gone first, and then nothing is pending.
	pending := u.state().PromptPending
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if got := u.pastes(); len(got) != 1 {
		t.Errorf("pasted %d times (%q), want once", len(got), got)
	}
	if got := u.tmux.Screen(u.cfg.Pane); strings.Count(got, "went: go") != 1 {
		t.Errorf("the agent had the prompt submitted %d times, want once; screen:\n%s", strings.Count(got, "went: go"), got)
	}
	if pending && !strings.Contains(u.out.String(), "the prompt is still in the input box; submitting it") {
		t.Errorf("output:\n%s", u.out.String())
	}
}

// A prompt file that turns into bytes that are not UTF-8 (each tmux types
// them mangled, each differently) pauses the loop before the iteration:
// the sentence in status, a note in the status line, nothing pasted; once
// the file is fixed, resume goes on.
func TestUnitAPromptThatIsNotUTF8PausesTheLoopAndNothingIsTyped(t *testing.T) {
	var u *unit
	u = newUnit(t, "go", func(int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, input string) {
			_ = os.WriteFile(u.cfg.PromptFile, []byte("do \377\376 task"), 0o644)
			t.Exit(0)
		})
	})
	u.cfg.MaxIterations = 3
	u.wantResult(u.run(), contract.ExitInterrupted, "paused")
	sentence := "prompt file " + u.cfg.PromptFile + " is not valid UTF-8 at byte 3"
	u.wantOutput(sentence, "pausing loop")
	u.wantLog("[END] iteration 1", "[PAUSE] loop paused reason=prompt_not_utf8")
	if got := u.pastes(); len(got) != 1 || got[0] != "go" {
		t.Errorf("pasted %q, want only the first iteration's prompt", got)
	}
	if st := u.state(); st.Status != state.Paused || st.CurrentIteration != 1 || st.Reason != sentence {
		t.Errorf("state says %s at iteration %d, reason %q; want paused at 1 with the sentence", st.Status, st.CurrentIteration, st.Reason)
	}
	if shown, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionStatus); !strings.HasSuffix(shown, " 1/3 prompt not UTF-8") {
		t.Errorf("@ralph-status = %q, want the note", shown)
	}
	if reason, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionReason); reason != sentence {
		t.Errorf("@ralph-reason = %q, want the sentence", reason)
	}
	if err := os.WriteFile(u.cfg.PromptFile, []byte("do the task"), 0o644); err != nil {
		t.Fatal(err)
	}
	u.launch(func(int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, input string) { t.Exit(0) })
	})
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if got := u.pastes(); len(got) != 3 || got[1] != "do the task" {
		t.Errorf("pasted %q, want the fixed prompt in iterations 2 and 3", got)
	}
}
