package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

func TestASecondLoopOnALoopedPaneIsRefusedAndReplaceTakesItOver(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working\nquiet\n")
	pane := c.detach("a", append([]string{"--max-iterations", "5", "--"}, agent...)...)
	a := c.until("a", "iteration 1", func(st *state.State) bool { return st.CurrentIteration == 1 })
	tmuxtest.Eventually(t, 30*time.Second, "a's agent to work", func() bool { return strings.Contains(c.srv.Capture(pane), "working") })

	quick := c.srv.FakeAgent("quick", "ready\nread\nprint b works\nexit 0\n")
	second := append([]string{"run", "--detach", "-S", c.srv.Socket, "-t", pane, "--name", "b", "--restart-delay", "0", "--max-iterations", "1", "--"}, quick...)
	c.want(second, 2, "", fmt.Sprintf(`ralph-watch: error: pane %s is looped by "a" (ralph-watch stop a, or --replace to take it over)`, pane))
	if c.srv.Option(pane, "@ralph-name") != "a" || !alive(a.WatcherPID) {
		t.Fatalf("the refused start touched a's pane or watcher")
	}

	c.want(append([]string{"run", "--replace"}, second[1:]...), 0, "stopped loop a, which looped pane "+pane, "")
	if st := c.state("a"); st.Status != state.Stopped || alive(a.WatcherPID) {
		t.Errorf("a after the take-over: %s, watcher alive %v", st.Status, alive(a.WatcherPID))
	}
	b := c.until("b", "its end", func(st *state.State) bool { return st.ExitReason != nil })
	if b.PaneID != pane || *b.ExitReason != "max_iterations" {
		t.Errorf("b looped %s and ended %s", b.PaneID, *b.ExitReason)
	}
	// Ended, a and b hold the pane no more.
	tmuxtest.Eventually(t, 10*time.Second, "b's watcher to exit", func() bool { return !alive(b.WatcherPID) })
	c.want(append([]string{"run", "--detach", "-S", c.srv.Socket, "-t", pane, "--name", "c", "--max-iterations", "1", "--"}, quick...), 0, "looping pane", "")
}

// Two starts on one pane at the same moment: exactly one loops it.
func TestTwoStartsAtTheSameMomentOnOnePaneOneWins(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working\nquiet\n")
	for round := 0; round < 3; round++ {
		pane := c.srv.NewPane()
		var wg sync.WaitGroup
		codes := make([]int, 2)
		errs := make([]string, 2)
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("r%d-%d", round, i)
				codes[i], _, errs[i] = c.run(nil, append([]string{"run", "--detach", "-S", c.srv.Socket, "-t", pane, "--name", name,
					"--max-iterations", "3", "--"}, agent...)...)
			}()
		}
		wg.Wait()
		won, refused := 0, 0
		for i, code := range codes {
			switch {
			case code == 0:
				won++
			case code == 2 && strings.Contains(errs[i], "pane "+pane+" is looped by"):
				refused++
			default:
				t.Errorf("round %d, start %d: exit %d, stderr %q", round, i, code, errs[i])
			}
		}
		if won != 1 || refused != 1 {
			t.Fatalf("round %d: %d starts won, %d refused, want 1 and 1 (%q)", round, won, refused, errs)
		}
	}
}

// resume -t refuses a pane another live loop holds, and names it.
func TestResumeRefusesAPaneAnotherLoopHolds(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working\nquiet\n")
	held := c.detach("holder", append([]string{"--max-iterations", "3", "--"}, agent...)...)
	c.until("holder", "iteration 1", func(st *state.State) bool { return st.CurrentIteration == 1 })
	c.detach("moved", append([]string{"--max-iterations", "3", "--"}, agent...)...)
	st := c.until("moved", "iteration 1", func(st *state.State) bool { return st.CurrentIteration == 1 })
	c.srv.Must("kill-pane", "-t", st.PaneID)
	c.until("moved", "pane_closed", func(st *state.State) bool { return st.ExitReason != nil && *st.ExitReason == "pane_closed" })
	c.want([]string{"resume", "-t", held, "moved"}, 2, "",
		fmt.Sprintf(`ralph-watch: error: pane %s is looped by "holder" (ralph-watch stop holder first)`, held))
	if c.srv.Option(held, "@ralph-name") != "holder" {
		t.Errorf("the refused resume took the pane")
	}
}

// A loop started outside tmux holds the window it makes: a second loop
// is refused there too.
func TestTheNewWindowOfALoopStartedOutsideTmuxIsHeldToo(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working\nquiet\n")
	c.want(append([]string{"run", "--detach", "-S", c.srv.Socket, "--name", "outside", "--max-iterations", "3", "--"}, agent...), 0, "looping window ralph:outside", "")
	st := c.until("outside", "iteration 1", func(st *state.State) bool { return st.CurrentIteration == 1 && st.PaneID != "" })
	c.want(append([]string{"run", "--detach", "-S", c.srv.Socket, "-t", st.PaneID, "--name", "inside", "--max-iterations", "1", "--"}, agent...),
		2, "", fmt.Sprintf(`pane %s is looped by "outside"`, st.PaneID))
}
