package watch_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	planfile "github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// simPlan is the plan a simulated loop works through, on some seeds: each
// agent that gets the prompt does something drawn from the seed with the
// plan (its own generator, so the seeds without a plan run as before), and
// the invariants of the plan are checked as it goes and at the end.
type simPlan struct {
	t    *testing.T
	rng  *rand.Rand
	u    *unit
	file string

	mu      sync.Mutex
	written string         // the plan as the agent last left it (or as it began)
	did     map[int]string // what the agent of each iteration did
	worked  map[int]bool   // the iteration changed the work
	broken  map[int]bool   // the check failed after the iteration
	errs    []string
	context bool // the agent tells how full its context is (--max-context)
}

const simPlanText = "# Plan\n\n- [ ] First task\n  - [ ] its own step\n- [ ] Second task\n\n```\n- [ ] not a task\n```\n"

// newSimPlan gives u a plan and a check, on a seed that has one.
func newSimPlan(t *testing.T, u *unit, seed int64) *simPlan {
	if seed%4 != 1 {
		return nil
	}
	p := &simPlan{t: t, rng: rand.New(rand.NewPCG(uint64(seed), 0x7a5c)), u: u, file: filepath.Join(u.cfg.Dir, "PLAN.md"),
		written: simPlanText, did: map[int]string{}, worked: map[int]bool{}, broken: map[int]bool{}}
	if err := os.WriteFile(p.file, []byte(simPlanText), 0o644); err != nil {
		t.Fatal(err)
	}
	u.cfg.TasksFile = p.file
	u.cfg.TaskAttempts, u.cfg.ReviewCap, u.cfg.DiffChars = 2, 2, 1000
	u.cfg.Review = seed%8 == 5
	if seed%32 == 1 || seed%64 == 13 { // a git work tree (git is slow: one seed in 21), and a loop that stops when its agent's tries change nothing (some with reviews)
		gitInit(t, u.cfg.Dir)
		u.cfg.StallLimit = 1 + int(seed/64)%2
	}
	u.cfg.MaxIterations = 6
	if seed%16 == 9 && seed%3 != 0 { // an agent whose context the loop reads: some iterations fill it, and the guard ends them
		p.context = true
		u.cfg.Agent = agent.Profile{Name: "claude"}
		u.cfg.MaxContext, u.cfg.BudgetEvery = 70, time.Second
		u.simulate() // time passes as it would: the guard reads the session while the agent works
		u.quiet = 4
	}
	u.cfg.Checks = []checks.Check{{Command: "test ! -e broken"}}
	u.cfg.CheckTimeout, u.cfg.CheckOutputChars = 10e9, 200
	return p
}

// act is what the agent of iteration n does with the plan once given prompt.
func (p *simPlan) act(n int, prompt string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	data, _ := os.ReadFile(p.file)
	p.checkOnlyReopened(string(data), fmt.Sprintf("before the agent of iteration %d", n))
	what := []string{"honest", "honest", "tick-only", "work-only", "tick-other", "edit", "break", "nothing"}[p.rng.IntN(8)]
	p.did[n] = what
	text := string(data)
	tick := func(text string, other bool) string {
		lines := strings.SplitAfter(text, "\n")
		for i, l := range lines {
			title, ok := strings.CutPrefix(l, "- [ ] ")
			if ok && strings.Contains(prompt, strings.TrimSpace(title)) != other {
				lines[i] = "- [x] " + title
				break
			}
		}
		return strings.Join(lines, "")
	}
	work := func() {
		_ = os.WriteFile(filepath.Join(p.u.cfg.Dir, fmt.Sprintf("work-%d", n)), []byte(what), 0o644)
		p.worked[n] = true
	}
	switch what {
	case "honest":
		work()
		_ = os.Remove(filepath.Join(p.u.cfg.Dir, "broken"))
		text = tick(text, false)
	case "tick-only":
		text = tick(text, false)
	case "work-only":
		work()
	case "tick-other":
		work()
		text = tick(text, true)
	case "edit":
		work()
		text = strings.Replace(tick(text, false), "Second task", "Second task, reworded", 1)
	case "break":
		work()
		_ = os.WriteFile(filepath.Join(p.u.cfg.Dir, "broken"), nil, 0o644)
		text = tick(text, false)
	}
	if p.context { // its session: a turn that filled 87% of its context window, on some iterations
		transcript := p.u.store.Path(fmt.Sprintf("session-%d.jsonl", n)) // not in the work tree: no work
		if p.rng.IntN(2) == 0 {
			_ = os.WriteFile(transcript, []byte(recordedTurn(p.t, "869895")), 0o600)
		}
		_ = os.WriteFile(p.u.store.Path(state.TranscriptFile), []byte(transcript), 0o600)
	}
	_, err := os.Stat(filepath.Join(p.u.cfg.Dir, "broken"))
	p.broken[n] = err == nil
	if err := os.WriteFile(p.file, []byte(text), 0o644); err != nil {
		p.errs = append(p.errs, err.Error())
	}
	p.written = text
}

// checkOnlyReopened fails unless the plan is as the agent left it, but for
// the loop's one-character reopenings ("[x]" back to "[ ]").
func (p *simPlan) checkOnlyReopened(now, when string) {
	was := p.written
	if len(now) != len(was) {
		p.errs = append(p.errs, fmt.Sprintf("%s: the plan changed length: %q, the agent left %q", when, now, was))
		return
	}
	for i := range now {
		if now[i] != was[i] && !(now[i] == ' ' && (was[i] == 'x' || was[i] == 'X') && i > 0 && now[i-1] == '[') {
			p.errs = append(p.errs, fmt.Sprintf("%s: byte %d of the plan changed (%q, the agent left %q)", when, i, now, was))
			return
		}
	}
}

// check checks the plan's invariants after the loop ended with reason.
func (p *simPlan) check(reason string, st *state.State, describe func() string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	data, _ := os.ReadFile(p.file)
	p.checkOnlyReopened(string(data), "at the end")
	for _, e := range p.errs {
		p.t.Errorf("%s\n%s", e, describe())
	}
	if reason == "done_pattern" || reason == "done_file" {
		p.t.Errorf("a loop with a plan ended %q: the plan decides\n%s", reason, describe())
	}
	final, err := planfile.Parse(p.file, data)
	if err != nil {
		p.t.Errorf("the plan cannot be read at the end: %v\n%s", err, describe())
		return
	}
	if st.Tasks == nil {
		return
	}
	logData, _ := os.ReadFile(p.u.store.Path(state.LogFile))
	p.checkTries(string(logData), st, describe)
	// tasks_done: every task done in the plan, or approved by the review cap in the record.
	for _, task := range final.Tasks {
		if item := st.Tasks.Item(task.ID); reason == "tasks_done" && task.State != planfile.Done && (item == nil || item.State != "approved") {
			p.t.Errorf("ended tasks_done with task %s open:\n%s\n%s", task.ID, data, describe())
		}
	}
	// A task is done only after an iteration that changed the work and passed its checks.
	for _, item := range st.Tasks.Items {
		for _, v := range item.Verdicts {
			if v.Verdict != "done" && v.Verdict != "review" {
				continue
			}
			if !p.worked[v.Iteration] || p.broken[v.Iteration] {
				p.t.Errorf("task %s %s in iteration %d, whose agent did %q (work: %v, check broken: %v)\n%s",
					item.ID, v.Verdict, v.Iteration, p.did[v.Iteration], p.worked[v.Iteration], p.broken[v.Iteration], describe())
			}
		}
		if item.State == "done" && reason == "tasks_done" {
			if t := final.Task(item.ID); t == nil || t.State != planfile.Done {
				p.t.Errorf("task %s is done in the record, open in the plan\n%s", item.ID, describe())
			}
		}
	}
}

// simTaskLog is what iterations.log says of the plan's iterations: which
// task each began in which mode, and how each ended when not by its agent.
type simTaskLog struct {
	began  map[int]string // iteration: "ID mode"
	cut    map[int]string // iteration: how the person or the loop cut it short (retried, skipped, budget, context)
	failed map[int]string // iteration: how its agent did not run it to its end (a failure, a timeout)
	stall  map[int]bool   // iteration: counted towards --stall-limit
}

func readSimTaskLog(log string) simTaskLog {
	l := simTaskLog{began: map[int]string{}, cut: map[int]string{}, failed: map[int]string{}, stall: map[int]bool{}}
	for _, line := range strings.Split(log, "\n") {
		var n int
		var id, mode, rest string
		if _, err := fmt.Sscanf(afterTag(line, "[TASK]"), "iteration %d task %s %s %s", &n, &id, &mode, &rest); err == nil &&
			(mode == "implement" || mode == "fix" || mode == "review") && (strings.HasPrefix(rest, "attempt=") || strings.HasPrefix(rest, "review=")) {
			l.began[n] = id + " " + mode
		}
		if _, err := fmt.Sscanf(afterTag(line, "[LIMIT]"), "iteration %d not counted", &n); err == nil {
			delete(l.cut, n) // a usage limit gave it back: its new start is the try
			delete(l.failed, n)
		}
		if _, err := fmt.Sscanf(afterTag(line, "[END]"), "iteration %d %s", &n, &rest); err == nil {
			switch rest {
			case "retried", "skipped", "budget", "context":
				l.cut[n] = rest
			}
		}
		if _, err := fmt.Sscanf(afterTag(line, "[TIMEOUT]"), "iteration %d %s", &n, &rest); err == nil {
			l.failed[n] = rest
		}
		if _, err := fmt.Sscanf(afterTag(line, "[FAIL]"), "iteration %d %s", &n, &rest); err == nil && (strings.HasPrefix(rest, "exit=") || strings.HasPrefix(rest, "turn_failed")) {
			l.failed[n] = rest
		}
		if _, err := fmt.Sscanf(afterTag(line, "[STALL]"), "iteration %d", &n); err == nil {
			l.stall[n] = true
		}
	}
	return l
}

// checkTries: a task is approved only by a review that ran to its end; the
// attempts a task is charged are its implement and fix tries that neither
// the person (retry) nor the loop (budget, context) cut short, and its
// reviews those that ran to their end; only the agent's own implement and
// fix iterations count towards a stall.
func (p *simPlan) checkTries(log string, st *state.State, describe func() string) {
	l := readSimTaskLog(log)
	for _, item := range st.Tasks.Items {
		for _, v := range item.Verdicts {
			if v.Verdict != "approved" {
				continue
			}
			if l.began[v.Iteration] != item.ID+" review" || l.cut[v.Iteration] != "" || l.failed[v.Iteration] != "" {
				p.t.Errorf("task %s approved in iteration %d, begun %q, cut %q, its agent %q: not a review that ran to its end\n%s\n%s",
					item.ID, v.Iteration, l.began[v.Iteration], l.cut[v.Iteration], l.failed[v.Iteration], log, describe())
			}
		}
		accepted := map[int]bool{} // iterations that finished the task, however they ended
		for _, v := range item.Verdicts {
			accepted[v.Iteration] = accepted[v.Iteration] || v.Verdict == "done" || v.Verdict == "review"
		}
		attempts, reviews := 0, 0
		for n, began := range l.began {
			id, mode, _ := strings.Cut(began, " ")
			switch {
			case id != item.ID:
			case mode == "review" && l.cut[n] == "" && l.failed[n] == "":
				reviews++
			case mode != "review" && l.cut[n] != "retried" && l.cut[n] != "budget" && (l.cut[n] != "context" || accepted[n]):
				attempts++
			}
		}
		// Begun and never judged (the loop ended with it): counted until the loop goes on.
		pending := st.Tasks.Current == item.ID
		if item.Attempts != attempts && !(pending && st.Tasks.Mode != "review" && item.Attempts == attempts+1) ||
			item.Reviews != reviews && !(pending && st.Tasks.Mode == "review" && item.Reviews == reviews+1) {
			p.t.Errorf("task %s is charged %d attempts and %d reviews; its agents finished %d tries and %d reviews\n%s\n%s",
				item.ID, item.Attempts, item.Reviews, attempts, reviews, log, describe())
		}
	}
	for n := range l.stall {
		if _, mode, _ := strings.Cut(l.began[n], " "); mode == "review" || l.cut[n] == "retried" || l.cut[n] == "skipped" {
			p.t.Errorf("iteration %d (%s, %s) counted towards the stall limit\n%s\n%s", n, l.began[n], l.cut[n], log, describe())
		}
	}
}
