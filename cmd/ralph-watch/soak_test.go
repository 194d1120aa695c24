package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

func TestFiftyLoopsAtOnceOnOneServerKeepTheirOwnState(t *testing.T) {
	if os.Getenv("RALPH_SOAK") != "1" {
		t.Skip("a soak test: make soak runs it")
	}
	loops, iterations := 50, 20
	c := newCLI(t)
	panes := map[string]string{}
	cmds := make([]*exec.Cmd, loops)
	outs := make([]*bytes.Buffer, loops)
	start := time.Now()
	for i := range cmds {
		name := fmt.Sprintf("many-%02d", i)
		pane := c.srv.NewPane()
		panes[name] = pane
		cmds[i] = c.command(nil, "run", "-S", c.srv.Socket, "-t", pane, "--name", name, "--prompt-mode", "arg",
			"--max-iterations", strconv.Itoa(iterations), "--restart-delay", "0", "--", "sh", "-c", `echo "$RALPH_NAME $RALPH_ITERATION"`)
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("many-%02d: %v\n%s", i, err, outs[i])
			}
		case <-time.After(5 * time.Minute):
			for _, c := range cmds {
				c.Process.Kill()
			}
			t.Fatalf("many-%02d still running after 5 minutes", i)
		}
	}
	took := time.Since(start)
	seen := map[string]bool{}
	for name, pane := range panes {
		st := c.state(name)
		if st.WorkerName != name || st.PaneID != pane || st.CurrentIteration != iterations || st.ExitReason == nil ||
			*st.ExitReason != "max_iterations" || st.TotalFailures != 0 || st.TmuxSocket != c.srv.Socket {
			t.Errorf("%s: %+v", name, st)
		}
		if seen[st.PaneID] {
			t.Errorf("%s: pane %s looped twice", name, st.PaneID)
		}
		seen[st.PaneID] = true
		log := c.log(name)
		if n := strings.Count(log, "[START]"); n != iterations {
			t.Errorf("%s: %d iterations logged, want %d:\n%s", name, n, iterations, log)
		}
		if got := c.srv.Option(pane, "@ralph-name"); got != name {
			t.Errorf("pane %s shows loop %q, want %s", pane, got, name)
		}
		// Its own output, no other loop's. (Under fifty loops at once tmux now
		// and then leaves the last line of a process that exits at once
		// undrawn, though its exit is read: the state above is checked whole.)
		tmuxtest.Eventually(t, 10*time.Second, name+"'s output on its pane", func() bool {
			return strings.Contains(c.srv.Capture(pane), name+" ")
		})
		for _, line := range strings.Split(c.srv.Capture(pane), "\n") {
			if strings.HasPrefix(line, "many-") && !strings.HasPrefix(line, name+" ") {
				t.Errorf("pane %s of %s shows another loop's output: %q", pane, name, line)
			}
		}
	}
	report := fmt.Sprintf("%d loops of %d iterations at once on one server in %s", loops, iterations, took.Round(time.Millisecond))
	t.Log(report)
	fmt.Println("soak:", report)
}
