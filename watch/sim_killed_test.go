package watch_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// simulateKilled is the scenario "watcher killed at each step": agents
// drawn from the seed (ready late, echo or not, bracketed paste or not,
// exit after their turn or stay), the watcher killed (as kill -9, see
// killable) at a call drawn from the seed, any step of any iteration, then
// resumed. Invariants: each iteration's prompt is taken by its agents
// exactly once, and no iteration is recorded as ended that had none.
func simulateKilled(t *testing.T, seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x4b111))
	var (
		mu     sync.Mutex
		agents []simAgent
		taken  = map[int]int{} // iteration: prompts its agents took (pasted, then Enter)
	)
	u := newUnit(t, "fix the next bug; then test\n", nil)
	u.launch(func(n int) *tmuxfake.Program {
		a := simAgent{readyAt: rng.IntN(4), pasteOn: rng.IntN(2) == 0, echo: rng.IntN(2) == 0, dieAt: -1,
			reply: "plain", exitCode: []int{0, -1}[rng.IntN(2)]}
		mu.Lock()
		agents = append(agents, a)
		mu.Unlock()
		pending := false // a paste the agent read (simProgram drops one before it is ready)
		p := simProgram(a, n, func() bool { return false }, nil, func(int, string) { pending = true }, func(int, string) {}, func(int) {})
		key := p.Key
		p.Key = func(term *tmuxfake.Term, k string) {
			if k == "Enter" && pending && !term.Dead() { // simProgram's turn begins
				mu.Lock()
				taken[iterationOf(term)]++
				mu.Unlock()
				pending = false
			}
			key(term, k)
		}
		return p
	})
	u.cfg.MaxIterations = 3
	u.cfg.InactivityTimeout = time.Minute
	u.cfg.ReadyTimeout = 30 * time.Second
	killAt := 1 + rng.IntN(80)
	calls := 0
	k := newKillable(u.tmux, func(string, ...string) bool { calls++; return calls == killAt })
	dead := u.startKillable(k)
	var first string
	select {
	case <-k.killed:
	case res := <-dead:
		first = fmt.Sprintf("ended %s before the kill at call %d", res.Reason, killAt)
	case <-time.After(unitTimeout):
		t.Fatalf("seed %d: the watcher was neither killed nor ended", seed)
	}
	describe := func() string {
		mu.Lock()
		defer mu.Unlock()
		var b strings.Builder
		fmt.Fprintf(&b, "seed %d: watcher killed at call %d %s\n", seed, killAt, first)
		for i, a := range agents {
			fmt.Fprintf(&b, "  agent %d: %+v\n", i+1, a)
		}
		log, _ := os.ReadFile(u.store.Path(state.LogFile))
		return b.String() + "log:\n" + string(log) + "output:\n" + u.out.String()
	}
	if first == "" {
		u.cfg.Resume = true
		if res := u.run(); res.Reason != "max_iterations" || res.Code != words.ExitDone {
			t.Errorf("resumed loop ended %s (%d)\n%s", res.Reason, res.Code, describe())
		}
	}
	log, _ := os.ReadFile(u.store.Path(state.LogFile))
	current := u.state().CurrentIteration
	if first == "" { // the dead watcher goes on only now, to end its goroutines: what it writes is not checked
		k.release()
		<-dead
	}
	mu.Lock()
	took := map[int]int{}
	for n, c := range taken {
		took[n] = c
	}
	mu.Unlock()
	taken = took
	for n := 1; n <= current; n++ {
		if taken[n] != 1 {
			t.Errorf("iteration %d: its prompt was taken %d times, want once\n%s", n, taken[n], describe())
		}
	}
	for _, line := range strings.Split(string(log), "\n") {
		var n int
		if _, err := fmt.Sscanf(afterTag(line, "[END]"), "iteration %d", &n); err == nil && taken[n] == 0 {
			t.Errorf("iteration %d ended (%q) with no prompt taken\n%s", n, line, describe())
		}
	}
}

// iterationOf is the iteration an agent was started for, by its environment.
func iterationOf(term *tmuxfake.Term) int {
	n := 0
	for _, e := range term.Env {
		if v, ok := strings.CutPrefix(e, "RALPH_ITERATION="); ok {
			_, _ = fmt.Sscanf(v, "%d", &n)
		}
	}
	return n
}
