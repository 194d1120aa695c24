package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
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
with its line and why.

Examples:
  ralph-watch tasks IMPLEMENTATION_PLAN.md
  ralph-watch tasks --json tasks.json`,
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
			return control.WritePlan(e.Stdout, args[0], p, nil, *asJSON)
		},
	})
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
	watch.KeepTaskIDs(p, rec)
	return control.WritePlan(e.Stdout, rec.File, p, control.PlanLoopOf(rec), asJSON)
}
