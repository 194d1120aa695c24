package tmuxfake

import (
	"errors"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

func TestAWriteIntoADeadPaneIsRefusedWhenGuardedAndCrashesWhenNot(t *testing.T) {
	c := New(func([]string) *Program { return &Program{Start: func(t *Term) { t.Exit(0) }} })
	var crashed []string
	c.Crashed = func(why string) { crashed = append(crashed, why) }
	id, _ := c.NewWindow(tmux.NewWindowRequest{Session: "s"})
	_ = c.SetPaneOptions(id, []tmux.Option{{Name: "remain-on-exit", Value: "on"}})
	if _, err := c.Respawn(tmux.RespawnRequest{Pane: id, Command: []string{"agent"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Paste(id, "b", []byte("x")); !errors.Is(err, tmux.ErrPaneDead) {
		t.Errorf("Paste = %v, want ErrPaneDead", err)
	}
	if err := c.SendKeys(id, "Enter"); !errors.Is(err, tmux.ErrPaneDead) {
		t.Errorf("SendKeys = %v, want ErrPaneDead", err)
	}
	if len(c.Calls("paste", "send-keys")) != 0 || len(c.Calls("refused")) != 2 {
		t.Errorf("calls = %+v, want two refused writes and none delivered", c.Calls())
	}
	if len(crashed) != 0 {
		t.Fatalf("guarded writes crashed: %q", crashed)
	}
	// The same write without the guard, as a later change might send it.
	c.mu.Lock()
	err := c.write(c.panes[id], []string{"paste-buffer", "-p", "-t", id})
	c.mu.Unlock()
	if len(crashed) != 1 || !strings.Contains(crashed[0], "tmux 3.3a would crash here") {
		t.Errorf("an unguarded paste into a dead pane: crashed = %q", crashed)
	}
	if _, perr := c.Pane(id); err == nil || perr == nil {
		t.Errorf("after the crash: write %v, Pane %v; want the server gone", err, perr)
	}
}
