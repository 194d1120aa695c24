package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
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
					return control.Errorf(words.ExitUsage, "restore: '%s' is a loop, not a fan: ralph-watch resume %s brings it back", name, name)
				}
				return control.Errorf(words.ExitUsage, "restore: no fan named '%s'", name)
			}
			client := &tmux.Exec{}
			switch {
			case socketName != "" && socketPath != "":
				return control.Errorf(words.ExitUsage, "-L and -S cannot both be given")
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
				return control.Errorf(words.ExitFailed, "no tmux server to restore loops into: %v", err)
			}
			return restore(e, root, socket, args, *dryRun)
		},
	})
}

// restore brings back the fans (those named, else every one) and then,
// with no names, the single loops.
func restore(e env, root, socket string, fans []string, dryRun bool) error {
	err := restoreFans(e, root, socket, fans, dryRun)
	if len(fans) > 0 {
		return err
	}
	if lerr := rearm(e, "").Restore(root, socket, dryRun, e.Stdout, e.Stderr); lerr != nil {
		return lerr
	}
	return err
}

// restoreFans starts again each fan whose process is gone, that had
// neither ended nor been stopped, on the server at socket ("" its own,
// where one runs). A fan named but not to restore is an error.
func restoreFans(e env, root, socket string, names []string, dryRun bool) error {
	named := len(names) > 0
	if !named {
		names, _ = fan.Names(root)
	}
	failed := false
	for _, name := range names {
		dir := fan.Dir(root, name)
		s, err := fan.Load(dir)
		if err != nil {
			continue
		}
		why := ""
		switch {
		case s.Ended:
			why = "it ended"
		case s.Stopped:
			why = "it was stopped: start it again with ralph-watch fan"
		case fan.Running(dir):
			why = fmt.Sprintf("it is running (pid %d)", s.PID)
		case !s.Restorable(dir):
			why = "its record does not say how it was started: start it again with ralph-watch fan"
		case socket != "" && !control.SameFile(s.Socket, socket):
			why = "its windows were on another tmux server, " + s.Socket
		case socket == "" && !serverRuns(s.Socket):
			why = "no tmux server runs on " + s.Socket
		case len(missingSecrets(s.Args, e.Getenv)) > 0: // its loops would start without them
			why = control.MissingSecrets(missingSecrets(s.Args, e.Getenv), "ralph-watch restore "+name)
		}
		if why != "" {
			if named {
				fmt.Fprintf(e.Stderr, "ralph-watch: error: cannot restore fan %s: %s\n", name, why)
				failed = true
			}
			continue
		}
		_, _, _, working := s.Counts()
		what := fmt.Sprintf("%d loops working, %d tasks queued", working, len(s.Queue))
		if dryRun {
			fmt.Fprintf(e.Stdout, "would restore fan %s (%s)\n", name, what)
			continue
		}
		pid, err := startFan(e, dir, s)
		if err != nil {
			fmt.Fprintf(e.Stderr, "ralph-watch: error: cannot restore fan %s: %v\n", name, err)
			failed = true
			continue
		}
		fmt.Fprintf(e.Stdout, "restored fan %s: %s (pid %d)\n", name, what, pid)
	}
	if failed {
		return control.Errorf(words.ExitFailed, "")
	}
	return nil
}

// missingSecrets are the secrets the fan's command takes from the
// environment (recorded hidden) that getenv has not.
func missingSecrets(args []string, getenv func(string) string) []string {
	i := slices.Index(args, "--")
	if i < 0 {
		return nil
	}
	_, _, missing := agent.HideSecrets(args[i+1:], getenv)
	return missing
}

// serverRuns reports whether a tmux server answers on socket.
func serverRuns(socket string) bool {
	_, err := (&tmux.Exec{Server: []string{"-S", socket}}).SocketPath()
	return err == nil
}

// startFan starts the fan's process as its record says, in the background
// and its own session, its output appended to the fan's log, and waits
// until it holds the fan.
func startFan(e env, dir string, s *fan.State) (int, error) {
	exe, err := e.Executable()
	if err != nil {
		return 0, fmt.Errorf("find own executable: %w", err)
	}
	logPath := filepath.Join(dir, "fan.log")
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("open the fan's log: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(exe, s.Args...)
	cmd.Dir = s.Dir
	if info, err := os.Stat(s.Dir); err != nil || !info.IsDir() {
		cmd.Dir = s.Repo
	}
	cmd.Env = append(os.Environ(), "TMUX=", "TMUX_PANE=")
	cmd.Stderr = log // its stdout is the log already
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start the fan: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	for deadline := time.Now().Add(10 * time.Second); !fan.Running(dir); {
		select {
		case <-exited:
			return 0, fmt.Errorf("it ended at once (exit %d); its log: %s", cmd.ProcessState.ExitCode(), logPath)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("it did not take up its record in 10s; its log: %s", logPath)
		}
	}
	return cmd.Process.Pid, nil
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
