package control

import (
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
)

// Restore brings back only a fan that was cut short, on its own server,
// with what its agent needs from the environment; it says why otherwise.
func TestRestoreSaysWhyItLeavesAFanAlone(t *testing.T) {
	socket := t.TempDir() + "/default" // no server answers there
	args := []string{"fan", "--tasks", "PLAN.md", "--", "env", "ANTHROPIC_API_KEY=…", "claude"}
	cut := func() *fan.State { return &fan.State{Name: "web", Socket: socket, Args: args} }
	env := func(k string) string { return map[string]string{"ANTHROPIC_API_KEY": "k"}[k] }
	for _, c := range []struct {
		name   string
		state  func() *fan.State
		socket string
		getenv func(string) string
		want   string
	}{
		{"ended", func() *fan.State { s := cut(); s.Ended = true; return s }, socket, env, "it ended"},
		{"stopped", func() *fan.State { s := cut(); s.Stopped = true; return s }, socket, env, "it was stopped"},
		{"no record of its start", func() *fan.State { s := cut(); s.Args = nil; return s }, socket, env, "does not say how it was started"},
		{"another server", cut, t.TempDir() + "/other", env, "on another tmux server"},
		{"its server gone", cut, "", env, "no tmux server runs on " + socket},
		{"its key not here", cut, socket, func(string) string { return "" }, "ANTHROPIC_API_KEY"},
		{"restored", cut, socket, env, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := whyNotRestore(c.state(), t.TempDir(), c.socket, c.getenv)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("whyNotRestore = %q, want %q", got, c.want)
			}
		})
	}
}
