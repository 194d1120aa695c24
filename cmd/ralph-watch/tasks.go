package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/progress"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func tasksCommand(e env) *ffcli.Command {
	fs := newFlags("tasks")
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch tasks [--json] FILE|NAME",
		ShortHelp:  "show the tasks of a plan file as the loop sees them",
		LongHelp: `
Show what the loop sees of a plan (--tasks FILE): its format, each task with
its id, state, line and title, the parts that looked like tasks and are not
(boxes in code, comments, quotes, tables, criteria and Future/Notes sections)
with their line and why, the counts, and the task the loop would take next.
Check a plan so before a night's run. A plan that cannot be read exits 2
with its line and why. A fan's name shows its plan as the fan sees it (on
the fan's branch, where the queue ticks it) and where each task stands in
the fan.

Examples:
  ralph-watch tasks IMPLEMENTATION_PLAN.md
  ralph-watch tasks --json tasks.json`,
		Exec: func(ctx context.Context, args []string) error {
			args, err := interspersed(fs, args)
			if err != nil {
				return err
			}
			if len(args) != 1 {
				return control.Errorf(contract.ExitUsage, "tasks takes one plan file or loop name, got %d arguments", len(args))
			}
			info, err := os.Stat(args[0])
			isLoop := err == nil && info.IsDir() && control.ValidName(args[0]) && state.Exists(state.Root(e.Getenv), args[0])
			if errors.Is(err, os.ErrNotExist) || isLoop { // a loop's name wins where no plan file has it (a folder of that name is none)
				if f, ok := fanArg(e, args); ok && !isLoop {
					return fanTasks(e.Stdout, f, *asJSON)
				}
				return loopTasks(e, args[0], *asJSON)
			}
			p, _, err := plan.Load(args[0])
			if err != nil {
				return control.Errorf(contract.ExitUsage, "%v", err)
			}
			warnRenamed(e, p)
			if err := control.WritePlan(e.Stdout, args[0], p, nil, *asJSON); err != nil {
				return err
			}
			sayTemplate(e, p, *asJSON)
			return nil
		},
	})
}

// warnRenamed warns of each task the loop renames because an earlier task
// has its id: the person's T3 would be T3-2 in the loop's words.
func warnRenamed(e env, p *plan.Plan) {
	for _, r := range p.Renamed {
		if r.Ordinal {
			fmt.Fprintf(e.Stderr, "ralph-watch: warning: line %d: this task's place, %s, is the id of the task at line %d; the loop calls it %s (give the task an id of its own)\n", r.Line, r.Was, r.FirstAt, r.ID)
			continue
		}
		fmt.Fprintf(e.Stderr, "ralph-watch: warning: line %d: task id %s is also the id of the task at line %d; the loop calls this one %s (give each task its own id)\n", r.Line, r.Was, r.FirstAt, r.ID)
	}
}

// sayTemplate says when tasks of the plan are init --tasks's examples, not
// the person's own yet.
func sayTemplate(e env, p *plan.Plan, asJSON bool) {
	example, _ := plan.Parse(planFile, []byte(planTemplate))
	titles := map[string]bool{}
	for _, t := range example.Tasks {
		titles[t.Title] = true
	}
	var ids []string
	for _, t := range p.Tasks {
		if titles[t.Title] {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) == 0 || asJSON {
		return
	}
	which := "Task " + ids[0] + " is the example task"
	if len(ids) > 1 {
		which = "Tasks " + strings.Join(ids, ", ") + " are the example tasks"
	}
	fmt.Fprintf(e.Stdout, "\n%s of 'ralph-watch init --tasks', not yours yet: edit the plan to say what is to be done.\n", which)
}

// loopTasks shows the plan of the loop of that name, with each task's attempts.
func loopTasks(e env, name string, asJSON bool) error {
	if !control.ValidName(name) {
		return control.Errorf(contract.ExitUsage, "tasks %s: no such plan file or loop", name)
	}
	l, err := control.Find(state.Root(e.Getenv), name)
	if err != nil {
		return control.Errorf(contract.ExitUsage, "tasks %s: no such plan file or loop", name)
	}
	rec := l.State.Tasks
	if rec == nil {
		return control.Errorf(contract.ExitUsage, "loop '%s' works through no plan (run it with --tasks FILE)", name)
	}
	file, checkout := rec.File, gitwork.CheckoutCopy(l.State.Worktree, rec.File)
	p, data, err := plan.Load(file)
	if err != nil && checkout != "" { // its worktree removed (finish --remove): the plan is the person's copy now
		if cp, _, cerr := plan.Load(checkout); cerr == nil {
			fmt.Fprintf(e.Stderr, "ralph-watch: warning: the loop's copy of the plan, %s, is gone; showing your checkout's\n", file)
			p, file, checkout, err = cp, checkout, "", nil
		}
	}
	if err != nil { // the loop's record is all there is
		fmt.Fprintf(e.Stderr, "ralph-watch: warning: %v; showing the loop's record\n", err)
		if asJSON {
			return control.WriteJSON(e.Stdout, rec)
		}
		control.WriteTasks(e.Stdout, rec, true)
		return nil
	}
	progress.KeepIDs(p, rec)
	warnRenamed(e, p)
	if err := control.WritePlan(e.Stdout, file, p, control.PlanLoopOf(rec), asJSON); err != nil {
		return err
	}
	sayTemplate(e, p, asJSON)
	if mine, err := os.ReadFile(checkout); checkout != "" && err == nil && !bytes.Equal(mine, data) && !asJSON {
		fmt.Fprintf(e.Stdout, "\nThis is the loop's copy, in its worktree; your checkout's %s differs (ralph-watch tasks %s shows it).\n", checkout, checkout)
	}
	return nil
}
