package control

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// PlanLoop is what a loop adds to its plan's tasks; nil for a plan file alone.
type PlanLoop struct {
	Attempts map[string]int  // tries of each task so far
	Skipped  map[string]bool // tasks given up after their attempts
}

// PlanLoopOf is what the loop's record t adds to its plan.
func PlanLoopOf(t *state.Tasks) *PlanLoop {
	l := &PlanLoop{Attempts: map[string]int{}, Skipped: map[string]bool{}}
	for _, item := range t.Items {
		l.Attempts[item.ID] = item.Attempts
		l.Skipped[item.ID] = item.State == "skipped"
	}
	return l
}

// WritePlan prints a plan for a person, or as JSON; l, when not nil, adds
// a loop's attempts and skipped tasks.
func WritePlan(w io.Writer, path string, p *plan.Plan, l *PlanLoop, asJSON bool) error {
	total, done, open := p.Counts()
	var skipped func(string) bool
	if l != nil {
		skipped = func(id string) bool { return l.Skipped[id] }
	}
	next := p.Next(skipped)
	stateOf := func(t plan.Task) string {
		if l != nil && l.Skipped[t.ID] && t.State != plan.Done {
			return "skipped"
		}
		return string(t.State)
	}
	if asJSON {
		items := make([]map[string]any, 0, len(p.Tasks))
		for _, t := range p.Tasks {
			item := map[string]any{"id": t.ID, "title": t.Title, "state": stateOf(t), "line": t.Line}
			if l != nil {
				item["attempts"] = l.Attempts[t.ID]
			}
			if t.Priority != 0 {
				item["priority"] = t.Priority
			}
			if len(t.DependsOn) > 0 {
				item["depends_on"] = t.DependsOn
			}
			if len(t.Criteria) > 0 {
				item["criteria"] = t.Criteria
			}
			if t.ReviewStatus != "" || t.ReviewCount != 0 {
				item["review_status"], item["review_count"] = t.ReviewStatus, t.ReviewCount
			}
			items = append(items, item)
		}
		ignored := make([]map[string]any, 0, len(p.Ignored))
		for _, ig := range p.Ignored {
			ignored = append(ignored, map[string]any{"line": ig.Line, "why": ig.Why, "text": ig.Text})
		}
		m := map[string]any{"file": path, "format": p.Format, "total": total, "done": done, "open": open, "items": items, "ignored": ignored, "next": ""}
		if next != nil {
			m["next"] = next.ID
		}
		if len(p.VerifyCommands) > 0 {
			m["verify_commands"] = p.VerifyCommands
		}
		return WriteJSON(w, m)
	}
	fmt.Fprintf(w, "%s: %s plan\n\n", path, p.Format)
	// The columns a plan has: a story's priority, dependencies and review only where some story has them.
	var prio, deps, review bool
	for _, t := range p.Tasks {
		prio = prio || t.Priority != 0
		deps = deps || len(t.DependsOn) > 0
		review = review || t.ReviewStatus != "" || t.ReviewCount != 0
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	head := "ID\tSTATE\tLINE\t"
	if l != nil {
		head += "ATTEMPTS\t"
	}
	if prio {
		head += "PRIORITY\t"
	}
	if deps {
		head += "AFTER\t"
	}
	if review {
		head += "REVIEW\t"
	}
	fmt.Fprintln(tw, head+"TITLE")
	for _, t := range p.Tasks {
		row := fmt.Sprintf("%s\t%s\t%d\t", t.ID, stateOf(t), t.Line)
		if l != nil {
			row += fmt.Sprintf("%d\t", l.Attempts[t.ID])
		}
		if prio {
			row += cell(t.Priority != 0, fmt.Sprint(t.Priority))
		}
		if deps {
			row += cell(len(t.DependsOn) > 0, strings.Join(t.DependsOn, ","))
		}
		if review {
			row += cell(t.ReviewStatus != "" || t.ReviewCount != 0, strings.TrimSpace(fmt.Sprintf("%s %d", t.ReviewStatus, t.ReviewCount)))
		}
		fmt.Fprintln(tw, row+t.Title)
	}
	tw.Flush()
	if len(p.Ignored) > 0 {
		fmt.Fprintf(w, "\nNot tasks:\n")
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "LINE\tWHY\tTEXT")
		for _, ig := range p.Ignored {
			fmt.Fprintf(tw, "%d\t%s\t%s\n", ig.Line, ig.Why, ig.Text)
		}
		tw.Flush()
	}
	if len(p.VerifyCommands) > 0 {
		fmt.Fprintf(w, "\nVerify commands (run as checks):\n")
		for _, c := range p.VerifyCommands {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	noun := "tasks"
	if total == 1 {
		noun = "task"
	}
	fmt.Fprintf(w, "\n%d %s: %d done, %d open", total, noun, done, open)
	if next != nil {
		fmt.Fprintf(w, "; next: %s", next.ID)
	}
	fmt.Fprintln(w)
	return nil
}

// cell is a table cell: s, or "-" when there is nothing to say.
func cell(some bool, s string) string {
	if !some {
		return "-\t"
	}
	return s + "\t"
}
