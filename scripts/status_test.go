package scripts_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// styles drops #[…] style sequences: what is left takes room on the line.
var styles = regexp.MustCompile(`#\[[^]]*\]`)

// loopOptions sets a pane's options as its watcher keeps them (contract 2:
// @ralph-live "1" while live, removed with the rest after the linger).
func loopOptions(srv *tmuxtest.Server, pane string, options map[string]string) {
	for name, value := range options {
		if value == "" {
			_, _ = srv.Tmux("set-option", "-p", "-u", "-t", pane, name)
			continue
		}
		srv.Must("set-option", "-p", "-t", pane, name, value)
	}
}

// Four loops in four windows, one waiting hours for a limit: the status
// line names each by its window, styles each by its state, keeps the clock
// (the plugin raised status-right-length to fit, and cut the loops to
// @ralph-status-width), marks only windows whose loop lives, and forgets a
// loop whose options the watcher removed.
func TestStatusLineStaysReadableWithManyLoops(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	p := install(t, srv, filepath.Join(srv.Dir, "home", ".tmux", "plugins", "ralph.tmux"), false)
	p.configure(map[string]string{
		"status-right":         "#{ralph_status}| %H:%M",
		"status-right-length":  "40",
		"window-status-format": "#I:#W #{ralph_window}",
	})
	loops := []map[string]string{
		{"@ralph-name": "api-1", "@ralph-state": "running", "@ralph-live": "1", "@ralph-status": "⟳ 2/3"},
		{"@ralph-name": "web-2", "@ralph-state": "done", "@ralph-ended": "1", "@ralph-status": "✓ 1/3", "@ralph-reason": "done_pattern"},
		{"@ralph-name": "cli-3", "@ralph-state": "needs-input", "@ralph-live": "1", "@ralph-attention": "1", "@ralph-status": "✋ 1/3 needs input"},
		{"@ralph-name": "doc-4", "@ralph-state": "waiting", "@ralph-live": "1", "@ralph-status": "⏳ 0/3 waiting for limit reset (11:13)"},
	}
	var panes []string
	for _, options := range loops {
		pane := strings.TrimSpace(srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:"))
		loopOptions(srv, pane, options)
		panes = append(panes, pane)
	}
	p.source()
	p.attach()

	length, _ := strconv.Atoi(strings.TrimSpace(srv.Must("show-options", "-gv", "status-right-length")))
	if length != 67 { // "| 12:00" and the loops' 60 cells
		t.Errorf("status-right-length %d, want 67", length)
	}
	right := p.statusRight()
	shown := strings.TrimSuffix(styles.ReplaceAllString(right, ""), "\n")
	if !regexp.MustCompile(`\| \d\d:\d\d$`).MatchString(shown) {
		t.Errorf("the clock is not at the end of %q", shown)
	}
	if n := utf8.RuneCountInString(shown); n > length {
		t.Errorf("status right is %d cells, status-right-length %d: %q", n, length, shown)
	}
	// The question first, the ended loop last; the waiting loop (27 cells)
	// and the ended one do not fit in the 60 cells with the count.
	for _, want := range []string{"#[fg=black,bg=yellow,bold]3:✋ 1/3 needs input#[default] #[norange default]#[bold]1:⟳ 2/3#[default] #[norange default]#[default]+2 |"} {
		if !strings.Contains(right, want) {
			t.Errorf("status right lacks %q:\n%s", want, right)
		}
	}
	for i, pane := range panes {
		window := srv.Must("display-message", "-p", "-t", pane, "#{E:window-status-format}")
		if live := loops[i]["@ralph-live"] == "1"; live != strings.Contains(window, "⟳") {
			t.Errorf("window of %s (%s): %q", loops[i]["@ralph-name"], loops[i]["@ralph-state"], window)
		}
	}

	// The watcher removes an ended loop's options after the linger.
	loopOptions(srv, panes[1], map[string]string{"@ralph-name": "", "@ralph-state": "", "@ralph-ended": "", "@ralph-status": "", "@ralph-reason": ""})
	if right := p.statusRight(); strings.Contains(right, "✓") || strings.Contains(right, "]2:") { // "]": not the clock's 22:05
		t.Errorf("a removed loop stays in the status line: %q", right)
	}

	t.Run("a longer status-right-length is kept", func(t *testing.T) {
		srv := tmuxtest.Start(t)
		p := install(t, srv, filepath.Join(srv.Dir, "plugin"), false)
		p.configure(map[string]string{"status-right": "#{ralph_status}| %H:%M", "status-right-length": "300", "status-left": "#{ralph_status}"})
		p.source()
		if got := strings.TrimSpace(srv.Must("show-options", "-gv", "status-right-length")); got != "300" {
			t.Errorf("status-right-length %s, want 300 kept", got)
		}
		if got := strings.TrimSpace(srv.Must("show-options", "-gv", "status-left-length")); got != "60" {
			t.Errorf("status-left-length %s, want 60 (the loops' width)", got)
		}
	})
}

// A finished loop stays in the status line for @ralph-ended-linger, then
// leaves it; ralph-watch clean removes it at once.
func TestEndedLoopsLeaveTheStatusLine(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	agent := srv.FakeAgent("agent", "ready\nread\nprint working\nsleep 3s\nprint RALPH_DONE\nsleep 120s\n") // 3 s: live when looked at, however loaded
	p.load(map[string]string{"status-right": "#{ralph_status}| right", "@ralph-command": command(agent), "@ralph-ended-linger": "3"})
	_, lingering := p.project("lingering", "go\n")
	p.startWithLoopKey(lingering)
	wantLive(t, srv, lingering)
	p.waitOption(lingering, "@ralph-state", "done")
	if right := p.statusRight(); !strings.Contains(right, "✓ 1/20") {
		t.Errorf("the done loop is not shown: %q", right)
	}
	tmuxtest.Eventually(t, 30*time.Second, "the done loop to leave the status line", func() bool {
		return !strings.Contains(p.statusRight(), "✓")
	})

	srv.Must("set-option", "-g", "@ralph-ended-linger", "0") // kept for good, but for clean
	_, cleaned := p.project("cleaned", "go\n")
	tmuxtest.Eventually(t, 10*time.Second, "the shell's prompt", func() bool { // not a shell still starting
		return strings.TrimSpace(srv.Capture(cleaned)) != ""
	})
	p.press("A")
	p.choose("Start the loop", "y")
	p.waitOption(cleaned, "@ralph-state", "done")
	name := srv.Option(cleaned, "@ralph-name")
	time.Sleep(2 * time.Second)
	if right := p.statusRight(); !strings.Contains(right, "✓ 1/20") {
		t.Fatalf("with linger 0 the done loop left: %q", right)
	}
	cmd := p.ralphWatch("clean", name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clean %s: %v: %s", name, err, out)
	}
	if right := p.statusRight(); strings.Contains(right, "✓") {
		t.Errorf("clean left the loop in the status line: %q", right)
	}
}

// ralphWatch is the plugin's ralph-watch run against the test server's state.
func (p *plugin) ralphWatch(args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(p.dir, "bin", "ralph-watch"), args...)
	cmd.Env = p.srv.Env
	return cmd
}

// The keys read a pane's loop from its options in one tmux call, fields
// apart: on every tmux each field arrives whole, an empty one kept (tmux
// 3.4 and later print a control character as \NNN, so a separator of one
// read everything as the loop's name, and the pause and stop keys called a
// live loop ended).
func TestTheKeysReadALoopsOptionsWholeOnEveryTmux(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	pane := srv.NewPane()
	read := func() string {
		t.Helper()
		cmd := exec.Command("bash", "-c", `source ./helpers.sh; read_loop "$1"; printf '%s|' "$loop_name" "$loop_live" "$loop_state" "$loop_reason"`, "bash", pane)
		cmd.Env = append(append([]string(nil), srv.Env...), "TMUX="+srv.Socket+",0,0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("read_loop: %v: %s", err, out)
		}
		return string(out)
	}
	if got := read(); got != "||||" {
		t.Errorf("a pane without a loop reads %q, want every field empty", got)
	}
	loopOptions(srv, pane, map[string]string{"@ralph-name": "my-loop", "@ralph-live": "1", "@ralph-state": "needs-input",
		"@ralph-reason": "an answer in the pane (the agent is asking: a | b)"})
	if got, want := read(), "my-loop|1|needs-input|an answer in the pane (the agent is asking: a | b)|"; got != want {
		t.Errorf("a live loop reads %q, want %q", got, want)
	}
	loopOptions(srv, pane, map[string]string{"@ralph-live": "", "@ralph-state": "stopped", "@ralph-reason": ""})
	if got, want := read(), "my-loop||stopped||"; got != want {
		t.Errorf("an ended loop reads %q, want %q", got, want)
	}
}
