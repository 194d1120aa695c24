package main

import (
	"context"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

func restoreCommand(e env) *ffcli.Command {
	fs := newFlags("restore")
	dryRun := fs.Bool("dry-run", false, "only say which loops would be re-armed")
	var socketName, socketPath string
	fs.StringVar(&socketName, "L", "", "tmux server socket name (short for --socket-name)")
	fs.StringVar(&socketName, "socket-name", "", "tmux server socket name, as tmux -L")
	fs.StringVar(&socketPath, "S", "", "tmux server socket path (short for --socket-path)")
	fs.StringVar(&socketPath, "socket-path", "", "tmux server socket path, as tmux -S")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch restore [--dry-run] [-L NAME | -S PATH]",
		ShortHelp:  "re-arm the loops that were live when this tmux server's last run ended",
		LongHelp: `
Re-arm every loop that was live when its tmux server went away (a reboot,
kill-server) and whose socket is this server's: it ended with reason
server_gone, or its state says running while no watcher holds it. Each goes
on at its next iteration in a new window named after it in session "ralph",
as 'ralph-watch resume' does; one line per loop. Loops paused or stopped by
the person, and loops a watcher holds, are left alone. Outside tmux with no
-L or -S, each loop's own server (the socket it recorded), where one runs.
The plugin runs this when tmux starts with @ralph-restore on.

Examples:
  ralph-watch restore --dry-run
  ralph-watch restore -L work`,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return control.Errorf(words.ExitUsage, "restore takes no arguments, got %d", len(args))
			}
			client := &tmux.Exec{}
			switch {
			case socketName != "" && socketPath != "":
				return control.Errorf(words.ExitUsage, "-L and -S cannot both be given")
			case socketName == "" && socketPath == "" && e.Getenv("TMUX") == "":
				// Outside tmux no server is "this" one: each loop goes back to its own.
				return rearm(e, "").Restore(state.Root(e.Getenv), "", *dryRun, e.Stdout, e.Stderr)
			case socketName != "":
				client.Server = []string{"-L", socketName}
			case socketPath != "":
				client.Server = []string{"-S", socketPath}
			}
			socket, err := client.SocketPath()
			if err != nil {
				return control.Errorf(words.ExitFailed, "no tmux server to restore loops into: %v", err)
			}
			return rearm(e, "").Restore(state.Root(e.Getenv), socket, *dryRun, e.Stdout, e.Stderr)
		},
	})
}
