package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
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
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	force := fs.Bool("force", false, "overwrite an existing PROMPT.md")
	return &ffcli.Command{
		Name:       "init",
		ShortUsage: "ralph-watch init [--force]",
		ShortHelp:  "write a minimal PROMPT.md in the current folder",
		LongHelp: strings.TrimSpace(`
Write a minimal PROMPT.md in the current folder.

Examples:
  ralph-watch init
  ralph-watch init --force`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			_, err := os.Stat("PROMPT.md")
			existed := err == nil
			if existed && !*force {
				return control.Errorf(words.ExitFailed, "PROMPT.md already exists (use --force to overwrite)")
			}
			if err := os.WriteFile("PROMPT.md", []byte(promptTemplate), 0o644); err != nil {
				return control.Errorf(words.ExitFailed, "write PROMPT.md: %v", err)
			}
			if existed {
				fmt.Fprintln(e.Stdout, "created PROMPT.md (overwritten)")
			} else {
				fmt.Fprintln(e.Stdout, "created PROMPT.md")
			}
			return nil
		},
	}
}

func templateCommand(e env) *ffcli.Command {
	return &ffcli.Command{
		Name:       "template",
		ShortUsage: "ralph-watch template",
		ShortHelp:  "print the PROMPT.md template",
		LongHelp: strings.TrimSpace(`
Print the PROMPT.md template that init writes.

Example:
  ralph-watch template >PROMPT.md`),
		FlagSet: flag.NewFlagSet("template", flag.ContinueOnError),
		Exec: func(ctx context.Context, args []string) error {
			fmt.Fprint(e.Stdout, promptTemplate)
			return nil
		},
	}
}
