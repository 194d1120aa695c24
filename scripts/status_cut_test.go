package scripts_test

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// More loops than fit: the status line shows whole entries, the loops that
// need the person first (a question, a failure, a watcher gone) and the
// ended ones last, says how many more there are, and closes the last
// entry's style, so the clock after it reads in the bar's own colours.
func TestLoopsThatDoNotFitShowWholeTheOnesThatNeedThePersonFirst(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	p := install(t, srv, filepath.Join(srv.Dir, "plugin"), false)
	p.configure(map[string]string{"status-right": "#{ralph_status}| %H:%M", "@ralph-status-width": "50"})
	old := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
	loops := []map[string]string{ // window 1, 2, …
		{"@ralph-name": "d1", "@ralph-state": "done", "@ralph-ended": "1", "@ralph-status": "✓ 3/3"},
		{"@ralph-name": "d2", "@ralph-state": "done", "@ralph-ended": "1", "@ralph-status": "✓ 12/50"},
		{"@ralph-name": "r3", "@ralph-state": "running", "@ralph-live": "1", "@ralph-status": "⟳ 12/50 · 3/12"},
		{"@ralph-name": "s4", "@ralph-state": "stopped", "@ralph-ended": "1", "@ralph-status": "■ 4/20"},
		{"@ralph-name": "lost5", "@ralph-state": "running", "@ralph-live": "1", "@ralph-status": "⟳ 7/20", "@ralph-iteration": "7", "@ralph-max": "20", "@ralph-beat": old},
		{"@ralph-name": "ask6", "@ralph-state": "needs-input", "@ralph-live": "1", "@ralph-attention": "1", "@ralph-status": "✋ 2/10 needs input"},
	}
	for _, options := range loops {
		pane := strings.TrimSpace(srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:"))
		loopOptions(srv, pane, options)
	}
	p.source()
	right := p.statusRight()
	loops0, clock := loopsShown(right)
	if !regexp.MustCompile(`^\d\d:\d\d$`).MatchString(clock) {
		t.Fatalf("no clock after the loops: %q", right)
	}
	// The style in force where the clock is drawn: the last one before it.
	before, _, _ := strings.Cut(right, "| ")
	styles := regexp.MustCompile(`#\[([^]]*)\]`).FindAllStringSubmatch(before, -1)
	if last := styles[len(styles)-1][1]; !strings.HasSuffix(last, "default") {
		t.Errorf("the clock is drawn in the style %q of the last loop shown, want the bar's own (default): %q", last, right)
	}
	// What shows is whole entries, one after another, then the count.
	whole := []string{"6:✋ 2/10 needs input ", "5:⚠ 7/20 no watcher ", "3:⟳ 12/50 · 3/12 ", "1:✓ 3/3 ", "2:✓ 12/50 ", "4:■ 4/20 "}
	var entries []string
	rest := loops0
	for next := true; next; {
		next = false
		for _, e := range whole {
			if strings.HasPrefix(rest, e) {
				entries, rest, next = append(entries, e), strings.TrimPrefix(rest, e), true
			}
		}
	}
	if want := "+" + strconv.Itoa(len(loops)-len(entries)) + " "; rest != want || len(entries) < 2 {
		t.Errorf("after %d whole loops comes %q, want %q (how many were left out): %q", len(entries), rest, want, loops0)
	}
	if len(entries) < 2 || !strings.HasPrefix(entries[0], "5:⚠") || !strings.HasPrefix(entries[1], "6:✋") {
		t.Errorf("the loops that need the person are not first: %q", loops0)
	}
	if n := len([]rune(loops0)); n > 50 {
		t.Errorf("the loops take %d cells, more than @ralph-status-width 50: %q", n, loops0)
	}

	// Wide enough for all: every one, the ended last, and no count; a
	// fan's window ranks with the live loops while it runs, then with the ended.
	fan := strings.TrimSpace(srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:"))
	loopOptions(srv, fan, map[string]string{"@ralph-name": "f7", "@ralph-state": "running", "@ralph-fan": "1", "@ralph-status": "⟳ 2 loops · 1/5 landed"})
	srv.Must("set-option", "-g", "status-right", "#{ralph_status}| %H:%M")
	srv.Must("set-option", "-g", "@ralph-status-width", "150")
	p.source()
	if loops, _ := loopsShown(p.statusRight()); loops != "5:⚠ 7/20 no watcher 6:✋ 2/10 needs input 3:⟳ 12/50 · 3/12 7:⟳ 2 loops · 1/5 landed 1:✓ 3/3 2:✓ 12/50 4:■ 4/20 " {
		t.Errorf("all loops show as %q", loops)
	}
	loopOptions(srv, fan, map[string]string{"@ralph-state": "done", "@ralph-status": "✓ 5/5 landed"})
	if loops, _ := loopsShown(p.statusRight()); loops != "5:⚠ 7/20 no watcher 6:✋ 2/10 needs input 3:⟳ 12/50 · 3/12 1:✓ 3/3 2:✓ 12/50 4:■ 4/20 7:✓ 5/5 landed " {
		t.Errorf("with the fan ended all loops show as %q", loops)
	}
}

// Every state's default style reads on tmux's default status bar (green)
// and on a dark one: its text colour is never the colour under it.
func TestTheDefaultStylesReadOnTheDefaultBarAndOnADarkOne(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	p := install(t, srv, filepath.Join(srv.Dir, "plugin"), false)
	p.source()
	bar := strings.TrimSpace(srv.Must("show-options", "-gv", "status-style")) // tmux's own default
	states := []string{"stale"}
	for _, s := range contract.Statuses() {
		states = append(states, s.String())
	}
	for _, bar := range []string{bar, "bg=black,fg=white"} {
		barFg, barBg := colours(bar, "default", "default")
		for _, state := range states {
			style := strings.TrimSpace(srv.Must("show-options", "-gv", "@ralph-style-"+state))
			if style == "" {
				t.Errorf("no default @ralph-style-%s", state)
				continue
			}
			if fg, bg := colours(style, barFg, barBg); fg == bg {
				t.Errorf("@ralph-style-%s %q on a bar %q: text %s on %s", state, style, bar, fg, bg)
			}
		}
	}
}

// colours are the text and background colours a style gives, over fg and bg.
func colours(style, fg, bg string) (string, string) {
	for _, part := range strings.FieldsFunc(style, func(r rune) bool { return r == ',' || r == ' ' }) {
		switch {
		case strings.HasPrefix(part, "fg="):
			fg = strings.TrimPrefix(part, "fg=")
		case strings.HasPrefix(part, "bg="):
			bg = strings.TrimPrefix(part, "bg=")
		}
	}
	return fg, bg
}
