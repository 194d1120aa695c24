package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// state.json written over while no watcher ran: status, list and resume
// bring back the last good state and say so; a loop with no good copy left
// is a damaged row in list, with what to do.
func TestAStateWrittenOverComesBackAndADamagedOneIsListed(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, name := range []string{"kept", "lost"} {
		c.want([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", name, "--prompt-mode", "arg", "--restart-delay", "0",
			"--max-iterations", "2", "--", "true"}, 0, "loop complete after 2 iterations", "")
		if err := os.WriteFile(filepath.Join(c.srv.Dir, "state", name, "state.json"), []byte("\x00garbage written over it\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Remove(filepath.Join(c.srv.Dir, "state", "lost", "state.good.json")) // as a loop of an older version has none

	code, stdout, stderr := c.run(nil, "status", "kept")
	if code != 0 || !strings.Contains(stdout, "Iteration: 2/2") || !strings.Contains(stdout, "Exit reason: max_iterations") ||
		!strings.Contains(stderr, "ralph-watch: warning: loop kept: "+filepath.Join(c.srv.Dir, "state", "kept", "state.json")+" could not be read") ||
		!strings.Contains(stderr, "the last good state (state.good.json, saved ") {
		t.Errorf("status of a state written over: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	c.want([]string{"logs", "kept"}, 0, "[STATE] state.json could not be read", "")
	c.want([]string{"status", "kept"}, 0, "Iteration: 2/2", "") // put back: the next command reads it whole

	code, stdout, stderr = c.run(nil, "list")
	row := c.listRow("lost")
	if code != 0 || !strings.Contains(row, "lost damaged its state.json cannot be read: 'ralph-watch clean lost' removes it, 'ralph-watch run --replace --name lost' starts it over") ||
		!strings.Contains(stderr, "corrupt state file") || !strings.Contains(c.listRow("kept"), "kept done") {
		t.Errorf("list: exit %d, lost's row %q\nstdout %s\nstderr %s", code, row, stdout, stderr)
	}
	c.want([]string{"list", "--json"}, 0, `"ralph_status": "damaged"`, "")
}
