package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// A watcher killed (kill -9) while iteration 2 starts, its agent slow to
// take input, then resumed: iteration 2's agent gets its prompt once, its
// turn is told by its hooks as ever, and no turn is counted that had no prompt.
func TestAWatcherKilledWhileAnIterationStartsIsResumedWithThePromptTypedOnceAndTheHooksKept(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	got := filepath.Join(c.srv.Dir, "prompts")
	agent := c.srv.FakeAgentAs("claude", "slow", `hook SessionStart {"source":"startup"}
iter 2 sleep 3s
print   ⏻ a footer no profile has seen
ready
read
append `+got+` iteration {{iteration}}
hook UserPromptSubmit {"prompt":"x"}
echo
spinner 300ms
print ● Done with iteration {{iteration}}.
hook Stop
quiet
`)
	c.detach("kept", append([]string{"--agent", "claude", "--max-iterations", "3", "--inactivity-timeout", "20s", "--"}, agent...)...)
	st := c.until("kept", "iteration 2 to start", func(st *state.State) bool { return st.CurrentIteration == 2 })
	syscall.Kill(st.WatcherPID, syscall.SIGKILL)
	tmuxtest.Eventually(t, 10*time.Second, "the watcher to die", func() bool { return !alive(st.WatcherPID) })
	if st := c.state("kept"); !st.PromptUntyped {
		t.Errorf("killed while iteration 2 started, the record does not say its prompt is untyped: %+v", st)
	}
	c.resumeToEnd("kept", 3, "[END] iteration 1 turn_end", "[END] iteration 2 turn_end", "[END] iteration 3 turn_end")
	prompts, _ := os.ReadFile(got)
	if string(prompts) != "iteration 1\niteration 2\niteration 3\n" {
		t.Errorf("the agents took prompts:\n%s\nwant each iteration's once", prompts)
	}
	if log := c.log("kept"); strings.Contains(log, "did not report") || strings.Contains(log, "without its hooks") {
		t.Errorf("the hooks were dropped:\n%s", log)
	}
}
