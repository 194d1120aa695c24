package watch_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// The simulation's hardest moments on the installed tmux: the agent is
// killed at a random moment of delivery (before it is ready, between the
// paste and the Enter) and of its turn. After each trial the server lives
// and the iteration ended normally or as a failure, never anything else.
func TestAgentsKilledAtRandomMomentsNeverTakeTheServerDown(t *testing.T) {
	t.Parallel()
	servers, trials := atSoak(2, 5), 10 // 20 trials on two servers side by side in make test, 50 on five in make soak
	for s := 0; s < servers; s++ {
		t.Run("server"+strconv.Itoa(s), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(s), 42))
			h := newHarness(t, "fix the next bug;\nthen test\n", nil)
			normal := h.agent("ready\nread\necho\nprint working on it\nsleep 400ms\nprint done for now\nexit 0\n")
			h.cfg.ReadyPattern = regexp.MustCompile(`❯`)
			h.cfg.MaxIterations, h.cfg.RestartDelay = 1, 0
			killed := 0
			for trial := 0; trial < trials; trial++ {
				// 0: killed after a random while; 1: killed once the prompt shows,
				// before its Enter; 2: it exits by itself a moment after it is
				// ready (while the loop pastes); 3: left alone.
				mode := rng.IntN(4)
				delay := time.Duration(rng.IntN(900)) * time.Millisecond
				h.cfg.Command = normal
				if mode == 2 {
					delay = time.Duration(rng.IntN(250)) * time.Millisecond
					h.cfg.Command = h.srv.FakeAgent("early", fmt.Sprintf("ready\nsleep %dms\nexit 1\n", delay.Milliseconds()))
				}
				stop := make(chan struct{})
				done := make(chan bool, 1)
				go func() { done <- killAgent(h, mode, delay, stop) }()
				res := h.run(60 * time.Second)
				close(stop)
				if <-done {
					killed++
				}
				if out, err := h.srv.Tmux("list-sessions"); err != nil {
					t.Fatalf("trial %d (mode %d, %s): the tmux server is gone: %v %s\n%s", trial, mode, delay, err, out, h.out.String())
				}
				log, _ := os.ReadFile(h.store.Path(state.LogFile))
				last := lastIterationEnd(string(log))
				if !regexp.MustCompile(`\[END\] iteration 1 exit=0|\[FAIL\] iteration 1 exit=(1|137|143|129) `).MatchString(last) {
					t.Errorf("trial %d (mode %d, %s): the iteration ended %q\n%s", trial, mode, delay, last, h.out.String())
				}
				if strings.Contains(last, "[FAIL]") {
					h.wantResult(res, contract.ExitFailed, "max_iterations") // its one iteration failed: not done
				} else {
					h.wantResult(res, contract.ExitDone, "max_iterations")
				}
				_ = os.Remove(h.store.Path(state.LogFile))
				h.out.Reset()
			}
			if killed == 0 {
				t.Errorf("no agent was killed in %d trials: the test tested nothing", trials)
			}
		})
	}
}

// killAgent kills the pane's agent (the wrapper's children) after delay, or
// once the prompt shows in the pane (mode 1), unless stop comes first;
// it reports whether it killed one.
func killAgent(h *harness, mode int, delay time.Duration, stop <-chan struct{}) bool {
	if mode >= 2 {
		return mode == 2
	}
	deadline := time.After(delay)
	for {
		select {
		case <-stop:
			return false
		case <-time.After(5 * time.Millisecond):
		}
		if mode == 1 && !strings.Contains(h.srv.Capture(h.cfg.Pane), "then test") {
			continue
		}
		if mode == 0 {
			select {
			case <-deadline:
			default:
				continue
			}
		}
		p, err := h.srv.Client.Pane(h.cfg.Pane)
		if err != nil || p.Dead {
			continue
		}
		kids, _ := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/task/" + strconv.Itoa(p.PID) + "/children")
		n := 0
		for _, kid := range strings.Fields(string(kids)) {
			if pid, err := strconv.Atoi(kid); err == nil && syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
		if n > 0 {
			return true
		}
	}
}

// lastIterationEnd is the log's last [END] or [FAIL] line.
func lastIterationEnd(log string) string {
	var last string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "[END] iteration ") || strings.Contains(line, "[FAIL] iteration ") { // not the loop's own end
			last = line
		}
	}
	return last
}
