package control

import (
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// RestoreFans starts again each fan whose process is gone, that had
// neither ended nor been stopped, on the server at socket ("" its own,
// where one runs): those named, else every one. A fan named but not to
// restore is an error.
func RestoreFans(executable func() (string, error), root, socket string, names []string, dryRun bool,
	getenv func(string) string, out, errOut io.Writer) error {
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
		if why := whyNotRestore(s, dir, socket, getenv); why != "" {
			if named {
				fmt.Fprintf(errOut, "ralph-watch: error: cannot restore fan %s: %s\n", name, why)
				failed = true
			}
			continue
		}
		what := fanWhat(root, s)
		if dryRun {
			fmt.Fprintf(out, "would restore fan %s (%s)\n", name, what)
			continue
		}
		pid, err := startFan(executable, dir, s)
		if err != nil {
			fmt.Fprintf(errOut, "ralph-watch: error: cannot restore fan %s: %v\n", name, err)
			failed = true
			continue
		}
		fmt.Fprintf(out, "restored fan %s: %s (pid %d)\n", name, what, pid)
	}
	if failed {
		return Errorf(contract.ExitFailed, "")
	}
	return nil
}

// fanWhat is what restore brings back of fan s: its loops still at work
// (a loop the killed server took with it is, as the fan takes it up),
// those that ended meanwhile (a task done waits to land), the queue.
func fanWhat(root string, s *fan.State) string {
	working, ended := 0, 0
	for _, t := range s.Tasks {
		if t.State != fan.Working {
			continue
		}
		if l, err := Find(root, t.Loop); err == nil && !l.Watched && (l.State.Status == state.Stopped || l.State.Status == state.Failed) && !Restorable(l, s.Socket) {
			ended++
		} else {
			working++
		}
	}
	what := fmt.Sprintf("%d loops working", working)
	if ended > 0 {
		what += fmt.Sprintf(", %d ended meanwhile", ended)
	}
	return what + fmt.Sprintf(", %d tasks queued", len(s.Queue))
}

// whyNotRestore says why restore leaves the fan in dir alone, "" when it
// brings it back.
func whyNotRestore(s *fan.State, dir, socket string, getenv func(string) string) string {
	switch {
	case s.Ended:
		return "it ended"
	case s.Stopped:
		return "it was stopped: start it again with ralph-watch fan"
	case fan.Running(dir):
		return fmt.Sprintf("it is running (pid %d)", s.PID)
	case !s.Restorable(dir):
		return "its record does not say how it was started: start it again with ralph-watch fan"
	case socket != "" && !SameFile(s.Socket, socket):
		return "its windows were on another tmux server, " + s.Socket
	case socket == "" && !serverRuns(s.Socket):
		return "no tmux server runs on " + s.Socket
	}
	if missing := missingSecrets(s.Args, getenv); len(missing) > 0 { // its loops would start without them
		return MissingSecrets(missing, "ralph-watch restore "+s.Name)
	}
	return ""
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
func startFan(executable func() (string, error), dir string, s *fan.State) (int, error) {
	logPath := fan.LogPath(dir)
	from := s.Dir
	if info, err := os.Stat(from); err != nil || !info.IsDir() {
		from = s.Repo
	}
	cmd, err := startInBackground(executable, s.Args, from, logPath, "TMUX=", "TMUX_PANE=")
	if err != nil {
		return 0, err
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
