package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"

	"github.com/ralph-tmux/ralph.tmux/completions"
)

func completionCommand(e env) *ffcli.Command {
	return subcommand(newFlags("completion"), ffcli.Command{
		ShortUsage: "ralph-watch completion bash|zsh|fish",
		ShortHelp:  "print the shell completion script",
		LongHelp: `
Print the completion script for bash, zsh or fish: the same files make install
puts in each shell's standard place.

Examples:
  source <(ralph-watch completion bash)              # bash, this shell only
  ralph-watch completion zsh >~/.zfunc/_ralph-watch  # zsh, with ~/.zfunc in fpath
  ralph-watch completion fish >~/.config/fish/completions/ralph-watch.fish`,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return control.Errorf(contract.ExitUsage, "completion takes one shell: %s", strings.Join(completions.Shells, ", "))
			}
			script, err := completions.Script(args[0])
			if err != nil {
				return control.Errorf(contract.ExitUsage, "%v", err)
			}
			fmt.Fprint(e.Stdout, script)
			return nil
		},
	})
}
