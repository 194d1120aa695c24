package main

import (
	"context"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func trustCommand(e env) *ffcli.Command {
	fs := newFlags("trust")
	revoke := fs.Bool("revoke", false, "forget the folder's config file: its commands are refused again")
	list := fs.Bool("list", false, "list the trusted config files and whether each is unchanged")
	check := fs.Bool("check", false, "exit 0 if run would use the folder's config file as it is, else 1 and print the commands it would run, one a line")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch trust [--revoke | --list | --check] [DIR]",
		ShortHelp:  "allow DIR/.ralph/config to run its commands (checks, hooks)",
		LongHelp: `
A project's .ralph/config may name commands: check, on-iteration-end, on-done,
on-fail, end-command. run uses them only when this user trusted that file as
it is, byte for byte: an edit needs trust again. Other values (timeouts,
patterns, limits) need no trust, nor do the same values given as flags or
RALPH_* variables. DIR defaults to the current folder.

Examples:
  ralph-watch trust             trust ./.ralph/config as it is now
  ralph-watch trust --revoke ~/src/proj
  ralph-watch trust --list`,
		Exec: func(ctx context.Context, args []string) error {
			root := state.Root(e.Getenv)
			if *list {
				if len(args) > 0 || *revoke || *check {
					return control.Errorf(contract.ExitUsage, "--list takes no folder nor other flag")
				}
				return config.ListTrusted(e.Stdout, root)
			}
			if *revoke && *check {
				return control.Errorf(contract.ExitUsage, "give --revoke or --check, not both")
			}
			if len(args) > 1 {
				return control.Errorf(contract.ExitUsage, "trust takes one folder, got %d: %s", len(args), strings.Join(args, " "))
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			switch {
			case *revoke:
				return config.Revoke(e.Stdout, root, dir)
			case *check:
				return config.CheckTrusted(e.Stdout, root, dir)
			}
			return config.Trust(e.Stdout, root, dir)
		},
	})
}
