package watch_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// An agent that draws its reply a few letters at a time (Copilot CLI) has
// its done token read from its screen at the turn's end; the prompt's echo
// there does not count.
func TestUnitATypewriterAgentsDoneTokenIsReadFromItsScreen(t *testing.T) {
	const prompt = "Do the plan. When every task is finished, print RALPH_DONE on a line of its own."
	for _, c := range []struct {
		name   string
		reply  string
		reason string
	}{
		{"the reply holds the token", "All tasks complete.\n  RALPH_DO", "done_pattern"},
		{"only the echo holds it", "Still working on it.", "max_iterations"},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := newUnit(t, prompt, nil)
			u.simulate()
			u.launch(working(func(*tmuxfake.Term) {
				u.plan(10*time.Second, func(t *tmuxfake.Term) {
					t.Clear()
					t.Write("> " + prompt + "\n" + c.reply)
					if c.reason == "done_pattern" { // the rest of the token where the cursor is already
						t.Raw("\033[3;11H")
						t.Write("NE")
					}
					t.Write("\n>")
				})
			}))
			u.cfg.Agent = knownAgent()
			u.cfg.Agent.Typewriter = true
			u.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE`)
			u.cfg.InactivityTimeout = 10 * time.Minute
			code := map[string]int{"done_pattern": contract.ExitDone, "max_iterations": contract.ExitLimit}[c.reason]
			u.wantResult(u.run(), code, c.reason)
		})
	}
}
