package scripts_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// In the popup, + shows the raised limit at once (the loop's row and the
// status line, while the iteration still runs), and n takes a note typed
// in the popup and gives it to the loop byte for byte: %, #{…}, $(…),
// quotes and backslashes as typed.
func TestPopupRaisedLimitShowsAtOnceAndANoteArrivesAsTyped(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	agent := srv.FakeAgent("agent", slowAgent)
	p.load(map[string]string{"@ralph-command": command(agent), "status-right": "#{ralph_status}| %H:%M"})
	_, pane := p.project("steered", "do the next task\n")
	p.startWithLoopKey(pane)
	name := srv.Option(pane, "@ralph-name")
	tmuxtest.Eventually(t, 30*time.Second, "the agent at work", func() bool { return strings.Contains(srv.Capture(pane), "working on it") })

	p.press("W")
	tmuxtest.Eventually(t, 30*time.Second, "the popup to offer the keys", func() bool {
		return strings.Contains(p.shown(), "n note · + 10 more")
	})
	p.typeKeys("+")
	tmuxtest.Eventually(t, 10*time.Second, "the new limit in the pane's options, the popup and the status line", func() bool {
		return srv.Option(pane, "@ralph-max") == "30" && strings.Contains(p.shown(), "⟳ 1/30") && strings.Contains(p.statusRight(), "⟳ 1/30")
	})
	if st := srv.Option(pane, "@ralph-iteration"); st != "1" {
		t.Errorf("the limit showed only at iteration %s", st)
	}

	note := `a %% b %1 %%% #{pane_id} $(touch pwned) 'q' "d" \n ~ ;`
	p.typeKeys("n")
	tmuxtest.Eventually(t, 10*time.Second, "the note prompt", func() bool {
		return strings.Contains(p.shown(), "note for "+name+": ")
	})
	if _, err := p.tty.Write([]byte(note + "\r")); err != nil {
		t.Fatal(err)
	}
	tmuxtest.Eventually(t, 10*time.Second, "the popup to say the note went", func() bool {
		return strings.Contains(p.shown(), "note for the next iteration of "+name)
	})
	store, err := state.Open(filepath.Join(srv.Dir, "state"), name)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range store.Steers() {
		if s.Kind == state.SteerNote {
			texts = append(texts, s.Text)
		}
	}
	if fmt.Sprint(texts) != fmt.Sprint([]string{note}) {
		t.Errorf("the loop got the notes %q, want %q as typed", texts, note)
	}
	p.typeKeys("q")
}

// A popup of more loops than it has rows keeps its title and the chosen
// loop in sight, says how many rows are above and below, and fits every
// line in its width: the person sees the loop the keys act on.
func TestPopupOfManyLoopsKeepsItsTitleAndTheChosenLoopInSight(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	p.load(nil)
	for i := 1; i <= 36; i++ {
		w := strings.TrimSpace(srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:"))
		loopOptions(srv, w, map[string]string{"@ralph-name": fmt.Sprintf("loop-%02d", i), "@ralph-state": "running", "@ralph-live": "1",
			"@ralph-status": fmt.Sprintf("⟳ %d/20", i), "@ralph-reason": strings.Repeat("a long reason ", 12)})
	}
	// The popup's own program in a pane of the popup's size, where what
	// it draws can be read back as the person sees it.
	view := strings.TrimSpace(srv.Must("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "view", "-x", "100", "-y", "30",
		shQuote(filepath.Join(p.dir, "scripts", "popup.sh"))+" %0 '' view"))
	screen := func() []string {
		return strings.Split(strings.TrimRight(srv.Must("capture-pane", "-p", "-t", view), "\n"), "\n")
	}
	inSight := func(chosen string) bool {
		lines := screen()
		return len(lines) > 0 && strings.HasPrefix(lines[0], "ralph: every loop of this server (36)") && strings.Contains(strings.Join(lines, "\n"), "> "+chosen)
	}
	tmuxtest.Eventually(t, 20*time.Second, "the popup with the first loop chosen", func() bool { return inSight("1  main:1.0 ") })
	if all := strings.Join(screen(), "\n"); !strings.Contains(all, "more below") {
		t.Errorf("the popup does not say there are more loops below:\n%s", all)
	}
	srv.Must(append([]string{"send-keys", "-t", view}, strings.Split(strings.Repeat("j", 30), "")...)...) // a held key: 30 at once
	tmuxtest.Eventually(t, 60*time.Second, "the 31st loop chosen, the title in sight", func() bool { return inSight("31  main:31.0 ") })
	all := strings.Join(screen(), "\n")
	if !strings.Contains(all, "10 more above") || !strings.Contains(all, "q: close") {
		t.Errorf("the popup does not say how many loops are above, or lost its keys:\n%s", all)
	}
	width, _ := strconv.Atoi(strings.TrimSpace(srv.Must("display-message", "-p", "-t", view, "#{pane_width}")))
	for _, line := range screen() {
		if n := len([]rune(line)); n >= width { // a line as wide as the popup wraps
			t.Errorf("a line of %d cells in a popup of %d: %q", n, width, line)
		}
	}
}
