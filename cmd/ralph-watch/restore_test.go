package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// stuckAgent runs a second each iteration, but hangs in iteration stuckAt,
// where the test pulls the server away under it.
func stuckAgent(stuckAt int) []string {
	return []string{"sh", "-c", fmt.Sprintf(`echo "work $RALPH_ITERATION"; if [ "$RALPH_ITERATION" = %d ]; then sleep 120; fi; sleep 1`, stuckAt)}
}

// loopArgs are a loop of stuckAgent to 4 iterations, in arg mode.
func loopArgs(stuckAt int) []string {
	return append([]string{"--prompt-mode", "arg", "--max-iterations", "4", "--"}, stuckAgent(stuckAt)...)
}

// killServer kills the test's tmux server as a reboot would, and waits
// until the loops whose watchers still run have recorded server_gone and
// their watchers exited (a moment later: restore leaves a watched loop be).
func (c *cli) killServer(gone ...string) {
	c.t.Helper()
	c.srv.Kill()
	for _, name := range gone {
		st := c.until(name, "server_gone", func(st *state.State) bool { return st.ExitReason != nil && *st.ExitReason == "server_gone" })
		tmuxtest.Eventually(c.t, 30*time.Second, name+"'s watcher to exit", func() bool { return !alive(st.WatcherPID) })
	}
}

// newServer starts a fresh server on the same socket, as tmux after a reboot.
func (c *cli) newServer() {
	c.t.Helper()
	c.srv.Must("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "40")
}

// wantGoneOn checks that loop name ran its iterations in the window named
// after it in session ralph, went on from next, and kept its earlier log.
func (c *cli) wantGoneOn(name string, before, next int) {
	c.t.Helper()
	st := c.until(name, "the loop to end", func(st *state.State) bool { return st.ExitReason != nil && *st.ExitReason != "server_gone" })
	if *st.ExitReason != "max_iterations" || st.CurrentIteration != 4 {
		c.t.Errorf("%s ended with %s at iteration %d, want max_iterations at 4", name, *st.ExitReason, st.CurrentIteration)
	}
	window := strings.TrimSpace(c.srv.Must("display", "-p", "-t", st.PaneID, "#{session_name}:#{window_name}"))
	if window != "ralph:"+name {
		c.t.Errorf("%s ran in %s (pane %s), want ralph:%s", name, window, st.PaneID, name)
	}
	log := c.log(name)
	for i := 1; i <= 4; i++ {
		want := fmt.Sprintf("[START] iteration %d/4", i)
		if n := strings.Count(log, want); n != map[bool]int{true: 0, false: 1}[i > before && i < next] {
			c.t.Errorf("%s: log has %q %d times:\n%s", name, want, n, log)
		}
	}
	if !regexp.MustCompile(`\[RESTORE\] (recreated|took) pane ` + st.PaneID + ` (in|of) window ralph:` + name).MatchString(log) {
		c.t.Errorf("%s: log does not say where its pane is now:\n%s", name, log)
	}
}

// Killing the tmux server mid-loop and starting a new one on the same
// socket (whose own pane takes the loop's old pane id), resume recreates the
// pane in a window named after the loop and goes on at the next iteration.
func TestResumeAfterTheServerWasKilledGoesOnInANewWindow(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	old := c.detach("phoenix", loopArgs(2)...)
	c.until("phoenix", "iteration 2", func(st *state.State) bool { return st.CurrentIteration == 2 })
	c.killServer("phoenix")
	c.want([]string{"status", "phoenix"}, 0, "Exit reason: server_gone", "")

	c.newServer()
	if id := c.srv.NewPane(); id != old {
		t.Logf("the new server's pane is %s, the loop's was %s", id, old)
	}
	c.want([]string{"resume", "-t", "%0", "nosuch"}, 1, "", "no ralph state found")
	out := c.want([]string{"resume", "phoenix"}, 0, "recreated pane %", "")
	if !strings.Contains(out, "in window ralph:phoenix\n") || !strings.Contains(out, "resumed ralph loop for phoenix (watcher pid ") {
		t.Errorf("resume said:\n%s", out)
	}
	c.wantGoneOn("phoenix", 2, 3)
	if c.srv.Option(old, "@ralph-name") != "" {
		t.Errorf("the new server's pane %s, not the loop's, was looped", old)
	}
}

// resume starts the server on the loop's socket when none runs; -t puts the
// loop in a pane of the person's choosing, and only when its own is gone.
func TestResumeStartsTheServerAndTakesAPaneWithT(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.detach("alone", loopArgs(1)...)
	c.until("alone", "iteration 1", func(st *state.State) bool { return st.CurrentIteration == 1 })
	c.killServer("alone")
	c.want([]string{"resume", "alone"}, 0, "recreated pane %0 in window ralph:alone", "")
	c.wantGoneOn("alone", 1, 2)

	c.srv.Must("new-session", "-d", "-s", "main")
	there := strings.TrimSpace(c.srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-c", "/", "-t", "main:"))
	c.detach("moved", loopArgs(2)...)
	c.until("moved", "iteration 2", func(st *state.State) bool { return st.CurrentIteration == 2 })
	c.want([]string{"resume", "-t", there, "moved"}, 0, "", "is not paused")
	folder := c.state("moved").Dir
	c.srv.Must("kill-pane", "-t", c.state("moved").PaneID)
	c.until("moved", "pane_closed", func(st *state.State) bool { return st.ExitReason != nil && *st.ExitReason == "pane_closed" })
	c.want([]string{"resume", "-t", there, "moved"}, 0, "moved to pane "+there, "")
	st := c.until("moved", "the loop to end", func(st *state.State) bool { return st.ExitReason != nil && *st.ExitReason != "pane_closed" })
	if *st.ExitReason != "max_iterations" || st.PaneID != there {
		t.Errorf("moved ended with %s in pane %s, want max_iterations in %s", *st.ExitReason, st.PaneID, there)
	}
	if st.Dir != folder {
		t.Errorf("the loop ran in %s in pane %s, in %s before", st.Dir, there, folder)
	}
}

// restore re-arms the loops that were live when the server died, whether
// their watcher saw it (server_gone) or died with it (a reboot: the state
// says running, no watcher holds it), taking the window of its name that
// tmux-resurrect brought back, else making one; a loop the person stopped or paused,
// and a loop of another server, stay as they were; a second restore finds
// every loop watched and re-arms nothing.
func TestRestoreReArmsOnlyTheLoopsLiveWhenTheServerDied(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.detach("gone", loopArgs(2)...)
	c.detach("rebooted", loopArgs(2)...)
	c.detach("stopped", loopArgs(2)...)
	c.detach("paused", loopArgs(2)...)
	for _, name := range []string{"gone", "rebooted", "stopped", "paused"} {
		c.until(name, "iteration 2", func(st *state.State) bool { return st.CurrentIteration == 2 })
	}
	c.want([]string{"stop", "stopped"}, 0, "stopped ralph loop for stopped", "")
	c.want([]string{"pause", "paused"}, 0, "paused ralph loop for paused", "")
	watcher, folder := c.state("rebooted").WatcherPID, c.state("rebooted").Dir
	syscall.Kill(watcher, syscall.SIGKILL)
	tmuxtest.Eventually(t, 10*time.Second, "the watcher to die", func() bool {
		return syscall.Kill(watcher, 0) != nil
	})
	other := filepath.Join(c.srv.Dir, "state", "other")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "state.json"), []byte(`{"worker_name":"other","status":"failed","exit_reason":"server_gone",
		"tmux_socket":"/nonexistent/socket","watcher_args":["--target","%1"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c.killServer("gone")

	c.want([]string{"restore", "-S", c.srv.Socket}, 1, "", "no tmux server")
	c.newServer()
	c.srv.Must("new-session", "-d", "-s", "ralph", "-n", "rebooted", "-c", "/")
	dry := c.want([]string{"restore", "--dry-run", "-S", c.srv.Socket}, 0, "", "")
	if dry != "would re-arm gone (iteration 2, server_gone)\nwould re-arm rebooted (iteration 2, monitor_disconnected (agent removed))\n" {
		t.Errorf("restore --dry-run said:\n%s", dry)
	}
	out := c.want([]string{"restore", "-S", c.srv.Socket}, 0, "", "")
	took := strings.TrimSpace(c.srv.Must("display", "-p", "-t", "=ralph:=rebooted", "#{pane_id}"))
	for _, want := range []string{"re-armed gone: recreated pane %", "re-armed rebooted: took pane " + took + " of window ralph:rebooted; iteration 2 was cut short"} {
		if !strings.Contains(out, want) {
			t.Errorf("restore does not say %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "\n") != 2 {
		t.Errorf("restore said more than one line per re-armed loop:\n%s", out)
	}
	if again := c.want([]string{"restore", "-S", c.srv.Socket}, 0, "", ""); again != "" {
		t.Errorf("a second restore said:\n%s", again)
	}
	c.wantGoneOn("gone", 2, 3)
	c.wantGoneOn("rebooted", 2, 3)
	if log := c.log("rebooted"); !strings.Contains(log, "iteration 2 was cut short") {
		t.Errorf("rebooted: log does not say iteration 2 was cut short:\n%s", log)
	}
	if dir := c.state("rebooted").Dir; dir != folder {
		t.Errorf("the loop ran in %s after the restart, in %s before", dir, folder)
	}
	if st := c.state("stopped"); st.Status != state.Stopped {
		t.Errorf("the stopped loop is %s", st.Status)
	}
	if st := c.state("paused"); st.Status != state.Paused || st.CurrentIteration != 2 {
		t.Errorf("the paused loop is %s at iteration %d", st.Status, st.CurrentIteration)
	}
	if st := c.state("other"); st.Status != state.Failed {
		t.Errorf("the other server's loop is %s", st.Status)
	}
}

// Outside tmux, with no -L or -S, restore looks at each loop's own server
// (its recorded socket), not at the default one, which no loop here uses;
// a loop whose server does not run is left for a later restore.
func TestRestoreOutsideTmuxGoesToEachLoopsOwnServer(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.detach("gone", loopArgs(2)...)
	c.until("gone", "iteration 2", func(st *state.State) bool { return st.CurrentIteration == 2 })
	other := filepath.Join(c.srv.Dir, "state", "other")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "state.json"), []byte(`{"worker_name":"other","status":"failed","exit_reason":"server_gone",
		"tmux_socket":"/nonexistent/socket","watcher_args":["--target","%1"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c.killServer("gone")
	c.newServer()
	if dry := c.want([]string{"restore", "--dry-run"}, 0, "", ""); dry != "would re-arm gone (iteration 2, server_gone)\n"+
		"no tmux server runs on /nonexistent/socket: other waits for it; start tmux there, then 'ralph-watch restore'\n" {
		t.Errorf("restore --dry-run outside tmux said:\n%s", dry)
	}
	c.want([]string{"restore"}, 0, "re-armed gone: recreated pane %", "")
	c.wantGoneOn("gone", 2, 3)
	if st := c.state("other"); st.Status != state.Failed {
		t.Errorf("the loop of a server that does not run is %s", st.Status)
	}
}

// Outside tmux with no server on tmux's default socket, restore says so,
// and names that socket: a loop recorded there waits for it; with no loop
// at all, there is nothing to re-arm.
func TestRestoreOutsideTmuxSaysNoServerRunsOnTheDefaultSocket(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	tmpdir, err := filepath.EvalSymlinks(filepath.Join(c.srv.Dir, "tmp")) // the test's TMUX_TMPDIR
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(tmpdir, "tmux-"+strconv.Itoa(os.Getuid()), "default")
	for _, dry := range []string{"--dry-run", ""} {
		args := append([]string{"restore"}, strings.Fields(dry)...)
		if out := c.want(args, 0, "", ""); out != "no tmux server runs on the default socket ("+socket+"): no loop to re-arm\n" {
			t.Errorf("restore %s with no loop and no server said %q", dry, out)
		}
	}
	lost := filepath.Join(c.srv.Dir, "state", "lost")
	if err := os.MkdirAll(lost, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lost, "state.json"), []byte(`{"worker_name":"lost","status":"failed","exit_reason":"server_gone",
		"tmux_socket":"`+socket+`","watcher_args":["--target","%1"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "no tmux server runs on " + socket + " (the default socket): lost waits for it; start tmux there, then 'ralph-watch restore'\n"
	if out := c.want([]string{"restore", "--dry-run"}, 0, "", ""); out != want {
		t.Errorf("restore --dry-run with a loop of the default socket said %q, want %q", out, want)
	}
	// That is the socket tmux itself uses.
	start := exec.Command("tmux", "-f", "/dev/null", "new-session", "-d", ";", "display-message", "-p", "#{socket_path}")
	start.Env = c.srv.Env
	out, err := start.CombinedOutput()
	defer func() {
		kill := exec.Command("tmux", "kill-server")
		kill.Env = c.srv.Env
		_ = kill.Run()
	}()
	if err != nil || strings.TrimSpace(string(out)) != socket {
		t.Errorf("tmux's default socket is %q (%v), restore named %s", out, err, socket)
	}
}
