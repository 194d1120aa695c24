package watch_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// Counts say what ran: a prompt file deleted during iteration 1 ends the
// loop "after 1 iteration", not after the one that could not start.
func TestUnitALostPromptFileCountsTheIterationsThatRan(t *testing.T) {
	var u *unit
	u = newUnit(t, "go", func(int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, input string) {
			os.Remove(u.cfg.PromptFile)
			t.Exit(0)
		})
	})
	u.cfg.MaxIterations = 5
	u.wantResult(u.run(), watch.ExitFailed, "prompt_file_missing")
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
	if reason, _, _ := u.tmux.PaneOption(u.cfg.Pane, watch.OptionReason); !strings.HasPrefix(reason, "prompt_file_missing: prompt file not found: ") {
		t.Errorf("@ralph-reason = %q, want the code word and its sentence", reason)
	}
}
