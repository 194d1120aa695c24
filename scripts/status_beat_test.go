package scripts_test

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// loopsShown is the loops' part of a status-right "#{ralph_status}| …" as
// drawn (styles dropped), and the rest.
func loopsShown(right string) (loops, rest string) {
	shown := strings.TrimSuffix(styles.ReplaceAllString(right, ""), "\n")
	loops, rest, _ = strings.Cut(shown, "| ")
	return loops, rest
}

// More loops than @ralph-status-width holds: as many whole ones as fit
// in that many cells with the count of the rest, so the clock after them
// keeps its place.
func TestLoopsCutToTheStatusWidthLeaveTheClockWhole(t *testing.T) {
	srv := tmuxtest.Start(t)
	p := install(t, srv, filepath.Join(srv.Dir, "plugin"), false)
	p.configure(map[string]string{"status-right": "#{ralph_status}| %H:%M", "@ralph-status-width": "30"})
	for i := 0; i < 6; i++ {
		pane := strings.TrimSpace(srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:"))
		loopOptions(srv, pane, map[string]string{"@ralph-name": "loop-" + strconv.Itoa(i), "@ralph-state": "running", "@ralph-live": "1", "@ralph-status": "⟳ 12/20"})
	}
	p.source()
	length, _ := strconv.Atoi(strings.TrimSpace(srv.Must("show-options", "-gv", "status-right-length")))
	right := srv.Must("display-message", "-p", "-t", "main:", "#{T:status-right}")
	loops, clock := loopsShown(right)
	if want := "1:⟳ 12/20 2:⟳ 12/20 +4 "; loops != want { // three and "+3 " take 33 cells
		t.Errorf("the loops show as %q, want %q", loops, want)
	}
	if all := utf8.RuneCountInString(loops + "| " + clock); all > length || len(clock) != 5 {
		t.Errorf("status right %q is %d cells, status-right-length %d: the clock is cut", loops+"| "+clock, all, length)
	}

	// Loops that fit exactly are not cut.
	srv.Must("set-option", "-g", "status-right", "#{ralph_status}| %H:%M")
	srv.Must("set-option", "-g", "@ralph-status-width", "60") // six loops of "N:⟳ 12/20 ", 10 cells each
	p.source()
	right = srv.Must("display-message", "-p", "-t", "main:", "#{T:status-right}")
	if loops, _ := loopsShown(right); strings.Contains(loops, "+") || utf8.RuneCountInString(loops) != 60 {
		t.Errorf("loops that fit are cut: %q (%d cells)", loops, utf8.RuneCountInString(loops))
	}
}

// Two sessions, each with a loop in its window 0: the status line tells
// them apart by the session; with loops of one session it names windows only.
func TestLoopsOfTwoSessionsShowTheirSession(t *testing.T) {
	srv := tmuxtest.Start(t)
	p := install(t, srv, filepath.Join(srv.Dir, "plugin"), false)
	p.configure(map[string]string{"status-right": "#{ralph_status}| %H:%M"})
	srv.Must("new-session", "-d", "-s", "other")
	main := strings.TrimSpace(srv.Must("display-message", "-p", "-t", "main:0", "#{pane_id}"))
	other := strings.TrimSpace(srv.Must("display-message", "-p", "-t", "other:0", "#{pane_id}"))
	loopOptions(srv, main, map[string]string{"@ralph-name": "a", "@ralph-state": "running", "@ralph-live": "1", "@ralph-status": "⟳ 1/3"})
	p.source()
	if loops, _ := loopsShown(p.statusRight()); loops != "0:⟳ 1/3 " {
		t.Errorf("one session's loop shows as %q, want %q", loops, "0:⟳ 1/3 ")
	}
	loopOptions(srv, other, map[string]string{"@ralph-name": "b", "@ralph-state": "done", "@ralph-status": "✓ 2/3"})
	if loops, _ := loopsShown(p.statusRight()); loops != "main:0:⟳ 1/3 other:0:✓ 2/3 " {
		t.Errorf("two sessions' loops show as %q, want %q", loops, "main:0:⟳ 1/3 other:0:✓ 2/3 ")
	}
}

// A person in one session sees a loop of another session by its session
// and window, not as a window 0 that reads as their own.
func TestALoopInAnotherSessionShowsItsSessionToTheClient(t *testing.T) {
	srv := tmuxtest.Start(t)
	p := install(t, srv, filepath.Join(srv.Dir, "plugin"), false)
	p.configure(map[string]string{"status-right": "#{ralph_status}| %H:%M"})
	srv.Must("new-session", "-d", "-s", "work")
	pane := strings.TrimSpace(srv.Must("display-message", "-p", "-t", "work:0", "#{pane_id}"))
	loopOptions(srv, pane, map[string]string{"@ralph-name": "w", "@ralph-state": "running", "@ralph-live": "1", "@ralph-status": "⟳ 6/30"})
	p.source()
	p.attach() // to session main
	client := strings.TrimSpace(srv.Must("list-clients", "-F", "#{client_name}"))
	right := srv.Must("display-message", "-c", client, "-p", "#{E:status-right}")
	if loops, _ := loopsShown(right); loops != "work:0:⟳ 6/30 " {
		t.Errorf("the client in main sees work's loop as %q, want %q", loops, "work:0:⟳ 6/30 ")
	}
	tmuxtest.Eventually(t, 10*time.Second, "the client to draw it", func() bool { return strings.Contains(p.screen.String(), "work:0:") })
	// In its own session, the loop needs no session name.
	srv.Must("switch-client", "-c", client, "-t", "work")
	right = srv.Must("display-message", "-c", client, "-p", "#{E:status-right}")
	if loops, _ := loopsShown(right); loops != "0:⟳ 6/30 " {
		t.Errorf("the client in work sees its loop as %q, want %q", loops, "0:⟳ 6/30 ")
	}
}

// A watcher killed with SIGKILL leaves its loop's options saying it runs;
// its beat grows old, and within seconds the status line says no watcher
// runs it, with nothing forked on a redraw. A watcher that lives keeps the
// mark away.
func TestAKilledWatcherShowsInTheStatusLineWithinSeconds(t *testing.T) {
	srv, p := installTPM(t)
	agent := srv.FakeAgent("agent", "ready\nread\nprint working\nsleep 300s\n")
	p.configure(map[string]string{"status-right": "#{ralph_status}| %H:%M", "@ralph-command": command(agent), "@ralph-beat-timeout": "4", "status-interval": "1"})
	p.source()
	if right := srv.Must("show-options", "-gv", "status-right"); strings.Contains(right, "#(") {
		t.Fatalf("the status line forks: %s", right)
	}
	p.attach()
	_, pane := p.project("beating", "go\n")
	p.startWithLoopKey(pane)
	wantLive(t, srv, pane)
	time.Sleep(6 * time.Second) // longer than the timeout: only renewed beats keep it fresh
	if right := p.statusRight(); !strings.Contains(right, "⟳ 1/20") || strings.Contains(right, "no watcher") {
		t.Fatalf("a running watcher's loop shows %q", right)
	}
	out, err := p.ralphWatch("status", "--json", srv.Option(pane, "@ralph-name")).Output()
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		PID int `json:"watcher_pid"`
	}
	if err := json.Unmarshal(out, &st); err != nil || st.PID <= 0 {
		t.Fatalf("no watcher pid in status --json (%v):\n%s", err, out)
	}
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	tmuxtest.Eventually(t, 15*time.Second, "the status line to say the watcher is gone", func() bool {
		return strings.Contains(p.statusRight(), "⚠ 1/20 no watcher")
	})
	if took := time.Since(killed); took > 8*time.Second {
		t.Errorf("the status line said it %s after the kill, want within the timeout and a beat", took)
	}
	tmuxtest.Eventually(t, 5*time.Second, "the attached client to draw it", func() bool {
		return strings.Contains(p.screen.String(), "no watcher")
	})
	if right := p.statusRight(); !strings.Contains(right, "#["+strings.TrimSpace(srv.Must("show-options", "-gv", "@ralph-style-stale"))+"]") {
		t.Errorf("the lost loop is not styled @ralph-style-stale: %q", right)
	}
}
