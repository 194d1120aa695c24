// Command ralph-watch loops an AI coding agent in a tmux pane.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
)

// env is what a command may touch of the outside world, injected for tests.
type env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Executable     func() (string, error)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Executable: os.Executable}
	os.Exit(run(ctx, os.Args[1:], e))
}

// rootCommand is the whole command tree.
func rootCommand(e env) *ffcli.Command {
	return subcommand(newFlags("ralph-watch"), ffcli.Command{
		ShortUsage: "ralph-watch <subcommand> [flags]",
		ShortHelp:  "loop an AI coding agent in a tmux pane",
		LongHelp: `
Loop an AI coding agent in a tmux pane: each iteration respawns the pane with
the agent, delivers the prompt file, and watches until the agent exits, goes
quiet, or prints the done signal. 'ralph-watch SUBCOMMAND -h' tells more;
man ralph-watch tells all.

Examples:
  ralph-watch run --prompt-file PROMPT.md --max-iterations 20 \
      --done-pattern RALPH_DONE -- claude
  ralph-watch list
  ralph-watch demo`,
		Subcommands: []*ffcli.Command{
			runCommand(e),
			statusCommand(e),
			listCommand(e, "list"),
			listCommand(e, "ls"),
			logsCommand(e),
			pauseCommand(e),
			resumeCommand(e),
			restoreCommand(e),
			stopCommand(e),
			sendCommand(e),
			noteCommand(e),
			setCommand(e),
			skipCommand(e),
			retryCommand(e),
			cleanCommand(e),
			initCommand(e),
			templateCommand(e),
			demoCommand(e),
			versionCommand(e),
			completionCommand(e),
			doctorCommand(e),
			hookCommand(e),
			trustCommand(e),
			replayCommand(e),
			finishCommand(e),
			followCommand(e),
			reportCommand(e),
			tasksCommand(e),
			planCommand(e),
			fanCommand(e),
		},
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return control.Errorf(contract.ExitUsage, "unknown subcommand %q (see 'ralph-watch -h')", args[0])
			}
			return flag.ErrHelp
		},
	})
}

// run builds the command tree, runs it and returns the exit code.
func run(ctx context.Context, args []string, e env) int {
	root := rootCommand(e)
	quiet(root)
	flagsAfterArguments(root)
	err := root.ParseAndRun(ctx, args)
	var ee *control.Error
	switch {
	case err == nil:
		return contract.ExitDone
	case errors.Is(err, flag.ErrHelp):
		cmd, _ := chosen(root, args)
		fmt.Fprint(e.Stdout, usage(cmd))
		return contract.ExitDone
	case errors.As(err, &ee):
		if ee.Msg != "" {
			fmt.Fprintf(e.Stderr, "ralph-watch: error: %s\n", ee.Msg)
		}
		return ee.Code
	default:
		// Flag parsing errors are the only ones not wrapped: bad usage.
		msg := dashFlags(strings.TrimPrefix(err.Error(), "error parsing commandline arguments: "))
		_, line := chosen(root, args)
		fmt.Fprintf(e.Stderr, "ralph-watch: error: %s (see '%s -h')\n", msg, line)
		return contract.ExitUsage
	}
}

// chosen is the command args select, as ffcli picks it (each first word
// that names a subcommand goes one level down), with the words naming it.
func chosen(root *ffcli.Command, args []string) (*ffcli.Command, string) {
	cmd, line := root, root.Name
	for _, a := range args {
		if a == "--" {
			break
		}
		next := cmd
		for _, s := range cmd.Subcommands {
			if s.Name == a {
				next = s
			}
		}
		if next == cmd && !strings.HasPrefix(a, "-") {
			break
		}
		if next != cmd {
			line += " " + next.Name
		}
		cmd = next
	}
	return cmd, line
}

// passesArgumentsOn are the commands whose arguments are not theirs to
// parse: a command to run, an agent's hook payload, a message.
var passesArgumentsOn = map[string]bool{"run": true, "fan": true, "doctor": true, "hook": true, "send": true, "demo": true}

// flagsAfterArguments lets every other subcommand take its flags after its
// arguments too (status NAME --json, stop NAME --kill), as people type them.
func flagsAfterArguments(root *ffcli.Command) {
	for _, c := range root.Subcommands {
		if passesArgumentsOn[c.Name] || c.Exec == nil {
			continue
		}
		fs, exec := c.FlagSet, c.Exec
		c.Exec = func(ctx context.Context, args []string) error {
			args, err := interspersed(fs, args)
			if err != nil {
				return err
			}
			return exec(ctx, args)
		}
	}
}

// interspersed parses flags that follow the positional arguments too
// (replay NAME 3 --speed 2) and returns the positional ones; after "--",
// every argument is positional.
func interspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if parsed := len(args) - len(rest); parsed > 0 && args[parsed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}

// subcommand makes c a command of ralph-watch named by its flag set fs,
// filling in what each would spell again: its name, its flags, its help
// trimmed of the line breaks around a raw string.
func subcommand(fs *flag.FlagSet, c ffcli.Command) *ffcli.Command {
	c.Name, c.FlagSet, c.LongHelp = fs.Name(), fs, strings.TrimSpace(c.LongHelp)
	return &c
}

// newFlags is a subcommand's flag set; its errors come back to run, which says them.
func newFlags(name string) *flag.FlagSet { return flag.NewFlagSet(name, flag.ContinueOnError) }

// quiet stops the flag package from printing usage on its own; run prints one line.
func quiet(c *ffcli.Command) {
	c.FlagSet.SetOutput(io.Discard)
	c.UsageFunc = func(*ffcli.Command) string { return "" }
	for _, s := range c.Subcommands {
		quiet(s)
	}
}
