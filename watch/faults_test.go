package watch_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// Faults a loop left overnight meets: each must end the loop with a clear
// reason on record, or be survived with the state still right.

func TestAKilledWindowOrSessionEndsTheLoopAsPaneClosed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		kill func(h *harness)
	}{
		{"window killed", func(h *harness) { _, _ = h.srv.Tmux("kill-window", "-t", h.cfg.Pane) }},
		{"session killed", func(h *harness) { _, _ = h.srv.Tmux("kill-session", "-t", "main") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, "go", nil)
			h.srv.Must("new-session", "-d", "-s", "other") // the server outlives the session
			h.cfg.Command = h.agent("ready\nread\nprint busy\nquiet\n")
			go func() {
				tmuxtest.Eventually(t, 30*time.Second, "the agent to work", func() bool {
					return strings.Contains(h.srv.Capture(h.cfg.Pane), "busy")
				})
				tc.kill(h)
			}()
			h.wantResult(h.run(30*time.Second), contract.ExitFailed, "pane_closed")
			h.wantOutput("ralph-watch: error: pane " + h.cfg.Pane + " was closed")
			if st := h.state(); st.Status != state.Failed || st.CurrentIteration != 1 {
				t.Errorf("state %s at iteration %d, want failed at 1", st.Status, st.CurrentIteration)
			}
			if log := readLog(t, h); !strings.Contains(log, "[START] iteration 1/3") {
				t.Errorf("iterations.log:\n%s", log)
			}
		})
	}
}

func TestAnAgentPrintingGarbageOrFloodsIsWatchedToTheEnd(t *testing.T) {
	t.Parallel()
	// The floods are 1 MB and half a second in make test (the endless line
	// keeps both cores busy while it runs), 10 MB and 3 s in make soak.
	mb, endless := atSoak(1, 10), atSoak(500*time.Millisecond, 3*time.Second)
	for _, tc := range []struct {
		name, script string
		timeout      time.Duration
		reason       string
		code         int
	}{
		{fmt.Sprintf("%d MB of random bytes at once, then the token", mb), fmt.Sprintf(`head -c %d /dev/urandom; printf '\033\\\n'; echo RALPH_DONE_7`, mb<<20), 0, "done_pattern", contract.ExitDone},
		{"invalid UTF-8 and stray escapes", `printf '\377\376\300\200 \033]0;title \033[31m \033]8;;x\033\\ \033P\033[?1049h\n'; printf '\303\n'; echo RALPH_DONE_7`, 0, "done_pattern", contract.ExitDone},
		{"an endless line", `yes RALPH_DONE_ | tr -d '\n'`, endless, "max_iterations", contract.ExitLimit},
		{fmt.Sprintf("%d MB in one line", mb), fmt.Sprintf(`head -c %d /dev/zero | tr '\0' x; exit 0`, mb<<20), 0, "max_iterations", contract.ExitLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, "go", nil)
			h.cfg.Command = []string{"/bin/sh", "-c", tc.script}
			h.cfg.PromptMode = agent.ModeStdin
			h.cfg.MaxIterations = 2
			h.cfg.IterationTimeout = tc.timeout
			h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
			res := h.run(120 * time.Second)
			h.wantResult(res, tc.code, tc.reason)
			st := h.state()
			want := 2
			if tc.reason == "done_pattern" {
				want = 1
			}
			if st.CurrentIteration != want || st.ExitReason == nil || *st.ExitReason != tc.reason {
				t.Errorf("ended at iteration %d with %v, want %d with %s", st.CurrentIteration, st.ExitReason, want, tc.reason)
			}
			if n := strings.Count(readLog(t, h), "[START]"); n != want {
				t.Errorf("%d iterations logged, want %d", n, want)
			}
		})
	}
}

func TestNoChildOfTheAgentIgnoringHangupsOutlivesTheLoop(t *testing.T) {
	t.Parallel()
	agent := "ignore HUP TERM\nchild\nready\nread\n"
	for _, tc := range []struct {
		name, script, reason string
		end                  func(h *harness)
	}{
		{"the agent exits", agent + "exit 0\n", "max_iterations", nil},
		{"the pane is closed", agent + "quiet\n", "pane_closed", func(h *harness) { _, _ = h.srv.Tmux("kill-pane", "-t", h.cfg.Pane) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, "go", nil)
			h.cfg.Command = h.agent(tc.script)
			h.cfg.MaxIterations = 2
			h.cfg.InactivityTimeout = 2 * time.Second
			if tc.end != nil {
				h.cfg.MaxIterations = 1
				go func() {
					tmuxtest.Eventually(t, 30*time.Second, "the child to start", func() bool {
						return strings.Contains(h.srv.Capture(h.cfg.Pane), "child pid")
					})
					tc.end(h)
				}()
			}
			res := h.run(60 * time.Second)
			if string(res.Reason) != tc.reason {
				t.Fatalf("loop ended %+v, want %s; output:\n%s", res, tc.reason, h.out.String())
			}
			// The loop has ended: nothing it started may be left.
			tmuxtest.Eventually(t, 30*time.Second, "the agents' children to be gone", func() bool {
				return len(processesOf(t, "RALPH_NAME=test", h.srv.Dir)) == 0
			})
		})
	}
}

func readLog(t *testing.T, h *harness) string {
	t.Helper()
	data, err := os.ReadFile(h.store.Path(state.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
