package watch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// The watcher itself in the simulation (TestSimulatedLoops runs both with
// each seed): killed at any step, and a second loop started on its pane.

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
		if res := u.run(); res.Reason != "max_iterations" || res.Code != contract.ExitDone {
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

// simulateTwoLoops is the scenario "two loops, one pane": loop a claims its
// pane and runs; at a call drawn from the seed a second loop, b, is started
// on the same pane, half the time with --replace. Invariants: while a lives
// b is refused (exit 2, naming a); with --replace a is stopped first, and no
// call of a's reaches the pane after b's first; only one loop ever drives it.
func simulateTwoLoops(t *testing.T, seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x2100b))
	u := newUnit(t, "fix the next bug; then test\n", func(n int) *tmuxfake.Program {
		return repl(func(term *tmuxfake.Term, input string) { term.Write("fixed one bug\n"); term.Exit(0) })
	})
	u.cfg.MaxIterations = 3
	root := filepath.Dir(u.store.Dir)
	socket, _ := u.tmux.SocketPath()
	p, err := u.tmux.Pane(u.cfg.Pane)
	if err != nil {
		t.Fatal(err)
	}
	pane := control.PaneOf{Socket: socket, ServerPID: p.ServerPID, ID: p.ID}
	replace := rng.IntN(2) == 0
	startAt := 1 + rng.IntN(60)

	var mu sync.Mutex
	var drivers []string // who made each call naming the pane, in order
	calls := 0
	due := make(chan struct{})
	tagged := func(who string) *killable {
		return newKillable(u.tmux, func(string, ...string) bool {
			mu.Lock()
			defer mu.Unlock()
			drivers = append(drivers, who)
			if calls++; calls == startAt && who == "a" {
				close(due)
			}
			return false
		})
	}
	// A stop request wakes a's watcher by SIGUSR1 to its pid: this process.
	signals := make(chan os.Signal, 1)
	wake := make(chan os.Signal, 1)
	stop := make(chan struct{})
	signal.Notify(signals, syscall.SIGUSR1)
	defer func() { signal.Stop(signals); close(stop) }()
	go func() {
		for {
			select {
			case <-signals:
			case <-stop:
				return
			}
			select {
			case wake <- syscall.SIGUSR1:
			default:
			}
		}
	}()

	release, err := control.ClaimPane(root, pane, "unit", control.ClaimNew, io.Discard, clock.Real{})
	if err != nil {
		t.Fatalf("a's claim: %v", err)
	}
	if err := u.store.Lock(); err != nil {
		t.Fatal(err)
	}
	release()
	aDone := make(chan watch.Result, 1)
	a := &watch.Loop{Config: u.cfg, Tmux: tagged("a"), Store: u.store, Clock: u.vc, Out: &u.out, Err: &u.out, Wake: wake}
	go func() {
		res := a.Run(context.Background())
		u.store.Unlock() // its watcher exits
		aDone <- res
	}()
	var aRes watch.Result
	aEnded := false
	select {
	case <-due:
	case aRes = <-aDone:
		aEnded = true
	}
	describe := func() string {
		log, _ := os.ReadFile(u.store.Path(state.LogFile))
		return fmt.Sprintf("seed %d: b started at a's call %d, replace %v\nlog of a:\n%s\noutput:\n%s", seed, startAt, replace, log, u.out.String())
	}

	how := control.ClaimNew
	if replace {
		how = control.ClaimReplace
	}
	onLast := false // a was on its last iteration: its own end may come before the stop
	if st, err := u.store.Load(); err == nil {
		onLast = st.CurrentIteration >= u.cfg.MaxIterations
	}
	release, err = control.ClaimPane(root, pane, "b", how, io.Discard, clock.Real{})
	var refusal *control.Error
	switch {
	case err == nil:
		defer release()
	case errors.As(err, &refusal) && refusal.Code == contract.ExitUsage && strings.Contains(refusal.Msg, `is looped by "unit"`):
	default:
		t.Fatalf("b's claim: %v\n%s", err, describe())
	}
	if !aEnded && err == nil && !replace {
		t.Errorf("b took the pane while a was looping it\n%s", describe())
	}
	if err != nil && (aEnded || replace) {
		t.Errorf("b was refused (%v) with a ended %v, --replace %v\n%s", err, aEnded, replace, describe())
	}
	if err == nil && !aEnded {
		select { // taken over: a was stopped and its watcher is gone
		case aRes = <-aDone:
			aEnded = true
		case <-time.After(unitTimeout):
			t.Fatalf("b took the pane and a still runs\n%s", describe())
		}
		if aRes.Reason != contract.ReasonKilled && (!onLast || aRes.Reason != contract.ReasonMaxIterations) {
			t.Errorf("a, taken over, ended %s, want killed (or, on its last iteration, its own end)\n%s", aRes.Reason, describe())
		}
	}
	if err == nil { // b loops the pane
		storeB, err := state.Open(root, "b")
		if err != nil {
			t.Fatal(err)
		}
		cfg := u.cfg
		cfg.Name, cfg.MaxIterations = "b", 1
		b := &watch.Loop{Config: cfg, Tmux: tagged("b"), Store: storeB, Clock: u.vc, Out: &u.out, Err: &u.out}
		if res := b.Run(context.Background()); res.Reason != contract.ReasonMaxIterations {
			t.Errorf("b ended %s\n%s", res.Reason, describe())
		}
	} else if !aEnded {
		<-aDone
	}
	u.tmux.Close()
	mu.Lock()
	defer mu.Unlock()
	seenB := false
	for i, who := range drivers {
		seenB = seenB || who == "b"
		if seenB && who == "a" {
			t.Errorf("a called tmux on the pane (call %d) after b began driving it\n%s", i+1, describe())
			break
		}
	}
}
