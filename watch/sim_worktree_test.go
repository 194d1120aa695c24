package watch_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// simulateWorktreePlan is the scenario "a worktree loop with a plan, paused
// and resumed, its watcher gone and taken up again": a loop works through a
// plan in its worktree, with agents that take a while (drawn from the seed);
// at calls drawn from the seed the person pauses it, or its watcher goes
// away (interrupted) while the agent works, and each time it is resumed by
// a watcher whose own guesses are the person's checkout (its folder and
// plan), as a watcher started from there would make them. Invariants: a
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
			u.plan(delay, func(now *tmuxfake.Term) {
				if now == term && !term.Dead() {
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

	// The person acts at calls drawn from the seed: pause, or the watcher goes.
	acts := []string{"pause", "go", "pause"}[:1+rng.IntN(3)]
	actAt := 3 + rng.IntN(15)
	calls, acting := 0, -1
	u.tmux.Before = func(string) tmuxfake.Fault {
		if calls++; acting < 0 || calls != actAt {
			return tmuxfake.NoFault
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
		}
		return tmuxfake.NoFault
	}
	describe := func() string {
		log, _ := os.ReadFile(u.store.Path(state.LogFile))
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprintf("seed %d: acts %v at call %d; given %v, changed %v\nlog:\n%s\noutput:\n%s", seed, acts, actAt, given, changed, log, u.out.String())
	}

	acting = 0
	res := u.run()
	first := u.state().Settings
	for n := 1; n < 6 && (res.Reason == words.ReasonPaused || res.Reason == words.ReasonInterrupted); n++ {
		if acting++; acting >= len(acts) {
			acting = -1 // the person is done acting
		} else {
			calls, actAt = 0, 3+rng.IntN(15)
		}
		// A watcher started from the checkout guesses its folder and plan there.
		u.cfg.Resume = true
		u.cfg.Dir, u.cfg.TasksFile, u.cfg.Worktree, u.cfg.WorktreeBranch, u.cfg.WorktreeBase = checkout, filepath.Join(checkout, "PLAN.md"), "", "", ""
		res = u.run()
		now := u.state().Settings
		for name, was := range first {
			if name != "Resume" && now[name] != was {
				t.Errorf("resumed (%d): the setting %s is %q, was %q\n%s", n, name, now[name], was, describe())
			}
		}
	}
	if len(first) != reflect.TypeOf(watch.Config{}).NumField() {
		t.Errorf("the first start recorded %d settings, Config has %d fields", len(first), reflect.TypeOf(watch.Config{}).NumField())
	}
	st := u.state()
	if res.Reason != words.ReasonTasksDone {
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
