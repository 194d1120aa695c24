package main

import (
	"context"
	"fmt"
	"os"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
)

// promptTemplate is the minimal PROMPT.md that init writes.
const promptTemplate = `# Ralph loop prompt

You are one iteration of a loop. Each iteration starts fresh: what you know
comes from the files in this repository, not from earlier iterations.

1. Study the specs (specs/*, README.md) and the plan (IMPLEMENTATION_PLAN.md).
2. Pick the single most important task that is not done yet.
3. Before changing anything, search the code: do not assume something is
   missing or broken until you have verified it.
4. Implement the task completely. No placeholders, no stubs.
5. Add the tests that are missing for what you changed, and run the tests.
6. Update IMPLEMENTATION_PLAN.md: mark the task done, note what you learned
   and anything new you found that needs doing.
7. Commit with a message that says what changed and why. Never push: the
   person reviews and pushes.

When every task in the plan is done and the tests pass, print RALPH_DONE on a
line of its own, with nothing else on that line.
`

func initCommand(e env) *ffcli.Command {
	fs := newFlags("init")
	force := fs.Bool("force", false, "overwrite an existing PROMPT.md")
	tasks := fs.Bool("tasks", false, "also write a starting "+planFile+" for run --tasks, and a prompt for it")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch init [--force] [--tasks]",
		ShortHelp:  "write a minimal PROMPT.md in the current folder",
		LongHelp: `
Write a minimal PROMPT.md in the current folder. With --tasks, write a
starting ` + planFile + ` beside it (an existing one is kept) and a prompt
for a loop that works through it, one task an iteration:
ralph-watch run --tasks ` + planFile + ` -- claude

Examples:
  ralph-watch init
  ralph-watch init --tasks
  ralph-watch init --force`,
		Exec: func(ctx context.Context, args []string) error {
			if *tasks {
				return initTasks(e, *force)
			}
			_, err := os.Stat("PROMPT.md")
			existed := err == nil
			if existed && !*force {
				return control.Errorf(contract.ExitFailed, "PROMPT.md already exists (use --force to overwrite)")
			}
			if err := os.WriteFile("PROMPT.md", []byte(promptTemplate), 0o644); err != nil {
				return control.Errorf(contract.ExitFailed, "write PROMPT.md: %v", err)
			}
			if existed {
				fmt.Fprintln(e.Stdout, "created PROMPT.md (overwritten)")
			} else {
				fmt.Fprintln(e.Stdout, "created PROMPT.md")
			}
			return nil
		},
	})
}

// planFile is the plan init --tasks writes.
const planFile = "IMPLEMENTATION_PLAN.md"

// tasksPromptTemplate is the PROMPT.md of a loop with a plan: the loop
// names each iteration's task and how to mark it done below it.
const tasksPromptTemplate = `# Ralph loop prompt

You are one iteration of a loop that works through ` + planFile + `, one task
an iteration. Each iteration starts fresh: what you know comes from the files
in this repository, not from earlier iterations. The loop names this
iteration's task below, and checks the work before it counts the task done.

1. Study the specs (specs/*, README.md) and the task.
2. Before changing anything, search the code: do not assume something is
   missing or broken until you have verified it.
3. Implement the task completely. No placeholders, no stubs.
4. Add the tests that are missing for what you changed, and run the tests.
5. Commit with a message that says what changed and why. Never push: the
   person reviews and pushes.
`

// planTemplate is the starting plan init --tasks writes.
const planTemplate = `# Implementation plan

One task an item, in the order they are to be done. The loop
(ralph-watch run --tasks ` + planFile + `) gives each iteration the first open
task, and counts it done only when its box is ticked, the work changed and
every check passes. Sub-items belong to their task.

- [ ] Describe the first task: what to build, and how to tell it works
  - the tests that prove it
- [ ] Describe the second task

## Notes

What the agent should know that is not a task (never counted as one).
`

// initTasks writes the starting plan (kept if it exists) and the prompt
// for a loop with a plan.
func initTasks(e env, force bool) error {
	if _, err := os.Stat(planFile); err == nil {
		fmt.Fprintf(e.Stdout, "kept %s (it exists)\n", planFile)
	} else {
		if err := os.WriteFile(planFile, []byte(planTemplate), 0o644); err != nil {
			return control.Errorf(contract.ExitFailed, "write %s: %v", planFile, err)
		}
		fmt.Fprintf(e.Stdout, "created %s\n", planFile)
	}
	if _, err := os.Stat("PROMPT.md"); err == nil && !force {
		fmt.Fprintln(e.Stdout, "kept PROMPT.md (it exists; the loop appends each iteration's task to it)")
	} else {
		if err := os.WriteFile("PROMPT.md", []byte(tasksPromptTemplate), 0o644); err != nil {
			return control.Errorf(contract.ExitFailed, "write PROMPT.md: %v", err)
		}
		fmt.Fprintln(e.Stdout, "created PROMPT.md")
	}
	fmt.Fprintf(e.Stdout, "next: ralph-watch tasks %s, then ralph-watch run --tasks %s -- claude\n", planFile, planFile)
	return nil
}

func templateCommand(e env) *ffcli.Command {
	return subcommand(newFlags("template"), ffcli.Command{
		ShortUsage: "ralph-watch template",
		ShortHelp:  "print the PROMPT.md template",
		LongHelp: `
Print the PROMPT.md template that init writes.

Example:
  ralph-watch template >PROMPT.md`,
		Exec: func(ctx context.Context, args []string) error {
			fmt.Fprint(e.Stdout, promptTemplate)
			return nil
		},
	})
}
