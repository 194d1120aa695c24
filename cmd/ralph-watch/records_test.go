package main

import (
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"strings"
	"testing"
)

// Records and messages a person can trust: what list, note, finish, tasks
// and status say holds as the person reads it.

// list with no loops says there are none and how to start one; --json stays [].
func TestListWithNoLoopsSaysHowToStartOne(t *testing.T) {
	t.Setenv("RALPH_STATE_DIR", t.TempDir())
	code, stdout, stderr := runInProcess("list")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "No loops. Start one") || !strings.Contains(stdout, "ralph-watch run") {
		t.Errorf("list with no loops: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	if code, stdout, _ := runInProcess("list", "--json"); code != 0 || strings.TrimSpace(stdout) != "[]" {
		t.Errorf("list --json with no loops: exit %d, %q", code, stdout)
	}
	if code, stdout, _ := runInProcess("list", "--names"); code != 0 || stdout != "" {
		t.Errorf("list --names with no loops: exit %d, %q", code, stdout)
	}
}

// The person's word for what runs is "loop": no message or column of theirs
// says worker (state.json keeps its field names).
func TestMessagesAndColumnsSayLoopNeverWorker(t *testing.T) {
	root := t.TempDir()
	t.Setenv("RALPH_STATE_DIR", root)
	for _, args := range [][]string{{"note", "nosuchloop", "hi"}, {"status", "nosuchloop"}, {"logs", "nosuchloop"}} {
		code, stdout, stderr := runInProcess(args...)
		if code != 1 || stdout != "" || stderr != "ralph-watch: error: no ralph state found for loop 'nosuchloop'\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	store, err := state.Open(root, "quiet")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(&state.State{WorkerName: "quiet", Status: state.Running, CurrentIteration: 1, MaxIterations: 3}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runInProcess("list")
	if code != 0 || strings.Contains(strings.ToLower(stdout+stderr), "worker") || !strings.Contains(stdout, " AGENT ") {
		t.Errorf("list: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = runInProcess("status", "quiet")
	if code != 0 || strings.Contains(strings.ToLower(stdout+stderr), "worker") || !strings.Contains(stdout, "Exit reason: monitor_disconnected (agent removed)\n") {
		t.Errorf("status: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if code, stdout, stderr = runInProcess("logs", "quiet"); code != 1 || stderr != "ralph-watch: error: no iteration log found for loop 'quiet'\n" {
		t.Errorf("logs of a loop without a log: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// note NAME the API moved takes its words as one note, as typed.
func TestNoteJoinsItsWords(t *testing.T) {
	root := t.TempDir()
	t.Setenv("RALPH_STATE_DIR", root)
	store, err := state.Open(root, "steered")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(&state.State{WorkerName: "steered", Status: state.Paused, CurrentIteration: 1, MaxIterations: 3}); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runInProcess("note", "steered", "the", "API", "moved"); code != 0 || stderr != "" || stdout != "note for the next iteration of steered\n" {
		t.Fatalf("note of three words: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if s := store.Steers(); len(s) != 1 || s[0].Text != "the API moved" {
		t.Errorf("the note left: %+v", s)
	}
	if code, _, stderr := runInProcess("note", "steered"); code != 2 || !strings.Contains(stderr, "note takes a loop name and a text") {
		t.Errorf("note without a text: exit %d, stderr %q", code, stderr)
	}
}

// --name "" is refused rather than taken as the default name, and so is a
// name that status NAME and the rest would read as a flag.
func TestRunRefusesAnEmptyNameAndOneThatReadsAsAFlag(t *testing.T) {
	t.Setenv("RALPH_STATE_DIR", t.TempDir())
	for _, tc := range []struct{ name, want string }{
		{"", `invalid value "" for flag --name: a loop name must not be empty`},
		{"-x", `invalid value "-x" for flag --name: a loop name must not start with -`},
	} {
		code, stdout, stderr := runInProcess("run", "--name", tc.name, "--prompt-mode", "arg", "--", "true")
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "ralph-watch: error: "+tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("run --name %q: exit %d, stdout %q, stderr %q", tc.name, code, stdout, stderr)
		}
	}
	if code, _, stderr := runInProcess("status", "-x"); code != 2 || stderr != "ralph-watch: error: flag provided but not defined: -x (see 'ralph-watch status -h')\n" {
		t.Errorf("status -x: exit %d, stderr %q", code, stderr)
	}
}
