// Package tmuxtest starts private tmux servers for tests: one server per
// test on its own socket (started as doctor starts its own, by
// tmux.StartPrivate), with its own HOME and TMUX_TMPDIR, killed at the end.
package tmuxtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Server is a private tmux server.
type Server struct {
	t      testing.TB
	Dir    string   // the test's own folder: HOME and TMUX_TMPDIR live here
	Socket string   // socket path, for tmux -S
	Env    []string // environment for processes that talk to this server
	Client *tmux.Exec

	private *tmux.Private
}

var serial atomic.Int64

// Require skips the test when tmux is not installed.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
}

// Start starts a server with one session "main" of the given size.
func Start(t testing.TB) *Server {
	t.Helper()
	Require(t)
	dir, err := os.MkdirTemp("", "ralph-test-")
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	tmpdir := filepath.Join(dir, "tmp")
	for _, d := range []string{home, tmpdir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	s := &Server{
		t:      t,
		Dir:    dir,
		Socket: filepath.Join(tmpdir, fmt.Sprintf("s%d", serial.Add(1))),
	}
	s.Env = append(cleanEnv(), "HOME="+home, "TMUX_TMPDIR="+tmpdir, "RALPH_STATE_DIR="+filepath.Join(dir, "state"))
	private, err := tmux.StartPrivate([]string{"-S", s.Socket}, s.Env, "main", "")
	if err != nil {
		t.Fatal(err)
	}
	s.private, s.Client = private, private.Client
	t.Cleanup(func() {
		for _, pid := range private.PanePIDs() {
			syscall.Kill(-pid, syscall.SIGKILL) // the pane's process group
		}
		s.Tmux("kill-server")
		if t.Failed() {
			t.Logf("test folder kept: %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return s
}

// cleanEnv is the test process's environment without tmux's and ralph's own variables.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TMUX") || strings.HasPrefix(kv, "RALPH_") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		// Agents that see CI set (Gemini CLI) run non-interactively, as no
		// person's pane would; the panes here stand for a person's.
		if strings.HasPrefix(kv, "CI=") || strings.HasPrefix(kv, "CI_") || strings.HasPrefix(kv, "CONTINUOUS_INTEGRATION=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// Tmux runs a tmux command against this server.
func (s *Server) Tmux(args ...string) (string, error) {
	return s.private.Run(args...)
}

// Must runs a tmux command and fails the test if it fails.
func (s *Server) Must(args ...string) string {
	s.t.Helper()
	out, err := s.Tmux(args...)
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// NewPane opens a new window running a shell and returns its pane id.
func (s *Server) NewPane() string {
	s.t.Helper()
	return strings.TrimSpace(s.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:"))
}

// Option reads a pane option ("" when unset).
func (s *Server) Option(pane, name string) string {
	out, _ := s.Tmux("show-options", "-p", "-q", "-v", "-t", pane, name)
	return strings.TrimSuffix(out, "\n")
}

// Capture returns the pane's screen and history, wrapped lines joined.
func (s *Server) Capture(pane string) string {
	out, _ := s.Tmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane)
	return out
}

// Eventually polls cond every 50 ms until it holds or timeout passes.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// Build builds a main package of this module once per test binary and
// returns the executable's path.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if path, ok := built[pkg]; ok {
		return path
	}
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("find module root: %v", err)
	}
	dir, err := os.MkdirTemp("", "ralph-bin-")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, "./"+pkg)
	cmd.Dir = strings.TrimSpace(string(root))
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	built[pkg] = out
	return out
}

// FakeAgent writes a fake agent script to the test folder and returns the
// command that runs it.
func (s *Server) FakeAgent(name, script string) []string {
	s.t.Helper()
	bin := Build(s.t, "testdata/fakeagent")
	path := filepath.Join(s.Dir, name+".script")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return []string{bin, path}
}

// FakeAgentAs is FakeAgent under an agent's own program name (bin/PROGRAM
// in the test folder), as a real install names it: a program of another
// name is a wrapper, to which no agent arguments are added.
func (s *Server) FakeAgentAs(program, name, script string) []string {
	s.t.Helper()
	command := s.FakeAgent(name, script)
	bin := filepath.Join(s.Dir, "bin", program)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Symlink(command[0], bin); err != nil && !os.IsExist(err) {
		s.t.Fatal(err)
	}
	return []string{bin, command[1]}
}

// Buffer collects output that a loop writes and a test reads at once.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Reset empties the buffer.
func (b *Buffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Reset()
}
