package judge

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSessionTellsTheNextIterationOnceAndFindsTheStalemate(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "check.sh", "exit 1\n")
	s, err := Start(Settings{Goal: "g", Patience: 2}, dir, "", []string{"sh check.sh"})
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "check.sh", "exit 0\n")
	if put, err := s.Restore(); err != nil || !reflect.DeepEqual(put, []string{"check.sh"}) {
		t.Fatalf("Restore = %q, %v", put, err)
	}
	if got := s.Restored(); !reflect.DeepEqual(got, []string{"check.sh"}) {
		t.Errorf("Restored = %q", got)
	}
	if _, stale := s.Judged(1, Verdict{Missing: []string{"docs"}}, "w"); stale {
		t.Error("a stalemate at the first verdict")
	}
	if len(s.Restored()) != 0 {
		t.Error("the judge is told of a put-back twice")
	}
	note := s.Note()
	if !strings.Contains(note, "- docs") || !strings.Contains(note, "put back protected files you changed (check.sh)") {
		t.Errorf("note %q", note)
	}
	if again := s.Note(); again != "" {
		t.Errorf("the note a second time: %q", again)
	}
	stayed, stale := s.Judged(2, Verdict{Missing: []string{"Docs "}}, "w")
	if !stale || !reflect.DeepEqual(stayed, []string{"docs"}) {
		t.Errorf("Judged = %q, %v; want the stalemate", stayed, stale)
	}
}

func TestReadGoalRereadsTheFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "GOAL.md")
	s := Settings{GoalFile: file}
	if _, err := s.ReadGoal(); err == nil {
		t.Error("no file: no error")
	}
	for _, text := range []string{"first", "second"} {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := s.ReadGoal(); err != nil || got != text {
			t.Errorf("ReadGoal = %q, %v; want %q", got, err, text)
		}
	}
	if got, _ := (Settings{Goal: "words"}).ReadGoal(); got != "words" {
		t.Errorf("--goal: %q", got)
	}
}

// A session's start, kept and read back, puts back the bytes, mode and
// links of the first start, and keeps its base.
func TestAKeptSessionPutsBackTheBytesOfTheFirstStart(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		_ = os.Chmod(filepath.Join(dir, name), mode)
	}
	write("check.sh", "test -s parser.go\n", 0o755)
	if err := os.Symlink("check.sh", filepath.Join(dir, "link.sh")); err != nil {
		t.Fatal(err)
	}
	s, err := Start(Settings{Goal: "g", Protect: []string{"link.sh"}}, dir, "abc123", []string{"sh check.sh"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := s.Kept()
	if err != nil {
		t.Fatal(err)
	}
	write("check.sh", "exit 0\n", 0o644) // edited before the resume
	_ = os.Remove(filepath.Join(dir, "link.sh"))
	r, err := Resumed(Settings{Goal: "g"}, dir, data)
	if err != nil {
		t.Fatal(err)
	}
	put, err := r.Restore()
	if err != nil || strings.Join(put, ",") != "check.sh,link.sh" || r.Base != "abc123" {
		t.Errorf("put back %q (%v), base %q", put, err, r.Base)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "check.sh"))
	info, _ := os.Stat(filepath.Join(dir, "check.sh"))
	link, _ := os.Readlink(filepath.Join(dir, "link.sh"))
	if string(got) != "test -s parser.go\n" || info.Mode().Perm() != 0o755 || link != "check.sh" {
		t.Errorf("check.sh %q mode %v, link.sh -> %q", got, info.Mode().Perm(), link)
	}
	if _, err := Resumed(Settings{}, dir, []byte("{")); err == nil {
		t.Error("a damaged snapshot was read")
	}
}

// A verdict read back from the record tells what it told before.
func TestARecordedVerdictTellsTheSame(t *testing.T) {
	for _, v := range []Verdict{{Missing: []string{"docs"}}, {Reason: ReasonNoJSON}, {}, {Met: true}, {Reason: ReasonMetMissing, Missing: []string{"x"}}} {
		if got, want := MissingNote(Recorded(v.Met, v.Missing, v.Why()), nil), MissingNote(v, nil); got != want {
			t.Errorf("%+v read back tells %q, want %q", v, got, want)
		}
	}
	s := &Session{}
	s.Retell(Verdict{Missing: []string{"docs"}})
	if n := s.Note(); n != "- docs" {
		t.Errorf("retold %q", n)
	}
}
