package fan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/plan"
)

// The simulation's plan, as the fan's branch has it, and its invariants.

// plan is the plan as the fan's branch has it: the landed tasks ticked.
func (f *simFan) plan() *plan.Plan {
	name, text := "PLAN.md", f.text()
	if f.json {
		name = "tasks.json"
	}
	p, err := plan.Parse(name, []byte(text))
	if err != nil {
		f.t.Fatalf("%v:\n%s", err, text)
	}
	return p
}

func (f *simFan) text() string {
	var b strings.Builder
	if f.json {
		b.WriteString(`{"userStories": [`)
	}
	for i, task := range f.tasks {
		_, done := f.landed[task.id]
		switch {
		case f.json:
			quoted := func(ids []string) string {
				var q []string
				for _, id := range ids {
					q = append(q, strconv.Quote(id))
				}
				return "[" + strings.Join(q, ", ") + "]"
			}
			var touches []string
			if task.touches != "" {
				touches = []string{task.touches}
			}
			fmt.Fprintf(&b, "%s\n {\"id\": %q, \"title\": \"Task %s\", \"passes\": %t, \"dependsOn\": %s, \"touches\": %s}",
				map[bool]string{true: ",", false: ""}[i > 0], task.id, task.id, done, quoted(task.deps), quoted(touches))
		default:
			fmt.Fprintf(&b, "- [%s] Task %s\n", map[bool]string{true: "x", false: " "}[done], task.id)
			if task.touches != "" {
				fmt.Fprintf(&b, "  touches: %s\n", task.touches)
			}
		}
	}
	if f.json {
		b.WriteString("]}\n")
	}
	return b.String()
}

// simSeen counts what the scenarios did, by a word of their trace.
// check is the invariants, after every step.
func (f *simFan) check() {
	t := f.t
	t.Helper()
	tasks, slots := map[string]string{}, map[int]string{}
	for _, l := range f.running() {
		if f.s != nil && l.slot > f.s.Max && !f.adopted[l.name] {
			t.Fatalf("loop %s works in window %d, beyond --max %d:\n%s", l.name, l.slot, f.s.Max, f.dump())
		}
	}
	for _, l := range f.running() {
		if other, ok := tasks[l.task]; ok {
			t.Fatalf("task %s held by loops %s and %s:\n%s", l.task, other, l.name, f.dump())
		}
		if other, ok := slots[l.slot]; ok {
			t.Fatalf("window %d held by loops %s and %s:\n%s", l.slot, other, l.name, f.dump())
		}
		tasks[l.task], slots[l.slot] = l.name, l.name
	}
	seen := map[string]bool{}
	for _, c := range f.branch {
		w := f.works[f.landing(c)]
		if seen[w.task] {
			t.Fatalf("task %s landed twice:\n%s", w.task, f.dump())
		}
		seen[w.task] = true
		if w.buggy {
			t.Fatalf("the fan's branch holds %s, which fails the checks:\n%s", c, f.dump())
		}
	}
	f.checkSteering(false)
	s := f.s
	if s == nil {
		return
	}
	var held []*Task
	for i := range s.Tasks {
		task := &s.Tasks[i]
		if task.State == Working || task.State == Queued {
			held = append(held, task)
		}
		if task.State == Working && tasks[task.ID] != task.Loop {
			t.Fatalf("task %s is working in loop %s, which is not running:\n%s", task.ID, task.Loop, f.dump())
		}
		if task.Fails != f.failed[task.ID] {
			t.Fatalf("task %s counts %d failed tries, its loops failed %d times:\n%s", task.ID, task.Fails, f.failed[task.ID], f.dump())
		}
		if task.State == Skipped && task.Fails < f.tries {
			t.Fatalf("task %s skipped after %d failed tries, --task-attempts %d:\n%s", task.ID, task.Fails, f.tries, f.dump())
		}
		if (task.State == Landed) != seen[task.ID] {
			t.Fatalf("task %s is %s, on the branch: %v:\n%s", task.ID, task.State, seen[task.ID], f.dump())
		}
	}
	p := f.plan()
	for _, task := range held {
		for _, d := range p.Task(task.ID).DependsOn {
			if s.Task(d).State != Landed {
				t.Fatalf("task %s is %s before task %s, which it depends on, landed:\n%s", task.ID, task.State, d, f.dump())
			}
		}
	}
	for i, a := range held {
		for _, b := range held[i+1:] {
			if Overlap(p.Task(a.ID).Touches, p.Task(b.ID).Touches) {
				t.Fatalf("tasks %s and %s, whose touches meet, are held at once:\n%s", a.ID, b.ID, f.dump())
			}
		}
	}
}

// checkEnd: no task lost, each landed, waiting for review after its
// attempts, or skipped, with the reason.
func (f *simFan) checkEnd() {
	for _, task := range f.s.Tasks {
		switch {
		case task.State == Landed && f.landed[task.ID] == task.Landed:
		case task.State == NeedsReview && task.Why != "" && task.Merges >= f.attempts:
		case task.State == Skipped && task.Why != "" && task.Fails >= f.tries:
		case task.State == Open && strings.HasPrefix(task.Why, "it waits for task "):
		default:
			f.t.Fatalf("task %s ended %s (%q), tries %d, merges %d:\n%s", task.ID, task.State, task.Why, task.Tries, task.Merges, f.dump())
		}
	}
	if len(f.s.Queue) > 0 {
		f.t.Fatalf("the queue holds %v at the end:\n%s", f.s.Queue, f.dump())
	}
}

func (f *simFan) dump() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plan:\n%s", f.text())
	fmt.Fprintf(&b, "branch: %v\n", f.branch)
	for _, line := range f.trace {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
