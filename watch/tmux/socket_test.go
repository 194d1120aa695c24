package tmux

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The default socket is where tmux puts it: in $TMUX_TMPDIR when that is a
// folder, else in /tmp.
func TestDefaultSocketIsWhereTmuxPutsIt(t *testing.T) {
	dir := t.TempDir()
	env := func(tmpdir string) func(string) string {
		return func(name string) string { return map[string]string{"TMUX_TMPDIR": tmpdir}[name] }
	}
	real, _ := filepath.EvalSymlinks(dir)
	uid := "tmux-" + strconv.Itoa(os.Getuid())
	if got, want := DefaultSocket(env(dir)), filepath.Join(real, uid, "default"); got != want {
		t.Errorf("with TMUX_TMPDIR %s: %s, want %s", dir, got, want)
	}
	tmp, _ := filepath.EvalSymlinks("/tmp")
	for _, tmpdir := range []string{"", filepath.Join(dir, "missing")} {
		if got, want := DefaultSocket(env(tmpdir)), filepath.Join(tmp, uid, "default"); got != want {
			t.Errorf("with TMUX_TMPDIR %q: %s, want %s", tmpdir, got, want)
		}
	}
}
