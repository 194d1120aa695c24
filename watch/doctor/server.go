package doctor

// The private tmux server doctor runs the agent on: its own socket name,
// no configuration file, an environment with nothing of the person's that
// could send an agent elsewhere, killed at the end with every agent on it.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// server is the private tmux server the doctor's loops run on.
type server struct {
	*tmux.Private
	name string // tmux -L NAME
}

// startServer starts tmux -L name (tmux.StartPrivate, as the tests start
// theirs) with a clean environment whose HOME is a throwaway folder under dir.
func startServer(name, dir string) (*server, error) {
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	p, err := tmux.StartPrivate([]string{"-L", name}, append(cleanEnv(os.Environ()), "HOME="+home), "doctor", dir, "sleep", "86400")
	if err != nil {
		return nil, err
	}
	// Without focus events Claude Code shows, then hides, a notice about them.
	_, _ = p.Run("set-option", "-g", "focus-events", "on")
	return &server{Private: p, name: name}, nil
}

// session opens a session in dir whose panes run with env, and returns its pane.
func (s *server) session(name, dir string, env []string) (string, error) {
	pane, err := s.Run("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", name, "-x", "120", "-y", "40", "-c", dir, "sleep", "86400")
	if err != nil {
		return "", fmt.Errorf("open tmux session %s: %w", name, err)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, err := s.Run("set-environment", "-t", name, k, v); err != nil {
			return "", err
		}
	}
	return strings.TrimSpace(pane), nil
}

// endAgents ends every pane's process tree: some agents outlive their pane
// and the server (Gemini CLI does).
func (s *server) endAgents() {
	var wg sync.WaitGroup
	for _, pid := range s.PanePIDs() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			agent.EndTree(pid, 2*time.Second)
		}()
	}
	wg.Wait()
}

// kill ends the agents and the server, and removes its socket, which tmux leaves.
func (s *server) kill() {
	socket, err := s.Client.SocketPath()
	s.endAgents()
	_, _ = s.Run("kill-server")
	if err == nil && strings.Contains(filepath.Base(socket), "ralph-doctor-") {
		_ = os.Remove(socket)
	}
}

// cleanEnv drops what would tie the agents to the person's own setup: tmux's
// (but TMUX_TMPDIR: the socket's folder) and ralph's variables, HOME, CI markers (an agent that sees CI set runs
// non-interactively), proxies, and each agent's own credentials and
// configuration folders.
func cleanEnv(environ []string) []string {
	drop := map[string]bool{"HOME": true, "CI": true, "CONTINUOUS_INTEGRATION": true, "XDG_CONFIG_HOME": true,
		"XDG_DATA_HOME": true, "XDG_STATE_HOME": true, "XDG_CACHE_HOME": true}
	for _, agent := range []string{"claude", "codex", "gemini", "opencode", "copilot"} {
		s := agentEnv(agent, "")
		for _, name := range s.Unset {
			drop[name] = true
		}
		for _, kv := range s.Env {
			name, _, _ := strings.Cut(kv, "=")
			drop[name] = true
		}
	}
	var env []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if drop[name] || name == "TMUX" || name == "TMUX_PANE" || strings.HasPrefix(name, "RALPH_") || strings.HasPrefix(name, "CI_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// socket is the server's socket path, for the loop's record.
func (s *server) socket() string {
	path, err := s.Client.SocketPath()
	if err != nil {
		return s.name
	}
	return path
}
