package watch_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/between"
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
	u.cfg.MaxIterations = 6
	u.cfg.Checks = []between.Check{{Command: "test ! -e broken"}}
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
