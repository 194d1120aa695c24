package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// starts runs ralph-watch with each of args at the same moment and returns
// each one's exit status, stdout and stderr.
func (c *cli) starts(args ...[]string) (codes []int, stdouts, stderrs []string) {
	c.t.Helper()
	codes, stdouts, stderrs = make([]int, len(args)), make([]string, len(args)), make([]string, len(args))
	var wg sync.WaitGroup
	for i := range args {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], stdouts[i], stderrs[i] = c.run(nil, args[i]...)
		}()
	}
	wg.Wait()
	return codes, stdouts, stderrs
}

// Two runs of one name at the same moment on two panes: one loops, the
// other is refused before it says anything else.
func TestTwoRunsOfOneNameAtOnceOneIsRefusedBeforeItSaysAnything(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working\nquiet\n")
	for round := 0; round < 3; round++ {
		name := fmt.Sprintf("same-%d", round)
		var args [][]string
		for range 2 {
			args = append(args, append([]string{"run", "--detach", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", name, "--max-iterations", "3", "--"}, agent...))
		}
		codes, stdouts, stderrs := c.starts(args...)
		won, refused := 0, 0
		for i, code := range codes {
			switch {
			case code == 0 && strings.Contains(stdouts[i], "looping pane"):
				won++
			case code == 2 && stdouts[i] == "" && strings.Contains(stderrs[i], "loop '"+name+"' is already running"):
				refused++
			default:
				t.Errorf("round %d, start %d: exit %d, stdout %q, stderr %q", round, i, code, stdouts[i], stderrs[i])
			}
		}
		if won != 1 || refused != 1 {
			t.Fatalf("round %d: %d runs looped, %d refused, want 1 and 1", round, won, refused)
		}
		st := c.until(name, "its watcher to run", func(st *state.State) bool { return st.WatcherPID != 0 })
		if !alive(st.WatcherPID) {
			t.Errorf("round %d: the winner's watcher %d is gone", round, st.WatcherPID)
		}
		c.want([]string{"stop", "--kill", name}, 0, "", "")
	}
}

// Four runs on one plan in one folder at the same moment: one works it,
// the others are refused with the way to run several on a plan.
func TestASecondLoopOnAPlanAnotherWorksIsRefused(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "PLAN.md"), []byte("# Plan\n\n- [ ] One\n- [ ] Two\n- [ ] Three\n- [ ] Four\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint working\nquiet\n")
	var args [][]string
	for range 4 {
		args = append(args, append([]string{"run", "--detach", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--max-iterations", "3", "--tasks", "PLAN.md", "--"}, agent...))
	}
	codes, stdouts, stderrs := c.starts(args...)
	winner, refused := "", 0
	for i, code := range codes {
		switch {
		case code == 0 && winner == "":
			winner = stdouts[i][len("[ralph] "):strings.Index(stdouts[i], ":")]
		case code == 2 && stdouts[i] == "" && strings.Contains(stderrs[i], "is worked by loop") &&
			strings.Contains(stderrs[i], "ralph-watch fan --tasks PLAN.md") && strings.Contains(stderrs[i], "--replace"):
			refused++
		default:
			t.Errorf("start %d: exit %d, stdout %q, stderr %q", i, code, stdouts[i], stderrs[i])
		}
	}
	if winner == "" || refused != 3 {
		t.Fatalf("%q looped the plan and %d were refused, want one and 3; stderr %q", winner, refused, stderrs)
	}
	if !strings.Contains(strings.Join(stderrs, ""), `"`+winner+`"`) {
		t.Errorf("the refusals do not name the loop that works the plan (%s): %q", winner, stderrs)
	}
	// --replace stops the loop that works it, and takes it over.
	c.want(append([]string{"run", "--replace", "--detach", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "taker", "--max-iterations", "3", "--tasks", "PLAN.md", "--"}, agent...),
		0, "stopped loop "+winner+", which worked plan PLAN.md", "")
	running := func() (n int) {
		for _, e := range mustReadDir(t, filepath.Join(c.srv.Dir, "state")) {
			if st, err := os.ReadFile(filepath.Join(c.srv.Dir, "state", e, "state.json")); err == nil && strings.Contains(string(st), `"status": "running"`) {
				n++
			}
		}
		return n
	}
	// The one it stopped is stopped before run returns; the taker, detached, is running a moment later.
	if n := running(); n > 1 {
		t.Errorf("%d loops run on the plan after --replace, want 1", n)
	}
	tmuxtest.Eventually(t, 20*time.Second, "the taker running, alone on the plan", func() bool { return running() == 1 })
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
