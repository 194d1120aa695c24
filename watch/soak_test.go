package watch_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// requireSoak skips a soak test unless RALPH_SOAK=1 (make soak, which CI
// runs after make test): it takes minutes, and it measures the whole test
// process, so it runs alone.
func requireSoak(t *testing.T) {
	t.Helper()
	if os.Getenv("RALPH_SOAK") != "1" {
		t.Skip("a soak test: make soak runs it")
	}
}

// atSoak is full under make soak (RALPH_SOAK=1) and quick otherwise: a
// load test's size, smaller in make test, whole where CI runs it.
func atSoak[T any](quick, full T) T {
	if os.Getenv("RALPH_SOAK") == "1" {
		return full
	}
	return quick
}

// usage is what the test process holds at one moment.
type usage struct {
	fds, goroutines int
	rssKB           int64
}

// steady is a measure without what a tmux call being started holds for a
// moment (its pipes, a pidfd): the least of five looks 5 ms apart. A leak
// stays in all five.
func steady() usage {
	u := measure()
	for i := 0; i < 4; i++ {
		time.Sleep(5 * time.Millisecond)
		u.fds = min(u.fds, measure().fds)
	}
	return u
}

func measure() usage {
	fds, _ := os.ReadDir("/proc/self/fd")
	u := usage{fds: len(fds), goroutines: runtime.NumGoroutine()}
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			u.rssKB, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	return u
}

func TestAThousandQuickIterationsLeakNothing(t *testing.T) {
	requireSoak(t)
	n := 1000
	h := newHarness(t, "go", []string{"true"})
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.MaxIterations = n
	h.cfg.RestartDelay = 0
	runtime.GC()
	before := measure()

	// Sample while the loop runs; compare the first tenth with the last: a
	// leak grows from one to the other, and stays in every look. The least
	// of each tenth's looks is compared: the most catches whatever tmux
	// calls are in flight (a run of 1,000 iterations saw 12 fds at most
	// early, 17 late, 8 at the end).
	var mu sync.Mutex
	var early, late usage                     // the most of each tenth, for the report
	earlyLeast, lateLeast := usage{}, usage{} // the least
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			st, err := h.store.Load()
			if err != nil {
				continue
			}
			u := steady()
			mu.Lock()
			var into, least *usage
			switch {
			case st.CurrentIteration <= n/10:
				into, least = &early, &earlyLeast
			case st.CurrentIteration > n-n/10:
				into, least = &late, &lateLeast
			default:
				mu.Unlock()
				continue
			}
			if least.fds == 0 || u.fds < least.fds {
				least.fds = u.fds
			}
			if least.goroutines == 0 || u.goroutines < least.goroutines {
				least.goroutines = u.goroutines
			}
			into.fds, into.goroutines, into.rssKB = max(into.fds, u.fds), max(into.goroutines, u.goroutines), max(into.rssKB, u.rssKB)
			mu.Unlock()
		}
	}()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(n)*time.Second)
	defer cancel()
	res := h.loop(nil).Run(ctx)
	took := time.Since(start)
	close(stop)
	<-sampled
	h.wantResult(res, contract.ExitDone, "max_iterations")
	st := h.state()
	if st.CurrentIteration != n || st.TotalFailures != 0 || len(st.IterationDurations) != n {
		t.Errorf("ran %d iterations, %d failures, %d durations; want %d, 0, %d", st.CurrentIteration, st.TotalFailures, len(st.IterationDurations), n, n)
	}
	if got := strings.Count(readLog(t, h), "[END] iteration "); got != n {
		t.Errorf("%d iterations logged as ended, want %d", got, n)
	}
	// Goroutines of the loop end with it; give the exec reapers a moment.
	var after usage
	for i := 0; i < 40; i++ {
		runtime.GC()
		if after = measure(); after.goroutines <= before.goroutines && after.fds <= before.fds {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	report := fmt.Sprintf("%d iterations in %s (%.1f ms each); fds %d -> early %d-%d, late %d-%d -> %d; goroutines %d -> early max %d, late max %d -> %d; RSS %d -> early max %d, late max %d -> %d KB",
		n, took.Round(time.Millisecond), float64(took.Milliseconds())/float64(n),
		before.fds, earlyLeast.fds, early.fds, lateLeast.fds, late.fds, after.fds, before.goroutines, early.goroutines, late.goroutines, after.goroutines,
		before.rssKB, early.rssKB, late.rssKB, after.rssKB)
	t.Log(report)
	fmt.Println("soak:", report)
	if after.fds > before.fds {
		t.Errorf("file descriptors leaked: %d before, %d after", before.fds, after.fds)
	}
	if after.goroutines > before.goroutines {
		t.Errorf("goroutines leaked: %d before, %d after", before.goroutines, after.goroutines)
	}
	if earlyLeast.fds > 0 && lateLeast.fds > earlyLeast.fds+4 {
		t.Errorf("file descriptors grew while looping: at least %d early, %d late", earlyLeast.fds, lateLeast.fds)
	}
	if earlyLeast.goroutines > 0 && lateLeast.goroutines > earlyLeast.goroutines+4 {
		t.Errorf("goroutines grew while looping: at least %d early, %d late", earlyLeast.goroutines, lateLeast.goroutines)
	}
	if early.rssKB > 0 && late.rssKB > early.rssKB+32<<10 {
		t.Errorf("memory grew while looping: %d KB early, %d KB late", early.rssKB, late.rssKB)
	}
}
