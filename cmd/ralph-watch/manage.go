package main

import (
	"context"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

func pauseCommand(e env) *ffcli.Command {
	return subcommand(newFlags("pause"), ffcli.Command{
		ShortUsage: "ralph-watch pause NAME",
		ShortHelp:  "pause a loop: the agent runs on, no new iteration starts",
		LongHelp: `
Pause a loop: the agent runs on, no new iteration starts. A fan's name
pauses each of its loops at work.

Examples:
  ralph-watch pause myproj-3
  ralph-watch resume myproj-3`,
		Exec: func(ctx context.Context, args []string) error {
			if f, ok := fanArg(e, args); ok {
				return eachFanLoop(f, e.Stdout, func(l *control.Loop) error { return control.Pause(l, e.Stdout, e.Stderr, clock.Real{}) })
			}
			l, err := loopArg(e, args, "pause")
			if err != nil {
				return err
			}
			return control.Pause(l, e.Stdout, e.Stderr, clock.Real{})
		},
	})
}

func resumeCommand(e env) *ffcli.Command {
	fs := newFlags("resume")
	var target string
	fs.StringVar(&target, "t", "", "pane for a loop whose pane is gone (short for --target)")
	fs.StringVar(&target, "target", "", "pane for a loop whose pane is gone (default: a new window in session \"ralph\")")
	limits := limitFlags(fs)
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch resume [-t PANE] [--max-iterations N|+N] [--max-time D|+D] [--max-tokens N|+N] [--max-cost USD|+USD] NAME",
		ShortHelp:  "resume a paused or disconnected loop where it left off",
		LongHelp: `
Resume a paused loop, or one whose watcher died, at the same iteration: a
watcher starts in the background and waits for a running agent first.

A loop whose pane or tmux server went away (a reboot, kill-server) goes on
at the next iteration in a new pane: a window named after the loop in
session "ralph", on the loop's socket (the server is started if none runs),
or the pane -t names. Its logs and receipts are kept and added to.

A loop that ended at a limit (max iterations, max time, budget) goes on
once the limit is raised, in the same command (the limit flags, as for
'ralph-watch set') or by set before it; its history is kept.

A fan's name resumes each of its loops at work that is paused or whose
watcher died, and says where each stands; limit flags raise the fan's
limits first, as 'ralph-watch set FAN' does.

Examples:
  ralph-watch resume myproj-3
  ralph-watch resume -t %7 myproj-3
  ralph-watch resume myproj-3 --max-iterations +10`,
		Exec: func(ctx context.Context, args []string) error {
			lim, err := limits()
			if err != nil {
				return err
			}
			if f, ok := fanArg(e, args); ok {
				return resumeFan(e, f, lim)
			}
			l, err := loopArg(e, args, "resume")
			if err != nil {
				return err
			}
			if err := resumeLimits(l, lim, e.Stdout); err != nil {
				return err
			}
			return rearm(e, target).Resume(l, e.Stdout, e.Stderr)
		},
	})
}

// rearm is how resume and restore bring loops back: into target when a
// loop's pane is gone, once its config file is trusted.
func rearm(e env, target string) control.Rearm {
	return control.Rearm{
		Target:        target,
		Check:         func(st *state.State) error { return config.CheckResumeTrust(state.Root(e.Getenv), st) },
		Executable:    e.Executable,
		Inside:        insidePane,
		Clock:         clock.Real{},
		DefaultSocket: tmux.DefaultSocket(e.Getenv),
	}
}

func stopCommand(e env) *ffcli.Command {
	fs := newFlags("stop")
	kill := fs.Bool("kill", false, "end the agent too")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch stop [--kill] NAME",
		ShortHelp:  "end a loop (and with --kill its agent)",
		LongHelp: `
End a loop; with --kill end its agent too. Works when the pane was closed.
A fan's name ends the fan and each of its loops; the fan started again
takes them up.

Examples:
  ralph-watch stop myproj-3
  ralph-watch stop --kill myproj-3`,
		Exec: func(ctx context.Context, args []string) error {
			if f, ok := fanArg(e, args); ok {
				return stopFan(f, *kill, e.Stdout)
			}
			l, err := loopArg(e, args, "stop")
			if err != nil {
				return err
			}
			return control.Stop(l, *kill, e.Stdout, clock.Real{})
		},
	})
}

func sendCommand(e env) *ffcli.Command {
	return subcommand(newFlags("send"), ffcli.Command{
		ShortUsage: "ralph-watch send NAME MESSAGE",
		ShortHelp:  "type a message into a loop's pane (paste, then Enter)",
		LongHelp: `
Type MESSAGE into the loop's pane as the prompt is typed (a bracketed
paste, byte for byte), then press Enter.

Example:
  ralph-watch send myproj-3 'also update the changelog'`,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 2 {
				return control.Errorf(contract.ExitUsage, "send takes a loop name and a message")
			}
			l, err := loopArg(e, args[:1], "send")
			if err != nil {
				return err
			}
			return control.Send(ctx, l, args[1], e.Stdout, e.Stderr)
		},
	})
}

func cleanCommand(e env) *ffcli.Command {
	fs := newFlags("clean")
	all := fs.Bool("all", false, "clean every loop no watcher holds")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch clean NAME | --all",
		ShortHelp:  "remove a loop's state (never its pane or agent)",
		LongHelp: `
Remove a loop's state, never its pane or agent; a loop whose watcher runs
is refused. A fan's name (the fan not running) removes the worktrees and
branches of its landed tasks and the queue's worktree; a task's that did
not land, a worktree changed since, and a branch with commits past what
landed are kept, each said why. The fan's record and branch stay.

Examples:
  ralph-watch clean myproj-3
  ralph-watch clean --all`,
		Exec: func(ctx context.Context, args []string) error {
			if f, ok := fanArg(e, args); ok && !*all {
				return cleanFan(e.Stdout, f)
			}
			root := state.Root(e.Getenv)
			names := args
			switch {
			case *all && len(args) == 0:
				var err error
				if names, err = control.Names(root); err != nil {
					return err
				}
			case *all || len(args) != 1:
				return control.Errorf(contract.ExitUsage, "must specify a loop name or use --all")
			}
			return control.Clean(root, names, e.Stdout, e.Stderr)
		},
	})
}
