package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// tasks NAME in a folder holding a subfolder NAME shows the loop's plan: a
// loop's name wins where no plan file of that name exists.
func TestTasksOfALoopWhoseNameIsAlsoAFolderShowsTheLoop(t *testing.T) {
	root, work := t.TempDir(), t.TempDir()
	t.Setenv("RALPH_STATE_DIR", root)
	was, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(work); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chdir(was) })
	if err := os.Mkdir(filepath.Join(work, "A"), 0o755); err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(work, "PLAN.md")
	if err := os.WriteFile(planFile, []byte("- [ ] Add the parser\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := state.Open(root, "A")
	if err != nil {
		t.Fatal(err)
	}
	st := &state.State{WorkerName: "A", Status: state.Paused, Tasks: &state.Tasks{File: planFile, Total: 1, Open: 1,
		Items: []state.TaskItem{{ID: "1", Title: "Add the parser", State: "open", Attempts: 2}}}}
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runInProcess("tasks", "A")
	if code != 0 || stderr != "" || !strings.Contains(stdout, planFile) || !strings.Contains(stdout, "Add the parser") {
		t.Errorf("tasks A: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if err := os.Mkdir(filepath.Join(work, "B"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runInProcess("tasks", "B")
	if code != 2 || !strings.Contains(stderr, "read plan B: is a directory") {
		t.Errorf("tasks B (a folder, no loop): exit %d, stderr %q", code, stderr)
	}
}
