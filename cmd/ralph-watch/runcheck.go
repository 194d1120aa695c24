package main

import (
	"fmt"
	"os/exec"

	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// checkRunFlags refuses bad input before anything is spawned, completes
// f.Config from the flags that are not config, and returns the tmux client.
func checkRunFlags(e env, f *config.Run, command []string) (*tmux.Exec, error) {
	if err := f.Check(config.Env{Getenv: e.Getenv, Stderr: e.Stderr, Executable: e.Executable}, command); err != nil {
		return nil, err
	}
	client, err := tmuxClient(f)
	if err != nil {
		return nil, err
	}
	if f.Config.MaxIterations > 50 {
		fmt.Fprintln(e.Stderr, "ralph-watch: warning: high iteration count (>50) may consume significant resources")
	}
	return client, nil
}

// tmuxClient reaches the server -L or -S names (else tmux's own), which
// must run tmux 3.2 or newer.
func tmuxClient(f *config.Run) (*tmux.Exec, error) {
	if f.SocketName != "" && f.SocketPath != "" {
		return nil, control.Errorf(contract.ExitUsage, "give -L or -S, not both")
	}
	client := &tmux.Exec{}
	switch {
	case f.SocketName != "":
		client.Server = []string{"-L", f.SocketName}
	case f.SocketPath != "":
		client.Server = []string{"-S", f.SocketPath}
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return nil, control.Errorf(contract.ExitUsage, "tmux not found on PATH: install tmux 3.2 or newer")
	}
	v, err := client.Version()
	if err != nil {
		return nil, control.Errorf(contract.ExitUsage, "%v", err)
	}
	if !tmux.AtLeast(v, 3, 2) {
		return nil, control.Errorf(contract.ExitUsage, "tmux 3.2 or newer is required (found %s)", v)
	}
	return client, nil
}
