package main

import (
	"context"
	"fmt"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// loopArg finds the loop a command names; inside a looped pane the name may
// be left out.
func loopArg(e env, args []string, cmd string) (*control.Loop, error) {
	name, err := control.NameArg(args, cmd, e.Getenv("TMUX_PANE"))
	if err != nil {
		return nil, err
	}
	l, err := control.Find(state.Root(e.Getenv), name)
	if err == nil {
		control.WarnRecovered(e.Stderr, l)
	} else if f, ok := fanArg(e, []string{name}); ok { // a command of one loop, given a fan's name, says so
		return nil, control.Errorf(contract.ExitUsage, "%s takes a loop, and '%s' is a fan: give one of its loops (%s)", cmd, name, fanLoopsHint(f))
	}
	return l, err
}

func statusCommand(e env) *ffcli.Command {
	fs := newFlags("status")
	asJSON := fs.Bool("json", false, "print the state as JSON, with watcher_alive and pane_alive")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch status [--json] [NAME]",
		ShortHelp:  "show a loop's status (inside a looped pane, that pane's loop)",
		LongHelp: `
Show a loop's state: status, iteration with average and time remaining,
start times, failures, done pattern, what it spent (tokens and cost, in all
and in its last iteration) against its budget, and exit reason. With no NAME
inside a looped pane, that pane's loop. A fan's name (ralph-watch fan) shows
the fan: its loops, tasks, queue, what landed and what waits for review.

Examples:
  ralph-watch status myproj-3
  ralph-watch status --json myproj-3`,
		Exec: func(ctx context.Context, args []string) error {
			if f, ok := fanArg(e, args); ok {
				if *asJSON {
					return control.WriteJSON(e.Stdout, f.State)
				}
				writeFanStatus(e.Stdout, f)
				return nil
			}
			l, err := loopArg(e, args, "status")
			if err != nil {
				return err
			}
			if *asJSON {
				return control.WriteJSON(e.Stdout, l.JSON())
			}
			control.WriteStatus(e.Stdout, l, time.Now())
			return nil
		},
	})
}

func listCommand(e env, name string) *ffcli.Command {
	fs := newFlags(name)
	asJSON := fs.Bool("json", false, "print the loops as JSON")
	names := fs.Bool("names", false, "print only the loop names, one a line")
	fans := fs.Bool("fans", false, "print only the fans' names, one a line (ralph-watch fan)")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch " + name + " [--json | --names | --fans]",
		ShortHelp:  "list the loops (ls and list are the same)",
		LongHelp: `
One row per loop: name, status, agent (what its pane runs: running, exited,
removed), iteration, failures (consecutive/total) and cost (tokens and
dollars spent). With no loop, how to start one.
--fans lists the fans (ralph-watch fan) by name instead.

Examples:
  ralph-watch list
  ralph-watch ls --names`,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return control.Errorf(contract.ExitUsage, "%s takes no arguments", name)
			}
			root := state.Root(e.Getenv)
			if *fans {
				all, err := fan.Names(root)
				for _, n := range all {
					fmt.Fprintln(e.Stdout, n)
				}
				if err != nil {
					return control.Errorf(contract.ExitFailed, "list fans: %v", err)
				}
				return nil
			}
			if *names {
				all, err := control.Names(root)
				for _, n := range all {
					fmt.Fprintln(e.Stdout, n)
				}
				return err
			}
			loops, err := control.Loops(root, e.Stderr)
			if err != nil {
				return err
			}
			if *asJSON {
				rows := []map[string]any{}
				for _, l := range loops {
					rows = append(rows, l.JSON())
				}
				return control.WriteJSON(e.Stdout, rows)
			}
			return control.WriteTable(e.Stdout, loops)
		},
	})
}

func logsCommand(e env) *ffcli.Command {
	fs := newFlags("logs")
	live := fs.Bool("live", false, "follow the log until the loop ends (or Ctrl-C)")
	lines := fs.Int("lines", 0, "print only the last N lines (0: all)")
	fs.IntVar(lines, "tail", 0, "same as --lines")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch logs [--live] [--lines N] NAME",
		ShortHelp:  "print a loop's iterations log",
		LongHelp: `
Print a loop's iterations log, one line per event. A fan's name prints
the fan's own log (the tasks its loops take, what lands, what goes back)
and its loops' [TASK] lines, in the order of their times; --live follows
it until the fan ends.

Examples:
  ralph-watch logs --lines 20 myproj-3
  ralph-watch logs myproj-3 --tail 5
  ralph-watch logs --live myproj-3`,
		Exec: func(ctx context.Context, args []string) error {
			name, err := control.NameArg(args, "logs", e.Getenv("TMUX_PANE"))
			if err != nil {
				return err
			}
			if *lines < 0 {
				return control.Errorf(contract.ExitUsage, "--lines (or --tail) must not be negative")
			}
			if f, ok := fanArg(e, []string{name}); ok {
				return fanLogs(ctx, e.Stdout, f, *lines, *live)
			}
			l, err := control.Find(state.Root(e.Getenv), name)
			if err != nil {
				return err
			}
			return control.Logs(ctx, e.Stdout, l, *lines, *live, clock.Real{})
		},
	})
}
