package watch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
)

// The done and pause files end a running iteration without being touched:
// asked again, they say the same; the pause removes the pause file, a
// rejected done signal the done file.
func TestUnitTheSignalFilesEndAnIterationWithoutTouchingTheFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := &Config{DoneFile: filepath.Join(dir, "done"), PauseFile: filepath.Join(dir, "pause")}
	f := &signalFiles{cfg: cfg}
	if end, ok := f.Check(); ok {
		t.Fatalf("no file: %v", end)
	}
	if err := os.WriteFile(cfg.PauseFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if end, ok := f.Check(); !ok || end != iteration.EndPaused || !f.pauseSeen {
			t.Errorf("look %d at the pause file: %v %v, seen %v", i, end, ok, f.pauseSeen)
		}
	}
	if err := os.WriteFile(cfg.DoneFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if end, ok := f.Check(); !ok || end != iteration.EndDoneFile {
		t.Errorf("the done file comes first: %v %v", end, ok)
	}
	for _, p := range []string{cfg.DoneFile, cfg.PauseFile} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
