package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// resolvePane finds the pane to loop: -t, else $TMUX_PANE, else a new window
// in session "ralph" named after the loop. It fills in Pane, Dir and Name.
func resolvePane(e env, f *config.Run, client *tmux.Exec, cfg *watch.Config) (tmux.Pane, error) {
	target := f.Target
	if target == "" && f.SocketName == "" && f.SocketPath == "" {
		target = e.Getenv("TMUX_PANE")
	}
	if target == "" {
		if cfg.Name == "" {
			cwd, _ := os.Getwd()
			cfg.Name = control.NameFrom(filepath.Base(cwd), "")
		}
		return tmux.Pane{}, nil // a window is made once the name is claimed
	}
	pane, err := client.Pane(target)
	switch {
	case tmux.NoServer(err):
		return pane, control.Errorf(contract.ExitUsage, "no tmux server running%s", serverName(f))
	case errors.Is(err, tmux.ErrNoPane):
		return pane, control.Errorf(contract.ExitUsage, "no such pane: %s", target)
	case err != nil:
		return pane, control.Errorf(contract.ExitUsage, "%v", err)
	}
	cfg.Pane, cfg.Dir = pane.ID, pane.Path
	if cfg.Dir == "" {
		cfg.Dir, _ = os.Getwd()
	}
	if cfg.Name == "" {
		cfg.Name = control.NameFrom(filepath.Base(cfg.Dir), strings.TrimPrefix(pane.ID, "%"))
	}
	return pane, nil
}

// newWindow makes the window a loop started outside tmux runs in: named after
// the loop, in session "ralph".
func newWindow(client *tmux.Exec, cfg *watch.Config) (tmux.Pane, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return tmux.Pane{}, control.Errorf(contract.ExitUsage, "working directory: %v", err)
	}
	id, err := client.NewWindow(tmux.NewWindowRequest{Session: "ralph", Name: cfg.Name, Dir: cwd})
	if err != nil {
		return tmux.Pane{}, control.Errorf(contract.ExitFailed, "create window: %v", err)
	}
	pane, err := client.Pane(id)
	if err != nil {
		return tmux.Pane{}, control.Errorf(contract.ExitFailed, "create window: %v", err)
	}
	cfg.Pane, cfg.Dir = pane.ID, cwd
	return pane, nil
}

// serverArgs repeats the -L or -S a person gave, for a tmux command line.
func serverArgs(f *config.Run) string {
	switch {
	case f.SocketName != "":
		return " -L " + f.SocketName
	case f.SocketPath != "":
		return " -S " + f.SocketPath
	}
	return ""
}

func serverName(f *config.Run) string {
	if socket := f.SocketName + f.SocketPath; socket != "" {
		return " on " + socket
	}
	return ""
}

// insidePane reports whether this process runs in pane, which respawning
// would kill: then the watcher must run in the background.
func insidePane(pane tmux.Pane) bool {
	for pid := os.Getppid(); pid > 1; {
		if pid == pane.PID {
			return true
		}
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			return false
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			return false
		}
		pid, _ = strconv.Atoi(fields[1])
	}
	return false
}
