package checks

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// work is a loop's work in a folder of its own, its check logs and hooks
// log in a state folder of their own.
func work(t *testing.T, checks ...string) (*Work, string) {
	t.Helper()
	dir, stateDir := t.TempDir(), t.TempDir()
	s := Settings{Name: "w", Dir: dir, OutputChars: 200, StateRoot: stateDir,
		ChecksDir: filepath.Join(stateDir, "checks"), HooksLog: filepath.Join(stateDir, "hooks.log"), Clock: clock.Real{}}
	for _, c := range checks {
		s.Checks = append(s.Checks, Check{Command: c})
	}
	return NewWork(s), dir
}

// The checks' run tells what the loop says and logs, and gives the record
// its entry, in order; the work keeps how they went for the next prompt
// and for a done signal, and holds nothing of the loop's record.
func TestWorkRunTellsAndKeepsTheLatestChecks(t *testing.T) {
	w, _ := work(t, "true")
	verify := []Check{{Command: "echo broken; exit 3"}}
	ran := w.Run(context.Background(), At{Iteration: 2, MaxIterations: 5}, verify)
	if ran == nil || len(ran.Runs) != 2 {
		t.Fatalf("ran %+v: want --check then the plan's verify command", ran)
	}
	want := []Told{
		{Event: "CHECK", Text: `iteration 2 pass exit=0 duration=` + FormatDuration(ran.Runs[0].Duration) + ` check="true"`},
		{Text: `check "echo broken; exit 3" failed (exit: 3)`},
		{Event: "CHECK", Text: `iteration 2 fail exit=3 duration=` + FormatDuration(ran.Runs[1].Duration) + ` check="echo broken; exit 3"`},
		{Text: "iteration 2 checks: " + CheckSummary(ran.Runs)},
	}
	if !reflect.DeepEqual(ran.Told, want) {
		t.Errorf("told\n%+v\nwant\n%+v", ran.Told, want)
	}
	if ran.Record.Iteration != 2 || len(ran.Record.Results) != 2 {
		t.Errorf("record %+v", ran.Record)
	}
	if w.Latest.Iteration != 2 || w.Latest.Passed || !strings.Contains(w.Latest.Feedback, "broken") {
		t.Errorf("latest %+v", w.Latest)
	}
	// A done signal before iteration 2's end is judged by them, not run again.
	if passed, again := w.Pass(context.Background(), At{Iteration: 2}, verify); passed || again != nil {
		t.Errorf("pass at 2: %v, ran again %v", passed, again != nil)
	}
	if passed, again := w.Pass(context.Background(), At{Iteration: 3}, nil); !passed || again == nil {
		t.Errorf("pass at 3 without the verify command: %v, ran %v", passed, again != nil)
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Work{})) {
		if k := f.Type.Kind(); k == reflect.Pointer || k == reflect.Interface && f.Name != "Clock" || k == reflect.Func {
			t.Errorf("Work holds %s (%s): the work holds no part of the loop", f.Name, f.Type)
		}
	}
}

// A resumed loop's latest checks come back from its record: their
// feedback for the next prompt, and whether they passed.
func TestWorkRestoreTakesTheRecordsLatestChecks(t *testing.T) {
	w, _ := work(t, "x")
	w.Restore(nil)
	if w.Latest != (Latest{Iteration: -1}) {
		t.Errorf("nothing recorded: %+v", w.Latest)
	}
	w.Restore(&state.Checks{Iteration: 4, Results: []state.CheckResult{{Command: "make test", ExitCode: 2, Hint: "run it"}}})
	if w.Latest.Iteration != 4 || w.Latest.Passed || !strings.Contains(w.Latest.Feedback, "make test") {
		t.Errorf("restored %+v", w.Latest)
	}
}

// The done and pause files are seen without being touched: the loop
// removes them when it acts on them (a done signal rejected, a pause).
func TestTheDoneAndPauseFilesAreSeenWithoutBeingTouched(t *testing.T) {
	dir := t.TempDir()
	done, pause := filepath.Join(dir, "DONE"), filepath.Join(dir, "PAUSE")
	for _, p := range []string{done, pause} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 2; i++ {
		if !FileSeen(done) || !FileSeen(pause) {
			t.Fatalf("look %d: the files are not seen", i)
		}
	}
	if FileSeen("") || FileSeen(filepath.Join(dir, "none")) {
		t.Error("no file, or none named, is seen")
	}
	told := RejectDone(7, done)
	if FileSeen(done) || len(told) != 2 || told[1] != (Told{Event: "CHECK", Text: "iteration 7 done signal rejected: checks failed"}) {
		t.Errorf("rejected: the done file is there %v, told %+v", FileSeen(done), told)
	}
	if told := RemovePauseFile(pause); FileSeen(pause) || told != nil {
		t.Errorf("paused: the pause file is there %v, told %+v", FileSeen(pause), told)
	}
	if told := RemovePauseFile(pause); told != nil {
		t.Errorf("a pause file gone already: %+v", told)
	}
}

// The on-* commands hear where the loop is: its iteration and the limit
// in force; one that fails is logged and warned about.
func TestWorkOnCommandTellsTheLoopWhereItIs(t *testing.T) {
	w, dir := work(t)
	out := filepath.Join(dir, "env")
	told := w.OnCommand(At{Iteration: 3, MaxIterations: 9}, "on-done", `echo "$RALPH_ITERATION $RALPH_MAX_ITERATIONS $RALPH_EXIT_CODE $RALPH_REASON" > `+out, "0", "done_file")
	if data, _ := os.ReadFile(out); string(data) != "3 9 0 done_file\n" || told != nil {
		t.Errorf("env %q, told %+v", data, told)
	}
	told = w.OnCommand(At{Iteration: 3}, "on-fail", "exit 4", "1", "x")
	if len(told) != 2 || told[0].Event != "HOOK" || !told[1].Warn || !strings.Contains(told[1].Text, "on-fail hook failed") {
		t.Errorf("a failed command: %+v", told)
	}
}

// --commit outside git warns once, and commits nothing.
func TestWorkCommitOutsideGitWarnsOnce(t *testing.T) {
	w, _ := work(t)
	w.Commits = true
	first := w.Commit(1, nil, "", "", false)
	if len(first) != 1 || !first[0].Warn || !strings.Contains(first[0].Text, "not in a git repository") {
		t.Errorf("first: %+v", first)
	}
	if again := w.Commit(2, nil, "", "", false); again != nil {
		t.Errorf("again: %+v", again)
	}
}
