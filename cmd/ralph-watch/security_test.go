package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

func TestNothingFromPathsPromptsOrCheckOutputReachesAShellAndOnlyTheGivenPaneIsTouched(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := filepath.Join(c.srv.Dir, `it's a "dir" #{pane_id} $(touch pwned1) ;`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prompt := "do it $(touch pwned2) `touch pwned2` #{pane_id} #(touch pwned2) ;"
	if err := os.WriteFile(filepath.Join(dir, "PROMPT.md"), []byte(prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	where := filepath.Join(c.srv.Dir, "where")
	got := filepath.Join(c.srv.Dir, "got")
	pane := strings.TrimSpace(c.srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "-c", tmux.Escape(tmux.EscapeFormat(dir))))
	// Bystanders: a pane on the same server and one on another server.
	other := tmuxtest.Start(t)
	near, far := c.srv.NewPane(), other.NewPane()
	pid := func(s *tmuxtest.Server, p string) string {
		return s.Must("display", "-p", "-t", p, "#{pane_pid} #{remain-on-exit}")
	}
	nearBefore, farBefore := pid(c.srv, near), pid(other, far)

	cmd := c.command(nil, "run", "-S", c.srv.Socket, "-t", pane, "--prompt-mode", "arg", "--max-iterations", "2", "--restart-delay", "0",
		"--check", `printf '%s\n' '$(touch pwned3) #{pane_id}'; exit 1`, "--",
		"sh", "-c", `pwd > "$1"; printf '%s' "$3" > "$2"`, "agent", where, got)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(where); strings.TrimSpace(string(data)) != dir {
		t.Errorf("the agent ran in %q, want %q", data, dir)
	}
	if data, _ := os.ReadFile(got); !strings.HasPrefix(string(data), prompt) || !strings.Contains(string(data), "$(touch pwned3) #{pane_id}") {
		t.Errorf("the agent got %q, want the prompt and the check's output as written", data)
	}
	for _, d := range []string{"/", dir, c.srv.Dir, filepath.Join(c.srv.Dir, "home"), filepath.Join(c.srv.Dir, "state")} {
		for _, f := range []string{"pwned1", "pwned2", "pwned3"} {
			if _, err := os.Stat(filepath.Join(d, f)); err == nil {
				t.Errorf("%s was created in %s: text reached a shell", f, d)
			}
		}
	}
	var names []os.DirEntry
	all, _ := os.ReadDir(filepath.Join(c.srv.Dir, "state"))
	for _, d := range all {
		if !strings.HasPrefix(d.Name(), ".") { // .panes: the panes' claims
			names = append(names, d)
		}
	}
	if len(names) != 1 || !control.ValidName(names[0].Name()) {
		t.Fatalf("state folders %v, want one with a valid name", names)
	}
	name := names[0].Name()
	if got := c.srv.Option(pane, "@ralph-name"); got != name {
		t.Errorf("@ralph-name %q, want %q", got, name)
	}
	// The state folder is the owner's alone.
	folder := filepath.Join(c.srv.Dir, "state", name)
	if info, _ := os.Stat(folder); info.Mode().Perm() != 0o700 {
		t.Errorf("%s: mode %v, want 0700", folder, info.Mode().Perm())
	}
	files, _ := os.ReadDir(folder)
	for _, f := range files {
		info, _ := f.Info()
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s: mode %v, open to others", f.Name(), perm)
		}
	}
	if nearAfter, farAfter := pid(c.srv, near), pid(other, far); nearAfter != nearBefore || farAfter != farBefore {
		t.Errorf("bystander panes changed: %q -> %q, %q -> %q", nearBefore, nearAfter, farBefore, farAfter)
	}
	for _, b := range []struct {
		s *tmuxtest.Server
		p string
	}{{c.srv, near}, {other, far}} {
		if opts, _ := b.s.Tmux("show-options", "-p", "-t", b.p); strings.Contains(opts, "@ralph") {
			t.Errorf("bystander pane %s got options:\n%s", b.p, opts)
		}
	}
}
