package control

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// ResumeEnv tells a watcher started by resume to continue the recorded loop.
const ResumeEnv = "RALPH_WATCH_RESUME"

// TaskBaseEnv gives a fan's loop the commit its task began at
// (watch.Config.TaskBase): the fan's own word, no flag of the person's.
const TaskBaseEnv = "RALPH_WATCH_TASK_BASE"

// StartWatcher starts `ralph-watch run ARGS` (the program executable finds)
// in dir, in the background and its own session, with its output appended
// to the loop's watcher log; resume sets ResumeEnv. It returns the pid.
func StartWatcher(executable func() (string, error), store *state.Store, args []string, dir string, resume bool, extraEnv ...string) (int, error) {
	env := append([]string{"RALPH_DETACH=false"}, extraEnv...)
	if resume {
		env = append(env, ResumeEnv+"=1")
	}
	cmd, err := startInBackground(executable, append([]string{"run"}, args...), dir, store.Path(state.WatcherLog), env...)
	if err != nil {
		return 0, Errorf(contract.ExitFailed, "start watcher: %v", err)
	}
	go func() { _ = cmd.Wait() }() // reaped when it ends, so AwaitWatcher sees it gone
	return cmd.Process.Pid, nil
}

// startInBackground starts this program (the one executable finds) with
// args in dir, in its own session so that it outlives the command and its
// terminal, its output appended to logPath, env added to this one's.
func startInBackground(executable func() (string, error), args []string, dir, logPath string, env ...string) (*exec.Cmd, error) {
	exe, err := executable()
	if err != nil {
		return nil, fmt.Errorf("find own executable: %w", err)
	}
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open its log: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// AwaitWatcher waits until the watcher pid holds the loop of store, or has
// ended, for at most answerWait: a claim held until then stays decided.
func AwaitWatcher(store *state.Store, pid int, clk clock.Clock) {
	for deadline := clk.Now().Add(answerWait); clk.Now().Before(deadline); {
		if store.Locked() || syscall.Kill(pid, 0) != nil {
			return
		}
		clock.Sleep(context.Background(), clk, lookEvery)
	}
}

// Claim is how a run takes its loop's name from an earlier loop of that name.
type Claim int

const (
	ClaimNew     Claim = iota // refuse a loop still watched or one that could be resumed
	ClaimResume               // continue the recorded loop (a watcher started by resume)
	ClaimReplace              // stop the old loop, its watcher and agent, and remove its state
	ClaimClean                // remove the old loop's state, unless it is still watched
)

// ClaimName makes loop name under root this run's, as how says, and opens
// its state folder; what it did to an old loop is a line on out.
func ClaimName(root, name string, how Claim, out io.Writer, clk clock.Clock) (*state.Store, error) {
	if how == ClaimResume {
		store, err := state.Find(root, name)
		if err != nil {
			return nil, failed(err)
		}
		return store, nil
	}
	if old, err := Find(root, name); err == nil {
		if old.Watched && old.State.ExitReason != nil { // the loop has ended; its watcher is on its way out
			old.Watched = !unwatched(old, clk, exitWait)
		}
		switch {
		case how == ClaimReplace:
			if err := replace(old, clk); err != nil {
				return nil, err
			}
			fmt.Fprintf(out, "replaced existing loop %s\n", name)
		case old.Watched:
			return nil, Errorf(contract.ExitUsage, "loop '%s' is already running (watcher pid %d); pick another --name or use --replace", name, old.State.WatcherPID)
		case how == ClaimClean:
			if err := old.Store.Remove(); err != nil {
				return nil, Errorf(contract.ExitFailed, "clear state: %v", err)
			}
			fmt.Fprintf(out, "cleared ralph state for %s\n", name)
		case old.State.Status == state.Running || old.State.Status == state.Paused:
			return nil, Errorf(contract.ExitUsage, "loop '%s' already exists (%s); use 'ralph-watch resume %s', --replace or --clean-state", name, old.Status(), name)
		default: // an ended run: kept apart, so the new one's log, receipts and casts are its own
			label := strings.NewReplacer(":", "", " ", "T").Replace(old.State.Started)
			if label == "" {
				label = clk.Now().Format("20060102T150405")
			}
			dir, err := old.Store.Archive(label)
			if err != nil {
				return nil, Errorf(contract.ExitFailed, "keep the ended run of %s apart: %v", name, err)
			}
			fmt.Fprintf(out, "kept the ended run of %s in %s\n", name, dir)
		}
	} else if store := (&state.Store{Dir: filepath.Join(root, name)}); ValidName(name) && store.Locked() {
		// a watcher just started holds the loop before it writes its state
		return nil, Errorf(contract.ExitUsage, "loop '%s' is already running; pick another --name", name)
	}
	store, err := state.Open(root, name)
	if err != nil { // a setting to fix, found before anything is spawned
		return nil, Errorf(contract.ExitUsage, "%v", err)
	}
	return store, nil
}

// replace ends an old loop of the same name, its watcher and agent, and
// removes its state.
func replace(old *Loop, clk clock.Clock) error {
	if old.Watched {
		if err := tell(old, state.RequestStopKill); err != nil {
			return err
		}
		if !unwatched(old, clk, stopWait) && old.State.WatcherPID > 0 {
			syscall.Kill(old.State.WatcherPID, syscall.SIGKILL)
			unwatched(old, clk, exitWait)
		}
	} else if old.Pane == PaneRunning {
		if p, err := old.Tmux.Pane(old.State.PaneID); err == nil {
			agent.EndTree(p.PID, killGrace)
		}
	}
	if err := old.Store.Remove(); err != nil {
		return Errorf(contract.ExitFailed, "remove old state: %v", err)
	}
	return nil
}

// MissingSecrets says which secrets a loop's command hides (NAME=…) that
// this environment does not give, and how to give them, then what to do.
func MissingSecrets(names []string, then string) string {
	exports := make([]string, len(names))
	for i, n := range names {
		exports[i] = "export " + n + "=…"
	}
	return fmt.Sprintf("the agent's command needs %s, whose value is kept in memory only and is not in this environment: %s, then %s",
		strings.Join(names, ", "), strings.Join(exports, "; "), then)
}

// StartFollow starts ralph-watch follow with args in the background (follow
// --detach), its output in the loop's follow.log; it returns its pid.
func StartFollow(executable func() (string, error), store *state.Store, args []string) (int, error) {
	cmd, err := startInBackground(executable, append([]string{"follow"}, args...), "", store.Path(state.FollowLog))
	if err != nil {
		return 0, Errorf(contract.ExitFailed, "start follow: %v", err)
	}
	go func() { _ = cmd.Wait() }()
	return cmd.Process.Pid, nil
}
