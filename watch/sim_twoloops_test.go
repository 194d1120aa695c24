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
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

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
	release, err = control.ClaimPane(root, pane, "b", how, io.Discard, clock.Real{})
	var refusal *control.Error
	switch {
	case err == nil:
		defer release()
	case errors.As(err, &refusal) && refusal.Code == words.ExitUsage && strings.Contains(refusal.Msg, `is looped by "unit"`):
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
		if aRes.Reason != words.ReasonKilled {
			t.Errorf("a, taken over, ended %s, want killed\n%s", aRes.Reason, describe())
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
		if res := b.Run(context.Background()); res.Reason != words.ReasonMaxIterations {
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
