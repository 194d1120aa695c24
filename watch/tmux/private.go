package tmux

// A private server: the one way tests (tmuxtest) and `ralph-watch doctor`
// start a tmux server of their own, away from the person's.

import (
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Private is a tmux server of its own: its own socket, no configuration
// file, an environment given whole.
type Private struct {
	Server []string // -L NAME or -S PATH
	Env    []string // the environment it and every command to it run with
	Client *Exec
}

// StartPrivate starts a server (-L NAME or -S PATH) with env, holding one
// detached 120×40 session named session in dir ("": the caller's folder)
// running args (none: a shell), with 5000 lines of history a pane.
func StartPrivate(server, env []string, session, dir string, args ...string) (*Private, error) {
	p := &Private{Server: server, Env: env, Client: &Exec{Server: server}}
	start := []string{"-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "120", "-y", "40"}
	if dir != "" {
		start = append(start, "-c", dir)
	}
	if _, err := p.Run(append(start, args...)...); err != nil {
		return nil, fmt.Errorf("start a private tmux server: %w", err)
	}
	if _, err := p.Run("set-option", "-g", "history-limit", "5000"); err != nil {
		_, _ = p.Run("kill-server")
		return nil, err
	}
	return p, nil
}

// Run runs one tmux command against the server, with its environment.
func (p *Private) Run(args ...string) (string, error) {
	cmd := exec.Command("tmux", append(append([]string(nil), p.Server...), args...)...)
	cmd.Env = p.Env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// PanePIDs returns the process id of every pane's first process: kill-server
// only hangs up, and agents that ignore SIGHUP would outlive it.
func (p *Private) PanePIDs() []int {
	out, _ := p.Run("list-panes", "-a", "-F", "#{pane_pid}")
	var pids []int
	for _, f := range strings.Fields(out) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
			pids = append(pids, pid)
		}
	}
	return pids
}
