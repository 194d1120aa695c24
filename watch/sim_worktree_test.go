package watch_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// simulateWorktreePlan is the scenario "a worktree loop with a plan, paused
// and resumed, its watcher gone, killed or its server killed, and taken up
// again": a loop works through a plan in its worktree, with agents that
// take a while (drawn from the seed); at calls drawn from the seed the
// person pauses it, or its watcher goes away (interrupted) or is killed
// (kill -9) while the agent works, or the tmux server is killed, agent and
// all; each time it is resumed (after the server, restored: a new server, a
// new pane) by a watcher whose own guesses are the person's checkout (its
// folder and plan), as a watcher started from there would make them. Invariants: a
// resumed loop's settings equal its first; a task done is never given
// again; an iteration's change is what its agent changed; the checkout's
// plan is never touched.
func simulateWorktreePlan(t *testing.T, seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x3074))
	const planText = "- [ ] Alpha\n- [ ] Beta\n- [ ] Gamma\n"
	var (
		mu      sync.Mutex
		given   = map[int][]string{} // iteration: the tasks its agents were given
		changed = map[int]int{}      // iteration: the files its agent changed
		u       *unit
	)
	u = newUnit(t, "TASK=[{{task}}]\n", func(n int) *tmuxfake.Program {
		delay := []time.Duration{0, 2 * time.Second, 30 * time.Second, 90 * time.Second}[rng.IntN(4)]
		return &tmuxfake.Program{Start: func(term *tmuxfake.Term) {
			task := strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(term.Argv[len(term.Argv)-1], "TASK=["), "]\n"), "- [ ] ")
			it := iterationOf(term)
			mu.Lock()
			given[it] = append(given[it], task)
			mu.Unlock()
			work := func(term *tmuxfake.Term) {
				plan := filepath.Join(term.Dir, "PLAN.md")
				data, _ := os.ReadFile(plan)
				_ = os.WriteFile(plan, []byte(strings.Replace(string(data), "- [ ] "+task+"\n", "- [x] "+task+"\n", 1)), 0o644)
				_ = os.WriteFile(filepath.Join(term.Dir, fmt.Sprintf("work-%d", it)), []byte(task), 0o644)
				mu.Lock()
				changed[it] = 2
				mu.Unlock()
				term.Exit(0)
			}
			if delay == 0 {
				work(term)
				return
			}
			program := term.Starts()
			u.plan(delay, func(now *tmuxfake.Term) {
				if now == term && now.Starts() == program && !term.Dead() { // its own program, not a later one in the pane
					work(term)
				}
			})
		}}
	})
	u.simulate()
	checkout := u.cfg.Dir
	tree := filepath.Join(checkout, "worktree")
	for _, dir := range []string{checkout, tree} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "PLAN.md"), []byte(planText), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitInit(t, tree)
	u.cfg.Dir, u.cfg.Worktree, u.cfg.WorktreeBranch, u.cfg.WorktreeBase = tree, tree, "ralph/unit", "main"
	u.cfg.TasksFile = filepath.Join(tree, "PLAN.md")
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 8
	u.cfg.InactivityTimeout = 10 * time.Minute
	u.cfg.TaskAttempts = 2
	wake := make(chan os.Signal, 1)
	u.wake = wake

	// The person acts at calls drawn from the seed: pause, the watcher goes
	// (interrupted), is killed (kill -9: it stops at that call, with no
	// goodbye), or the server is killed with the agent in it (then restore).
	acts := make([]string, 1+rng.IntN(3))
	for i := range acts {
		acts[i] = []string{"pause", "go", "kill", "restore"}[rng.IntN(4)]
	}
	actAt := 3 + rng.IntN(15)
	calls, acting := 0, -1
	act := func(string, ...string) (kill bool) {
		if calls++; acting < 0 || calls != actAt {
			return false
		}
		switch acts[acting] {
		case "pause":
			_ = u.store.Request(state.RequestPause)
			select {
			case wake <- syscall.SIGUSR1:
			default:
			}
		case "go":
			u.mu.Lock()
			stop := u.interrupt
			u.mu.Unlock()
			go stop() // as the watcher's SIGINT: it leaves, the agent runs on
		case "kill", "restore":
			if u.iteration() == 0 || !loopsOwnCall() { // no record yet, or a call of a side goroutine the kill would not stop the loop at
				actAt++
				return false
			}
			if acts[acting] == "restore" {
				u.tmux.StopServer()
			}
			return acts[acting] == "kill"
		}
		return false
	}
	var killed []*killable // dead watchers, blocked for ever at their last call
	var dead []<-chan watch.Result
	defer func() { // let them end once checked: what they write then is not
		for i, k := range killed {
			k.release()
			<-dead[i]
		}
	}()
	// watcher runs a watcher to its end; alive is false when it was killed.
	watcher := func() (res watch.Result, alive bool) {
		k := newKillable(u.tmux, act)
		done := make(chan watch.Result, 1)
		go func() { res, _ := u.runOn(k, k.killed, unitTimeout); done <- res }()
		select {
		case res = <-done:
			return res, true
		case <-k.killed:
			killed, dead = append(killed, k), append(dead, done)
			return watch.Result{}, false
		case <-time.After(unitTimeout):
			t.Fatalf("seed %d: the watcher neither ended nor was killed; output:\n%s", seed, u.out.String())
			return
		}
	}
	describe := func() string {
		log, _ := os.ReadFile(u.store.Path(state.LogFile))
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprintf("seed %d: acts %v, the last at call %d; given %v, changed %v\nlog:\n%s\noutput:\n%s", seed, acts, actAt, given, changed, log, u.out.String())
	}

	acting = 0
	res, alive := watcher()
	first := u.state().Settings
	moved := false // restore gave the loop a new pane: the one setting it changes
	for n := 1; n < 6 && (!alive || res.Reason == contract.ReasonPaused || res.Reason == contract.ReasonInterrupted || res.Reason == contract.ReasonServerGone); n++ {
		if alive && res.Reason == contract.ReasonServerGone {
			u.restore(tree)
			moved = true
		}
		if acting++; acting >= len(acts) {
			acting = -1 // the person is done acting
		} else {
			calls, actAt = 0, 3+rng.IntN(15)
		}
		// A watcher started from the checkout guesses its folder and plan
		// there (restore too starts it where the first was started).
		u.cfg.Resume = true
		u.cfg.Dir, u.cfg.TasksFile, u.cfg.Worktree, u.cfg.WorktreeBranch, u.cfg.WorktreeBase = checkout, filepath.Join(checkout, "PLAN.md"), "", "", ""
		res, alive = watcher()
		if !alive {
			continue
		}
		now := u.state().Settings
		for name, was := range first {
			if name != "Resume" && (name != "Pane" || !moved) && now[name] != was {
				t.Errorf("resumed (%d): the setting %s is %q, was %q\n%s", n, name, now[name], was, describe())
			}
		}
	}
	if !alive {
		t.Fatalf("the last watcher was killed and none took the loop up\n%s", describe())
	}
	if len(first) != reflect.TypeOf(watch.Config{}).NumField() {
		t.Errorf("the first start recorded %d settings, Config has %d fields", len(first), reflect.TypeOf(watch.Config{}).NumField())
	}
	st := u.state()
	if res.Reason != contract.ReasonTasksDone {
		t.Errorf("ended %s, want tasks_done\n%s", res.Reason, describe())
	}
	// A task done is never given again.
	mu.Lock()
	givenNow, changedNow := map[int][]string{}, map[int]int{}
	for it, tasks := range given {
		givenNow[it] = append([]string(nil), tasks...)
	}
	for it, n := range changed {
		changedNow[it] = n
	}
	mu.Unlock()
	if st.Tasks != nil {
		for _, item := range st.Tasks.Items {
			for _, v := range item.Verdicts {
				if v.Verdict != "done" {
					continue
				}
				for it, tasks := range givenNow {
					for _, task := range tasks {
						if it > v.Iteration && task == item.Title {
							t.Errorf("task %s, done in iteration %d, was given again in iteration %d\n%s", item.Title, v.Iteration, it, describe())
						}
					}
				}
			}
		}
	}
	// An iteration's change is what its agent changed, whichever watcher saw it end.
	rs, _ := receipt.Load(u.store.Path(state.ReceiptsFile))
	for _, r := range rs {
		if r.Changes.Files != changedNow[r.Iteration] {
			t.Errorf("iteration %d's receipt says %d files changed, its agent changed %d\n%s", r.Iteration, r.Changes.Files, changedNow[r.Iteration], describe())
		}
	}
	if data, _ := os.ReadFile(filepath.Join(checkout, "PLAN.md")); string(data) != planText {
		t.Errorf("the checkout's plan changed: %q\n%s", data, describe())
	}
}

// restore does for a loop whose server was killed what restore does
// (control.Rearm.revive): a new server, a window for the loop in its folder,
// and its record moved there, the iteration the kill cut short over; then
// the watcher started with the loop's arguments takes it up on that pane.
func (u *unit) restore(dir string) {
	u.t.Helper()
	u.tmux.StartServer()
	pane, err := u.tmux.NewWindow(tmux.NewWindowRequest{Session: control.RestoreSession, Name: u.cfg.Name, Dir: dir})
	if err != nil {
		u.t.Fatal(err)
	}
	st := u.state()
	if st.LastIterationStarted != "" && st.LastIterationEnded == "" {
		st.LastIterationEnded = state.Stamp(u.clock.Now())
	}
	st.PaneID, st.ShellPID, st.PromptUntyped = pane, 0, false
	st.RemainOnExit = &state.PaneOption{}
	if err := u.store.Save(st); err != nil {
		u.t.Fatal(err)
	}
	u.cfg.Pane = pane
}

// loopsOwnCall reports whether the tmux call being made is the loop's own
// (made by the goroutine running it), not one of a goroutine beside it: a
// killable stops only the goroutine that calls it, and the watcher killed
// must stop where it stands, writing nothing more.
func loopsOwnCall() bool {
	buf := make([]byte, 64<<10)
	return strings.Contains(string(buf[:runtime.Stack(buf, false)]), "(*unit).runOn(")
}
