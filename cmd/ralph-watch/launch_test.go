package main

import (
	"strings"
	"testing"
)

// A launcher that keeps the agent from its terminal (timeout without
// --foreground, nohup) is named at start in type mode: no prompt can be
// typed into it. With --foreground nothing is said.
func TestALauncherThatHidesTheTerminalIsNamedAtStart(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct {
		command []string
		want    string
	}{
		{[]string{"timeout", "3600", "claude"}, "ralph-watch: warning: the prompt is typed into the terminal, but timeout runs it in the background, where reading the terminal stops it: give timeout --foreground"},
		{[]string{"nohup", "claude"}, "drop nohup"},
		{[]string{"timeout", "--foreground", "3600", "claude"}, ""},
	} {
		name := strings.ReplaceAll(strings.Join(tc.command[:len(tc.command)-1], "-"), "--", "")
		args := append([]string{"run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", name, "--no-run", "--prompt-file",
			c.srv.Dir + "/PROMPT.md", "--"}, tc.command...)
		code, stdout, stderr := c.run(nil, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s%s", tc.command, code, stdout, stderr)
		}
		if tc.want == "" && strings.Contains(stderr, "warning: the prompt is typed") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: stderr %q, want %q", tc.command, stderr, tc.want)
		}
	}
}
