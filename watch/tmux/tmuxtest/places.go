package tmuxtest

import (
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The real agents (Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI)
// are Node and Bun programs that keep a core busy while they start (OpenCode
// about 10 s of CPU a start): more of them at once than the machine carries
// slows each past its timeouts. Their tests hold places: AgentPlaces of
// them (RALPH_TEST_AGENTS, else DefaultAgentPlaces) shared by every test
// process on the machine (go test runs packages side by side), as the locks
// of the place (placeLock).

// DefaultAgentPlaces is how many real agents run at once, in all test
// processes together, unless RALPH_TEST_AGENTS says. With 4, a 2-core CI
// machine starved an agent past its timeouts in one run of three.
const DefaultAgentPlaces = 3

// AgentPlaces is how many real agents the tests may run at once.
func AgentPlaces() int {
	if n, err := strconv.Atoi(os.Getenv("RALPH_TEST_AGENTS")); err == nil && n > 0 {
		return n
	}
	return DefaultAgentPlaces
}

var (
	heldMu sync.Mutex
	held   = map[testing.TB]bool{}
	gather sync.Mutex // held by the one test taking several places
)

// HoldAgentPlaces waits until n places are free for the test's real agents
// (n: how many it runs at once) and holds them until the test ends. A test
// holds places once: a later call of the same test returns at once, so
// that a test starting its runs one after another never waits on itself.
func HoldAgentPlaces(t testing.TB, n int) {
	t.Helper()
	heldMu.Lock()
	if held[t] {
		heldMu.Unlock()
		return
	}
	held[t] = true
	heldMu.Unlock()
	total := AgentPlaces()
	n = min(n, total)
	asked := time.Now()
	defer func() {
		// go test counts the wait in the test's time: say how much it was.
		if waited := time.Since(asked); waited >= time.Second {
			t.Logf("waited %s for %d of the %d places of real agents", waited.Round(time.Second), n, total)
		}
	}()
	if n > 1 {
		// Places come one at a time, each kept: one taker of several at a
		// time in this process, so that takers of one, which come and go,
		// never starve it, and two takers of several never wait on each other.
		gather.Lock()
		defer gather.Unlock()
	}
	var locks []placeLock
	for len(locks) < n {
		got := false
		for i := 0; i < total && len(locks) < n; i++ {
			if l, ok := tryPlace(i); ok {
				locks, got = append(locks, l), true
			}
		}
		if !got {
			time.Sleep(time.Duration(100+rand.IntN(200)) * time.Millisecond)
		}
	}
	t.Cleanup(func() {
		for _, l := range locks {
			l.release()
		}
		heldMu.Lock()
		delete(held, t)
		heldMu.Unlock()
	})
}
