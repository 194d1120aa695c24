package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

func tasksCommand(e env) *ffcli.Command {
	fs := flag.NewFlagSet("tasks", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	return &ffcli.Command{
		Name:       "tasks",
		ShortUsage: "ralph-watch tasks [--json] FILE|NAME",
		ShortHelp:  "show the tasks of a plan file as the loop sees them",
		LongHelp: strings.TrimSpace(`
Show what the loop sees of a plan (--tasks FILE): its format, each task with
its id, state, line and title, the parts that looked like tasks and are not
(boxes in code, comments, quotes, tables, criteria and Future/Notes sections)
with their line and why, the counts, and the task the loop would take next.
Check a plan so before a night's run. A plan that cannot be read exits 2
with its line and why.

Examples:
  ralph-watch tasks IMPLEMENTATION_PLAN.md
  ralph-watch tasks --json tasks.json`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			args, err := interspersed(fs, args)
			if err != nil {
				return err
			}
			if len(args) != 1 {
				return control.Errorf(words.ExitUsage, "tasks takes one plan file or loop name, got %d arguments", len(args))
			}
			if _, err := os.Stat(args[0]); errors.Is(err, os.ErrNotExist) {
				return loopTasks(e, args[0], *asJSON)
			}
			p, _, err := plan.Load(args[0])
			if err != nil {
				return control.Errorf(words.ExitUsage, "%v", err)
			}
			return writeTasks(e.Stdout, args[0], p, nil, *asJSON)
		},
	}
}

// loopTasks shows the plan of the loop of that name, with each task's attempts.
func loopTasks(e env, name string, asJSON bool) error {
	if !control.ValidName(name) {
		return control.Errorf(words.ExitUsage, "tasks %s: no such plan file or loop", name)
	}
	l, err := control.Find(state.Root(e.Getenv), name)
	if err != nil {
		return control.Errorf(words.ExitUsage, "tasks %s: no such plan file or loop", name)
	}
	rec := l.State.Tasks
	if rec == nil {
		return control.Errorf(words.ExitUsage, "loop '%s' works through no plan (run it with --tasks FILE)", name)
	}
	p, _, err := plan.Load(rec.File)
	if err != nil { // the loop's record is all there is
		fmt.Fprintf(e.Stderr, "ralph-watch: warning: %v; showing the loop's record\n", err)
		if asJSON {
			return control.WriteJSON(e.Stdout, rec)
		}
		control.WriteTasks(e.Stdout, rec, true)
		return nil
	}
	tl := &taskLoop{Attempts: map[string]int{}, Skipped: map[string]bool{}}
	for _, item := range rec.Items {
		tl.Attempts[item.ID] = item.Attempts
		tl.Skipped[item.ID] = item.State == "skipped"
	}
	return writeTasks(e.Stdout, rec.File, p, tl, asJSON)
}

// taskLoop is what a loop adds to its plan's tasks; nil for a plan file alone.
type taskLoop struct {
	Attempts map[string]int  // tries of each task so far
	Skipped  map[string]bool // tasks given up after their attempts
}

// writeTasks prints a plan for a person, or as JSON.
func writeTasks(w io.Writer, path string, p *plan.Plan, l *taskLoop, asJSON bool) error {
	total, done, open := p.Counts()
	var skipped func(string) bool
	if l != nil {
		skipped = func(id string) bool { return l.Skipped[id] }
	}
	next := p.Next(skipped)
	state := func(t plan.Task) string {
		if l != nil && l.Skipped[t.ID] && t.State != plan.Done {
			return "skipped"
		}
		return string(t.State)
	}
	if asJSON {
		items := make([]map[string]any, 0, len(p.Tasks))
		for _, t := range p.Tasks {
			item := map[string]any{"id": t.ID, "title": t.Title, "state": state(t), "line": t.Line}
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
		return control.WriteJSON(w, m)
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
		row := fmt.Sprintf("%s\t%s\t%d\t", t.ID, state(t), t.Line)
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
