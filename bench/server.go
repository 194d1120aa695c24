package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// bins are the programs under test, built from this checkout.
type bins struct{ watch, ref, agent string }

func build(work string) (bins, error) {
	b := bins{
		watch: filepath.Join(work, "bin", "ralph-watch"),
		ref:   filepath.Join(work, "bin", "refpoll"),
		agent: filepath.Join(work, "bin", "agent"),
	}
	for pkg, out := range map[string]string{"./cmd/ralph-watch": b.watch, "./bench/refpoll": b.ref, "./bench/agent": b.agent} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		if msg, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
		}
	}
	return b, nil
}

// server is a private tmux server with its own HOME, TMUX_TMPDIR and state folder.
type server struct {
	socket string
	env    []string
	pid    int
	once   sync.Once
}

func startServer(dir string) (*server, error) {
	for _, d := range []string{"home", "tmp", "state", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	s := &server{socket: filepath.Join(dir, "tmp", "bench.sock")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX") && !strings.HasPrefix(kv, "RALPH_") && !strings.HasPrefix(kv, "HOME=") {
			s.env = append(s.env, kv)
		}
	}
	s.env = append(s.env, "HOME="+filepath.Join(dir, "home"), "TMUX_TMPDIR="+filepath.Join(dir, "tmp"),
		"RALPH_STATE_DIR="+filepath.Join(dir, "state"))
	if _, err := s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "40"); err != nil {
		return nil, err
	}
	out, err := s.tmux("display-message", "-p", "#{pid}")
	if err != nil {
		return nil, err
	}
	s.pid, _ = strconv.Atoi(strings.TrimSpace(out))
	return s, nil
}

func (s *server) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", s.socket}, args...)...)
	cmd.Env = s.env
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out.String(), nil
}

func (s *server) newPane() (string, error) {
	out, err := s.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:")
	return strings.TrimSpace(out), err
}

// kill kills this private server, and nothing else.
func (s *server) kill() { s.once.Do(func() { _, _ = s.tmux("kill-server") }) }

// panePIDs are the processes the panes run: not the server's own helpers.
func (s *server) panePIDs() map[int]bool {
	out, _ := s.tmux("list-panes", "-a", "-F", "#{pane_pid}")
	pids := map[int]bool{}
	for _, f := range strings.Fields(out) {
		if p, err := strconv.Atoi(f); err == nil {
			pids[p] = true
		}
	}
	return pids
}
