// Package tmuxtest starts private tmux servers for tests: one server per
// test on its own socket (started as doctor starts its own, by
// tmux.StartPrivate), with its own HOME and TMUX_TMPDIR, killed at the end.
package tmuxtest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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

// TmuxVar names the tmux the tests run (a path); unset, the tmux on PATH.
const TmuxVar = "RALPH_TEST_TMUX"

// Require skips the test when its tier runs no real tmux (tier.go) or
// tmux is not installed, and fails it when TmuxVar names one that its
// package's tests do not run (without Main).
func Require(t testing.TB) {
	t.Helper()
	needsTmux(t)
	if os.Getenv(TmuxVar) != "" && !inMain.Load() {
		t.Fatalf("%s is set: the package's TestMain must run its tests with tmuxtest.Main, which puts that tmux first on PATH", TmuxVar)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
}

// useTestTmux puts a folder holding a link named tmux to the TmuxVar tmux
// first on PATH, for this process and every child (the plugin's scripts and
// the agents' wrappers run plain tmux), and returns that folder ("" when
// TmuxVar is unset); in the unit tier, one whose tmux fails (noTmux).
func useTestTmux() (string, error) {
	if os.Getenv(TierVar) == "unit" {
		return noTmux()
	}
	want := os.Getenv(TmuxVar)
	if want == "" {
		return "", nil
	}
	path, err := filepath.Abs(want)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(path); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s=%s is no executable tmux", TmuxVar, want)
	}
	dir, err := os.MkdirTemp("", "ralph-tmux-")
	if err != nil {
		return "", err
	}
	if err := os.Symlink(path, filepath.Join(dir, "tmux")); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// noTmux puts a tmux that fails, saying why, first on PATH: a test of the
// unit tier that reaches real tmux without Start or Require fails.
func noTmux() (string, error) {
	dir, err := os.MkdirTemp("", "ralph-notmux-")
	if err != nil {
		return "", err
	}
	script := "#!/bin/sh\necho 'tmux: make unit runs no real tmux: the test must call tmuxtest.Start or tmuxtest.Require' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "tmux"), []byte(script), 0o755); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
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
		_, _ = s.Tmux("kill-server")
		s.killStrays()
		if t.Failed() {
			t.Logf("test folder kept: %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	return s
}

// Kill kills the server as a crash or a reboot would, and returns once its
// process is gone: a client that comes while it still exits finds its
// socket and says "server exited unexpectedly" (seen in CI).
func (s *Server) Kill() {
	s.t.Helper()
	pid, _ := strconv.Atoi(strings.TrimSpace(s.Must("display-message", "-p", "#{pid}")))
	_, _ = s.Tmux("kill-server")
	// A server told to exit waits for its jobs (a watcher's lifeline ends
	// only when that watcher does): one that lingers, under load, is killed
	// as a crash would end it, so that a new server can take the socket.
	signalled := time.Now().Add(10 * time.Second)
	Eventually(s.t, 30*time.Second, "the tmux server to exit", func() bool {
		if pid > 0 && !signalled.IsZero() && time.Now().After(signalled) {
			s.t.Logf("the tmux server (pid %d) had not exited 10 s after kill-server: killed", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
			signalled = time.Time{}
		}
		if pid <= 0 || syscall.Kill(pid, 0) != nil {
			return true
		}
		// Exited, not yet reaped: the machine's init may take its time.
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		return err != nil || bytes.Contains(stat, []byte(") Z "))
	})
}

// killStrays ends the processes that run with this server's environment
// and outlive its panes: a watcher started in the background is no pane's
// process, and it would write into the test folder after it is removed.
func (s *Server) killStrays() {
	mark := []byte("RALPH_STATE_DIR=" + filepath.Join(s.Dir, "state"))
	strays := func() (pids []int) {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err == nil && slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return bytes.Equal(kv, mark) }) {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	for i := 0; i < 50; i++ { // each is gone from /proc once reaped: its parent, if not us, may take a moment
		pids := strays()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
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

// Eventually polls cond until it holds or timeout passes: every 50 ms for
// the first second, then less often, up to every 250 ms. A look is mostly a
// tmux client, and a wait that lasts (as on a loaded machine) would
// otherwise take the CPU that what it waits for needs.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(PollAfter(time.Since(start)))
	}
}

// PollAfter is how long a test's wait sleeps between looks once it has
// waited for waited (see Eventually).
func PollAfter(waited time.Duration) time.Duration {
	return min(50*time.Millisecond+max(waited-time.Second, 0)/10, 250*time.Millisecond)
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
	binDir  string      // where Build builds, made on its first call
	inMain  atomic.Bool // Main runs the tests: binDir is removed at their end
)

// Main runs a package's tests with the tmux TmuxVar names (else the one
// on PATH), saying which first, and then removes what Build built: a
// package whose tests start tmux or call Build has
//
//	func TestMain(m *testing.M) { os.Exit(tmuxtest.Main(m)) }
func Main(m *testing.M) int {
	inMain.Store(true)
	linkDir, err := useTestTmux()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tmuxtest:", err)
		return 2
	}
	if linkDir != "" {
		defer func() { _ = os.RemoveAll(linkDir) }()
	}
	if os.Getenv(TierVar) == "unit" {
		fmt.Println("tmuxtest: the unit tier, no real tmux")
	} else if path, err := exec.LookPath("tmux"); err == nil {
		version, _ := exec.Command(path, "-V").Output()
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real // the tmux itself, not the link to it
		}
		fmt.Printf("tmuxtest: %s (%s)\n", strings.TrimSpace(string(version)), path)
	}
	code := m.Run()
	buildMu.Lock()
	defer buildMu.Unlock()
	if binDir != "" {
		if err := os.RemoveAll(binDir); err != nil {
			fmt.Fprintln(os.Stderr, "tmuxtest:", err)
		}
		binDir, built = "", map[string]string{}
	}
	return code
}

// BuiltVar names a folder the test binaries of one make run share what
// Build builds in (the Makefile makes it and removes it): each package is
// built once for all, not once per test binary.
const BuiltVar = "RALPH_TEST_BUILT"

// Build builds a main package of this module once per test binary, into a
// folder that Main removes, or once per make run into BuiltVar's, and
// returns the executable's path.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	if !inMain.Load() {
		t.Fatal("tmuxtest.Build: the package's TestMain must run its tests with tmuxtest.Main, which removes what Build built")
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if path, ok := built[pkg]; ok {
		return path
	}
	shared := os.Getenv(BuiltVar)
	dir := shared
	if dir == "" {
		if binDir == "" {
			var err error
			if binDir, err = os.MkdirTemp("", "ralph-bin-"); err != nil {
				t.Fatal(err)
			}
		}
		dir = binDir
	}
	// A folder per package: two may share a base name, and the executable
	// keeps it (an agent is told by its program's name). A short one: the
	// path shows in menus as wide as a terminal.
	sub := strconv.Itoa(len(built) + 1)
	if shared != "" { // the same folder in every test binary
		sub = fmt.Sprintf("%x", sha256.Sum256([]byte(pkg)))[:4]
	}
	out := filepath.Join(dir, sub, filepath.Base(pkg))
	if shared != "" {
		unlock := lockFile(t, filepath.Join(shared, ".lock")) // the other packages' test binaries build here too
		defer unlock()
		if _, err := os.Stat(out); err == nil {
			built[pkg] = out
			return out
		}
	}
	if err := goBuild(pkg, out); err != nil {
		t.Fatal(err)
	}
	built[pkg] = out
	return out
}

// goBuild builds pkg of this module into out.
func goBuild(pkg, out string) error {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return fmt.Errorf("find module root: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", out+".new", "./"+pkg)
	cmd.Dir = strings.TrimSpace(string(root))
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
	}
	return os.Rename(out+".new", out) // whole or not at all, for a binary that looks before it locks
}

// WriteExecutable writes a program with no fork in this process while it
// is open for writing: a child that another test forks meanwhile holds it
// open until its own exec, and running the program then fails with "text
// file busy" (seen in CI, copying ralph-watch's 10 MB).
func WriteExecutable(path string, data []byte, perm os.FileMode) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, data, perm)
}

// lockFile holds an exclusive lock on path, across processes, until unlock.
func lockFile(t testing.TB, path string) (unlock func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return func() { f.Close() } // closing releases the lock
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
