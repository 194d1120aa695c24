package watch_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// The loop tested by simulation: whole scenarios drawn from a seed (agents
// that are ready late or never, echo or not, die at any moment between the
// loop's steps, print the done token in the prompt's echo or in their
// reply; a person who pauses, resumes, stops, types into the pane, closes the pane or restarts
// the server; a prompt file that goes away; a worktree loop with a plan
// paused and taken up by new watchers; a goal loop and its judge), run on
// the in-memory tmux in virtual time, with the invariants checked as they
// run and at the end.
//
//	go test ./watch -run TestSimulatedLoops -sim.seeds 10000   # more seeds (make sim SEEDS=10000)
//	go test ./watch -run TestSimulatedLoops -sim.seed 1234 -v  # replay one
//	go test ./watch -run TestSimulatedLoops -sim.only goal -sim.seeds 2000  # only the goal loops, on every seed
var (
	simSeeds = flag.Int("sim.seeds", 200, "how many seeds TestSimulatedLoops runs (make unit and make test; make sim 10,000)")
	simFirst = flag.Int64("sim.first", 1, "the first seed TestSimulatedLoops runs")
	simSeed  = flag.Int64("sim.seed", 0, "run this one seed only")
	simOnly  = flag.String("sim.only", "", "run only this scenario, on every seed: goal (sim_goal_test.go)")
)

// simRegressions are seeds that found a bug, kept so it stays fixed: seed, what it found.
var simRegressions = []struct {
	seed int64
	bug  string
}{
	{109, "a pause between iterations recorded the finished iteration again at resume: two [END] lines"},
	{217, "the same, after a backoff"},
	{276, "the same"},
	{2928, "the model's own: a loop that ended in a limit's wait has given its iteration back; the check counted it as run"},
	{425, "a tick with no work counted done: the person's removal of the prompt file was taken for the task's work"},
	{5712, "a note taken by an iteration a usage limit gave back never reached that iteration's new start"},
	{7440, "a pause taken just before an iteration's start (not in the wait) recorded the finished iteration again at resume"},
	{501, "a review that printed the done token and then hung past --iteration-timeout approved its task"},
	{9997, "a review the person skipped was still charged as a review"},
	{7557, "a review that never ran to its end was retried for ever with no iteration limit"},
	{6851, "the model's own: an agent's act planned for later ran in the program that replaced it in the pane"},
	{250, "goal mode: a resumed loop took its protected paths' snapshot anew, with the agent's edit of a check script in it: the weakened check passed, the judge was asked"},
	{170, "goal mode: what the judge found missing never reached the next iteration when the person paused the loop between the two"},
}

func TestSimulatedLoops(t *testing.T) {
	count := *simSeeds
	seeds := make([]int64, 0, count+len(simRegressions))
	if *simSeed != 0 {
		seeds = append(seeds, *simSeed)
	} else {
		for _, r := range simRegressions {
			seeds = append(seeds, r.seed)
		}
		for s := *simFirst; s < *simFirst+int64(count); s++ {
			seeds = append(seeds, s)
		}
	}
	begun, before := time.Now(), runtime.NumGoroutine()
	var failed atomic.Int64
	t.Run("seeds", func(t *testing.T) {
		for i := 0; i < len(seeds); i += simBatch {
			simulateBatch(t, seeds[i:min(i+simBatch, len(seeds))], &failed)
		}
	})
	fmt.Printf("simulation: %d seeds in %.1fs, %d failed\n", len(seeds), time.Since(begun).Seconds(), failed.Load())
	// Every loop has returned: what it started must have ended with it.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines left behind after the simulated loops:\n%s", n-before, buf[:runtime.Stack(buf, true)])
	}
}

// simBatch is how many seeds run at once at most: the virtual clock reads
// every goroutine's stack at each step, and ten thousand seeds parked
// waiting for their turn made each step, and make sim, slower by as much.
const simBatch = 64

// simulateBatch runs seeds in parallel, and returns when all have ended.
func simulateBatch(t *testing.T, seeds []int64, failed *atomic.Int64) {
	t.Run(fmt.Sprintf("from-%d", seeds[0]), func(t *testing.T) {
		for _, seed := range seeds {
			t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
				t.Parallel()
				defer func() { // also after a Fatal
					if t.Failed() {
						failed.Add(1)
						t.Logf("replay: go test ./watch -run TestSimulatedLoops -sim.seed %d -v", seed)
					}
				}()
				if *simOnly == "goal" {
					simulateGoal(t, seed)
					return
				}
				simulate(t, seed)
				simulateKilled(t, seed)
				if seed%5 == 0 { // it waits in real time for a stopped watcher to go
					simulateTwoLoops(t, seed)
				}
				if seed%32 == 3 { // git in the worktree (git is slow): one seed in 32
					simulateWorktreePlan(t, seed)
				}
				if seed%8 == 2 { // a goal loop: its judge and checks are programs, one seed in 8
					simulateGoal(t, seed)
				}
			})
		}
	})
}

// The ends of a loop and their exit codes (DESIGN.md's exit codes).
var simEndings = map[string][]int{
	"done_pattern": {contract.ExitDone}, "max_iterations": {contract.ExitDone, contract.ExitLimit, contract.ExitFailed},
	"consecutive_failures": {contract.ExitFailed}, "fatal_exit": {contract.ExitFailed}, "not_logged_in": {contract.ExitFailed},
	"pane_closed": {contract.ExitFailed}, "server_gone": {contract.ExitFailed}, "prompt_file_missing": {contract.ExitFailed},
	"paused": {contract.ExitInterrupted}, "stopped": {contract.ExitInterrupted}, "killed": {contract.ExitInterrupted},
	"tasks_done": {contract.ExitDone}, "tasks_skipped": {contract.ExitLimit}, "stalled": {contract.ExitFailed}, "budget": {contract.ExitLimit},
}

// simulate runs one seed's scenario and checks the invariants.
func simulate(t *testing.T, seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	prompt := "fix the next bug; then test\n"
	if rng.IntN(2) == 0 {
		prompt = "work until finished, then print\nRALPH_DONE\non a line of its own\n"
	}
	var (
		agents    []simAgent
		tokenAt   = -1 // the iteration whose agent printed the token after the prompt
		lateToken bool // a late reply printed it, on a timed seed (see below)
		timed     = seed%16 == 0 || isRegression(seed)
		ticks     int // calls naming the pane, all agents
		action    = []string{"none", "none", "pause", "stop", "close", "server", "restart", "prompt", "type"}[rng.IntN(9)]
		typing    bool // the person types into the pane at the next tick
		actAt     = 5 + rng.IntN(120)
		acted     = -1 // the tick the person acted at
		pasted    = map[int][]string{}
		pastedIn  = map[int]int{} // the iteration each agent was started for
		steerer   *simSteerer     // the person who steers, on some seeds (sim_steer_test.go)
		current   int             // the agent start now in the pane
		secret    string          // the person's key in the command; "": none
		keyless   []int           // the agent starts it did not reach
	)
	var u *unit
	var sp *simPlan // the plan, on the seeds that have one (sim_tasks_test.go)
	u = newUnit(t, prompt, func(n int) *tmuxfake.Program {
		a := simAgent{readyAt: rng.IntN(6) - 1, pasteOn: rng.IntN(2) == 0, echo: rng.IntN(3) > 0,
			dieAt: -1, reply: []string{"token", "plain", "plain", "flood", "question", "limit"}[rng.IntN(6)], exitCode: []int{0, 0, 1, 2, -1}[rng.IntN(5)],
			delay: []time.Duration{0, 0, 2 * time.Second, 30 * time.Second, 90 * time.Second}[rng.IntN(5)]}
		if a.readyAt == -1 && rng.IntN(2) == 0 {
			a.readyAt = 0
		}
		if rng.IntN(3) == 0 {
			a.dieAt, a.dieCode, a.killed = rng.IntN(40), []int{0, 1, 127}[rng.IntN(3)], rng.IntN(2) == 0
		}
		if a.reply == "token" && a.exitCode == -1 {
			a.exitCode = 0 // an agent that prints the token then idles is judged at the turn's end, not here
		}
		agents = append(agents, a)
		current = n
		return withSecret(&secret, &keyless, n, simProgram(a, n, func() bool { t := typing; typing = false; return t }, func(d time.Duration, f func(*tmuxfake.Term)) {
			u.plan(d, func(t *tmuxfake.Term) {
				if current == n && !t.Dead() { // still this agent, alive
					f(t)
				}
			})
		}, func(iteration int, text string) { pasted[n], pastedIn[n] = append(pasted[n], text), iteration },
			func(iteration int, text string) { sp.act(iteration, text) },
			func(iteration int) {
				if timed && a.delay > 0 {
					// A late reply lands at a virtual instant the loop's own timers
					// may share; which came first is up to the scheduler: either
					// ending is right, the other invariants still hold.
					lateToken = true
					return
				}
				if tokenAt < 0 {
					tokenAt = iteration
				}
			}))
	})
	if timed {
		// Time passes as it would: timers in order, the agent's late replies
		// on time. The other seeds run every timer at once (a clock that
		// jumps), which is fast and as hard on the loop's races.
		u.simulate()
		u.quiet = 4
	}
	u.cfg.DonePattern = regexp.MustCompile(`^RALPH_DONE$`)
	u.cfg.MaxIterations = 3
	u.cfg.InactivityTimeout = time.Minute
	u.cfg.ReadyTimeout = 30 * time.Second
	u.cfg.IterationTimeout = 10 * time.Minute
	sp = newSimPlan(t, u, seed)
	if seed%3 == 0 { // an agent the loop knows: its questions, limits and idle prompt read from its screen
		u.cfg.Agent = agent.Profile{Name: "sim", Busy: regexp.MustCompile(`working on it`),
			Dialog: regexp.MustCompile(`Do you want to proceed\?`), Limit: regexp.MustCompile(`You've hit your limit`),
			IdleGrace: 3 * time.Second}
		u.cfg.LimitWait = 30 * time.Minute
	}
	if seed%4 == 1 { // the person's secret in the environment: a key set in front of the agent
		secret = fmt.Sprintf("sk-sim-%d-not-shown", seed)
		u.cfg.Command, u.cfg.Secrets, _ = agent.HideSecrets(append([]string{"env", "SIM_API_KEY=" + secret}, u.cfg.Command...), nil)
	}
	if seed%5 == 2 {
		steerer = newSimSteerer(rng, u)
		u.cfg.Budget = receipt.Budget{CostUSD: 50} // a budget the person may raise by +N (the simulated agents report no spend)
	}
	wake := make(chan os.Signal, 1)
	u.wake = wake
	u.tmux.Before = func(pane string) tmuxfake.Fault {
		ticks++
		if steerer != nil {
			steerer.tick(u, ticks, wake)
		}
		if ticks != actAt || acted >= 0 {
			return tmuxfake.NoFault
		}
		acted = ticks
		switch action {
		case "pause", "stop":
			_ = u.store.Request(map[string]string{"pause": state.RequestPause, "stop": state.RequestStop}[action])
			select {
			case wake <- syscall.SIGUSR1:
			default:
			}
		case "close":
			return tmuxfake.PaneClosed
		case "server":
			return tmuxfake.ServerStopped
		case "restart":
			return tmuxfake.ServerRestarted
		case "prompt":
			_ = os.Remove(u.cfg.PromptFile)
		case "type":
			typing = true
		}
		return tmuxfake.NoFault
	}
	describe := func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "seed %d: prompt %q, person %s at tick %d (acted %d)\n", seed, prompt, action, actAt, acted)
		for i, a := range agents {
			fmt.Fprintf(&b, "  agent %d: %+v\n", i+1, a)
		}
		return b.String() + "output:\n" + u.out.String()
	}

	res := u.run()
	if res.Reason == "paused" { // the person resumes
		u.cfg.Resume = true
		res = u.run()
	}

	// The ending is one of the loop's, with its exit code.
	if codes, ok := simEndings[string(res.Reason)]; !ok || !slicesContains(codes, res.Code) {
		t.Errorf("ended %q with code %d: not an ending of the loop's\n%s", res.Reason, res.Code, describe())
	}
	// The prompt reached each agent at most once, byte for byte (with the person's notes).
	steered, _ := os.ReadFile(u.store.Path(state.LogFile))
	for n, texts := range pasted {
		wants := promptsOf(string(steered), prompt, pastedIn[n]) // one per start of its iteration
		if len(texts) > 1 {
			t.Errorf("agent %d was given the prompt %d times\n%s", n, len(texts), describe())
		}
		for _, text := range texts {
			if !slices.ContainsFunc(wants, func(want string) bool {
				notes := strings.TrimPrefix(want, prompt) // with a plan, its task comes between
				return text == want || sp != nil && strings.HasPrefix(text, prompt) && strings.HasSuffix(text, notes)
			}) {
				t.Errorf("agent %d was given %q, want the prompt byte for byte, with the notes of a start of iteration %d: %q\n%s", n, text, pastedIn[n], wants, describe())
			}
		}
	}
	// A token after the prompt is never missed; one in its echo never counts.
	terminal := action != "none" && action != "pause" && acted >= 0
	switch {
	case sp != nil: // the plan decides, not the token (sp.check)
	case tokenAt < 0 && !lateToken && res.Reason == "done_pattern":
		t.Errorf("done with no token after the prompt (the echo counted?)\n%s", describe())
	case tokenAt >= 0 && res.Reason != "done_pattern" && !terminal:
		t.Errorf("the agent of iteration %d printed the token, the loop ended %q\n%s", tokenAt, res.Reason, describe())
	}
	st, err := u.store.Load()
	if err != nil {
		t.Fatalf("state.json: %v\n%s", err, describe())
	}
	// A loop at its limit is done only when its last iteration did not fail,
	// and failed only when every one did.
	if res.Reason == "max_iterations" {
		switch {
		case res.Code == contract.ExitDone && st.ConsecutiveFailures > 0:
			t.Errorf("done at max_iterations with the last %d iterations failed\n%s", st.ConsecutiveFailures, describe())
		case res.Code == contract.ExitFailed && st.ConsecutiveFailures < st.CurrentIteration:
			t.Errorf("failed at max_iterations with %d of %d iterations failed\n%s", st.ConsecutiveFailures, st.CurrentIteration, describe())
		}
	}
	if res.Reason == "done_pattern" && tokenAt >= 0 && st.CurrentIteration != tokenAt {
		t.Errorf("done at iteration %d, the token came in iteration %d\n%s", st.CurrentIteration, tokenAt, describe())
	}
	if steerer != nil {
		steerer.check(t, u, st, describe)
	}
	sp.check(string(res.Reason), st, describe)
	// state.json agrees with iterations.log: the iterations started, one end each.
	log, _ := os.ReadFile(u.store.Path(state.LogFile))
	started, ended := map[int]bool{}, map[int]int{}
	for _, line := range strings.Split(string(log), "\n") {
		var n int
		if _, err := fmt.Sscanf(afterTag(line, "[START]"), "iteration %d", &n); err == nil {
			started[n] = true
		}
		// A usage limit gives its iteration back until it starts again.
		if _, err := fmt.Sscanf(afterTag(line, "[LIMIT]"), "iteration %d not counted", &n); err == nil {
			delete(started, n)
		}
		if _, err := fmt.Sscanf(afterTag(line, "[END]"), "iteration %d", &n); err == nil {
			ended[n]++
		}
	}
	if len(started) != st.CurrentIteration {
		t.Errorf("state.json says iteration %d, iterations.log started %d\n%s\n%s", st.CurrentIteration, len(started), log, describe())
	}
	for n, count := range ended {
		if count > 1 {
			t.Errorf("iteration %d has %d [END] lines\n%s\n%s", n, count, log, describe())
		}
	}
	// The secret reached every agent start, and nothing shown or kept holds it:
	// not the output, the tmux calls (commands, status options, messages), any file.
	if secret != "" {
		if len(keyless) > 0 {
			t.Errorf("agent starts %v ran without the key\n%s", keyless, describe())
		}
		shown := u.out.String()
		for _, c := range u.tmux.Calls() {
			shown += strings.Join(c.Args, " ") + "\n"
		}
		_ = filepath.Walk(u.store.Dir, func(path string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				b, _ := os.ReadFile(path)
				shown += string(b)
			}
			return nil
		})
		if strings.Contains(shown, secret) {
			t.Errorf("the secret was shown or written\n%s", describe())
		}
	}
	// Nothing left behind in the state folder: no half-written file, no FIFO.
	for _, pattern := range []string{".state-*", "*.tmp", state.OutputFIFO} {
		if left, _ := filepath.Glob(u.store.Path(pattern)); len(left) > 0 {
			t.Errorf("left behind: %q\n%s", left, describe())
		}
	}
}

func isRegression(seed int64) bool {
	for _, r := range simRegressions {
		if r.seed == seed {
			return true
		}
	}
	return false
}

func afterTag(line, tag string) string {
	_, rest, ok := strings.Cut(line, tag+" ")
	if !ok {
		return ""
	}
	return rest
}

func slicesContains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
