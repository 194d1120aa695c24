package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

func restoreCommand(e env) *ffcli.Command {
	fs := newFlags("restore")
	dryRun := fs.Bool("dry-run", false, "only say which loops and fans would be brought back")
	var socketName, socketPath string
	fs.StringVar(&socketName, "L", "", "tmux server socket name (short for --socket-name)")
	fs.StringVar(&socketName, "socket-name", "", "tmux server socket name, as tmux -L")
	fs.StringVar(&socketPath, "S", "", "tmux server socket path (short for --socket-path)")
	fs.StringVar(&socketPath, "socket-path", "", "tmux server socket path, as tmux -S")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch restore [--dry-run] [-L NAME | -S PATH] [FAN...]",
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

A fan whose process is gone (ralph-watch fan) is started again, in the
background, its output in the window "fan" of its session: it takes up its
queue and brings each loop that was working back in its window, on its
task, in its worktree, at its next iteration. A fan the person stopped, or
one that ended, is left alone. FAN names the fans to bring back, alone.

A loop whose pull request was being followed (ralph-watch follow) when
its follow went away is followed again, in the background, as it last ran.

Examples:
  ralph-watch restore --dry-run
  ralph-watch restore -L work
  ralph-watch restore web`,
		Exec: func(ctx context.Context, args []string) error {
			root := state.Root(e.Getenv)
			for _, name := range args {
				if _, err := fan.Load(fan.Dir(root, name)); err == nil && control.ValidName(name) {
					continue
				}
				if control.ValidName(name) && state.Exists(root, name) {
					return control.Errorf(contract.ExitUsage, "restore: '%s' is a loop, not a fan: ralph-watch resume %s brings it back", name, name)
				}
				return control.Errorf(contract.ExitUsage, "restore: no fan named '%s'", name)
			}
			client := &tmux.Exec{}
			switch {
			case socketName != "" && socketPath != "":
				return control.Errorf(contract.ExitUsage, "-L and -S cannot both be given")
			case socketName == "" && socketPath == "" && e.Getenv("TMUX") == "":
				// Outside tmux no server is "this" one: each loop goes back to its own.
				return restore(e, root, "", args, *dryRun)
			case socketName != "":
				client.Server = []string{"-L", socketName}
			case socketPath != "":
				client.Server = []string{"-S", socketPath}
			}
			socket, err := client.SocketPath()
			if err != nil {
				return control.Errorf(contract.ExitFailed, "no tmux server to restore loops into: %v", err)
			}
			return restore(e, root, socket, args, *dryRun)
		},
	})
}

// restore brings back the fans (those named, else every one) and then,
// with no names, the single loops.
func restore(e env, root, socket string, fans []string, dryRun bool) error {
	err := control.RestoreFans(e.Executable, root, socket, fans, dryRun, e.Getenv, e.Stdout, e.Stderr)
	if len(fans) > 0 {
		return err
	}
	lerr := rearm(e, "").Restore(root, socket, dryRun, e.Stdout, e.Stderr)
	if len(fans) == 0 {
		followAgain(e, root, dryRun) // after the loops: a round's watcher is back first
	}
	if lerr != nil {
		return lerr
	}
	return err
}

// reviveLoop brings back a fan's loop that was live when its tmux server
// went away (its watcher ended by server_gone, or died with the machine)
// in a new pane of its window: it goes on at its next iteration, in its
// worktree, on its task. Any other loop is left as it is.
func reviveLoop(e env, loop string, pane func() (string, error), out io.Writer) error {
	l, err := control.Find(state.Root(e.Getenv), loop)
	if err != nil {
		return nil
	}
	leaving := l.Watched && l.State.Status == state.Running && control.PaneGone(l) // its watcher has yet to see the server go
	if !leaving && !control.Restorable(l, l.State.TmuxSocket) {
		return nil
	}
	if !control.PaneGone(l) { // its watcher died, its agent works on in its pane
		return rearm(e, "").Resume(l, out, out)
	}
	p, err := pane()
	if err != nil {
		return err
	}
	return rearm(e, p).Resume(l, out, out)
}

// recordRestart records how restore starts the fan again: its server's
// socket, its folder and its arguments, the command's secrets hidden.
func recordRestart(s *fan.State, tm []string, fs *flag.FlagSet, ff *fanFlags, planPath string, command []string) error {
	socket, err := fanTmux(tm, "display-message", "-p", "#{socket_path}")
	if err != nil {
		return err
	}
	if s.Dir, err = os.Getwd(); err != nil {
		return fmt.Errorf("find the current folder: %w", err)
	}
	shown, _, _ := agent.HideSecrets(command, os.Getenv)
	args := []string{"fan", "-S", socket, "--name", s.Name, "--tasks", planPath, "--max", strconv.Itoa(ff.max),
		"--merge-attempts", strconv.Itoa(ff.mergeAttempts)}
	if ff.into != "" {
		args = append(args, "--into", ff.into)
	}
	args = append(append(args, passFlags(fs, ff.run)...), "--")
	s.Socket, s.Args = socket, append(args, shown...)
	return nil
}
