package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func openStore(t *testing.T, root, name string) *Store {
	t.Helper()
	s, err := Open(root, name)
	if err != nil {
		t.Fatalf("Open(%q, %q): %v", root, name, err)
	}
	return s
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

func sampleState() *State {
	pattern, reason, code := "RALPH_DONE_[0-9]+", "done", 0
	base := time.Date(2024, 3, 5, 14, 7, 9, 0, time.UTC)
	return &State{
		WorkerName:           "my-proj-3",
		PromptFile:           "/home/me/proj/PROMPT.md",
		MaxIterations:        20,
		CurrentIteration:     4,
		Status:               Running,
		Started:              Stamp(base),
		LastIterationStarted: Stamp(base.Add(30 * time.Minute)),
		LastIterationEnded:   Stamp(base.Add(29 * time.Minute)),
		IterationDurations:   []int{412, 388, 901},
		ConsecutiveFailures:  1,
		TotalFailures:        2,
		DonePattern:          &pattern,
		InactivityTimeout:    300,
		CheckDoneContinuous:  true,
		ExitReason:           &reason,
		PaneID:               "%3",
		TmuxSocket:           "/tmp/tmux-1000/default",
		Command:              []string{"claude", "--dangerously-skip-permissions"},
		WatcherPID:           4242,
		Heartbeat:            Stamp(base.Add(31 * time.Minute)),
		LastExitCode:         &code,
	}
}

func TestSaveThenLoadGivesBackTheSameState(t *testing.T) {
	tests := []struct {
		name string
		st   *State
	}{
		{"a full state", sampleState()},
		{"an empty state (null pointers, no durations)", &State{}},
		{"unicode and quotes in strings", &State{WorkerName: "naïve \"quoted\" ✓", Command: []string{"/bin/sh", "-c", "echo '$x' \\ \n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, t.TempDir(), "loop")
			if err := s.Save(tt.st); err != nil {
				t.Fatalf("Save: %v", err)
			}
			got, err := s.Load()
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if !reflect.DeepEqual(got, tt.st) {
				t.Errorf("Load = %+v\nwant   %+v", got, tt.st)
			}
		})
	}
}

func TestSaveOverwritesThePreviousState(t *testing.T) {
	s := openStore(t, t.TempDir(), "loop")
	first, second := sampleState(), sampleState()
	second.CurrentIteration, second.Status = 5, Stopped
	for _, st := range []*State{first, second} {
		if err := s.Save(st); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Load()
	if err != nil || got.CurrentIteration != 5 || got.Status != Stopped {
		t.Errorf("Load = %+v, %v; want the second state", got, err)
	}
	assertNoTempFiles(t, s.Dir)
}

func TestStateFilesArePrivate(t *testing.T) {
	root := t.TempDir()
	// A folder left with loose permissions by someone else is tightened.
	if err := os.MkdirAll(filepath.Join(root, "loose"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fresh", "loose"} {
		t.Run(name, func(t *testing.T) {
			s := openStore(t, root, name)
			if err := s.Save(sampleState()); err != nil {
				t.Fatal(err)
			}
			if err := s.Log(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), "START", "x"); err != nil {
				t.Fatal(err)
			}
			if err := s.Lock(); err != nil {
				t.Fatal(err)
			}
			defer s.Unlock()
			if m := mode(t, s.Dir); m != 0o700 {
				t.Errorf("folder mode %v, want 0700", m)
			}
			for _, f := range []string{StateFile, LogFile, LockFile} {
				if m := mode(t, s.Path(f)); m != 0o600 {
					t.Errorf("%s mode %v, want 0600", f, m)
				}
			}
		})
	}
}

func TestLoadWithoutStateIsNotExist(t *testing.T) {
	s := openStore(t, t.TempDir(), "loop")
	if _, err := s.Load(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load of a new loop = %v, want fs.ErrNotExist", err)
	}
}

func TestLoadOfACorruptStateSaysWhereAndWhatToDo(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"cut in half by a crash of an old version", `{"worker_name": "loop", "status": "runn`},
		{"empty file", ""},
		{"not JSON at all", "\x00\x01garbage"},
		{"wrong type", `{"current_iteration": "four"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, t.TempDir(), "my-loop")
			if err := os.WriteFile(s.Path(StateFile), []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := s.Load()
			if err == nil {
				t.Fatal("Load of a corrupt state succeeded")
			}
			for _, want := range []string{s.Path(StateFile), "clean", "my-loop", "--replace"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestSaveIntoAReadOnlyFolderFailsAndKeepsThePreviousState(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only folder anyway")
	}
	s := openStore(t, t.TempDir(), "loop")
	old := sampleState()
	if err := s.Save(old); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.Dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.Chmod(s.Dir, 0o700) }()
	changed := sampleState()
	changed.CurrentIteration = 99
	if err := s.Save(changed); err == nil {
		t.Fatal("Save into a read-only folder succeeded")
	}
	got, err := s.Load()
	if err != nil || !reflect.DeepEqual(got, old) {
		t.Errorf("after the failed Save, Load = %+v, %v; want the previous state", got, err)
	}
}

func TestSaveThatCannotReplaceStateLeavesNoTempFile(t *testing.T) {
	// Works as root too: the rename fails because state.json is a folder
	// that is not empty.
	s := openStore(t, t.TempDir(), "loop")
	if err := os.MkdirAll(filepath.Join(s.Path(StateFile), "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(sampleState()); err == nil {
		t.Fatal("Save over a folder succeeded")
	}
	assertNoTempFiles(t, s.Dir)
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(dir, ".state-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("temp files left behind: %q", left)
	}
}

func TestLogAppendsStampedEventLines(t *testing.T) {
	s := openStore(t, t.TempDir(), "loop")
	base := time.Date(2024, 3, 5, 14, 7, 9, 500_000_000, time.UTC)
	entries := []struct {
		at             time.Duration
		event, message string
	}{
		{0, "START", "iteration 1"},
		{412 * time.Second, "DONE", "iteration 1 ended: exit 0 after 6m52s"},
		{24 * time.Hour, "STOP", "done pattern RALPH_DONE_[0-9]+ matched"},
	}
	for _, e := range entries {
		if err := s.Log(base.Add(e.at), e.event, e.message); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(s.Path(LogFile))
	if err != nil {
		t.Fatal(err)
	}
	want := "2024-03-05T14:07:09 [START] iteration 1\n" +
		"2024-03-05T14:14:01 [DONE] iteration 1 ended: exit 0 after 6m52s\n" +
		"2024-03-06T14:07:09 [STOP] done pattern RALPH_DONE_[0-9]+ matched\n"
	if string(data) != want {
		t.Errorf("iterations.log =\n%s\nwant\n%s", data, want)
	}
}

func TestStampUsesTheSwarmFormat(t *testing.T) {
	got := Stamp(time.Date(2024, 12, 31, 23, 59, 58, 999_999_999, time.UTC))
	if want := "2024-12-31T23:59:58"; got != want {
		t.Errorf("Stamp = %q, want %q", got, want)
	}
}

func TestOneWatcherPerLoop(t *testing.T) {
	// flock locks belong to an open file description, so two Stores on the
	// same folder in one process stand for two watchers.
	root := t.TempDir()
	first, second := openStore(t, root, "loop"), openStore(t, root, "loop")
	other := openStore(t, root, "other-loop")

	if first.Locked() {
		t.Fatal("Locked() before anyone locked = true")
	}
	if err := first.Lock(); err != nil {
		t.Fatalf("first Lock: %v", err)
	}
	if err := second.Lock(); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Lock while the first holds it = %v, want ErrLocked", err)
	}
	if !first.Locked() || !second.Locked() {
		t.Errorf("Locked() while held = %v (holder), %v (other store); want true, true", first.Locked(), second.Locked())
	}
	if err := other.Lock(); err != nil {
		t.Errorf("another loop's Lock = %v, want nil", err)
	}
	other.Unlock()

	first.Unlock()
	if first.Locked() || second.Locked() {
		t.Errorf("Locked() after Unlock = %v, %v; want false, false", first.Locked(), second.Locked())
	}
	if err := second.Lock(); err != nil {
		t.Fatalf("second Lock after the first let go: %v", err)
	}
	if err := first.Lock(); !errors.Is(err, ErrLocked) {
		t.Errorf("first Lock while the second holds it = %v, want ErrLocked", err)
	}
	second.Unlock()
	second.Unlock() // twice is harmless
}

func TestExistsTellsWhetherALoopHasState(t *testing.T) {
	root := t.TempDir()
	if Exists(root, "loop") {
		t.Error("Exists before Open = true")
	}
	s := openStore(t, root, "loop")
	if Exists(root, "loop") {
		t.Error("Exists after Open but before Save = true")
	}
	if err := s.Save(&State{}); err != nil {
		t.Fatal(err)
	}
	if !Exists(root, "loop") {
		t.Error("Exists after Save = false")
	}
}

func TestRootPrecedence(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"RALPH_STATE_DIR wins over everything",
			map[string]string{"RALPH_STATE_DIR": "/srv/ralph", "XDG_STATE_HOME": "/xdg", "HOME": "/home/me"}, "/srv/ralph"},
		{"XDG_STATE_HOME/ralph comes next",
			map[string]string{"XDG_STATE_HOME": "/xdg", "HOME": "/home/me"}, "/xdg/ralph"},
		{"HOME/.local/state/ralph is the fallback",
			map[string]string{"HOME": "/home/me"}, "/home/me/.local/state/ralph"},
		{"empty variables count as unset",
			map[string]string{"RALPH_STATE_DIR": "", "XDG_STATE_HOME": "", "HOME": "/home/me"}, "/home/me/.local/state/ralph"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := Root(getenv); got != tt.want {
				t.Errorf("Root = %q, want %q", got, tt.want)
			}
		})
	}
}

// A state file written over while no watcher ran is not the end of the
// loop: the last good state, kept beside it, comes back, and says so.
func TestLoadOfAStateWrittenOverBringsBackTheLastGoodOne(t *testing.T) {
	for _, garbage := range []string{"\x00\x01garbage", "", `{"worker_name": "loop", "status": "runn`} {
		s := openStore(t, t.TempDir(), "my-loop")
		first, last := sampleState(), sampleState()
		last.CurrentIteration = 7
		for _, st := range []*State{first, last} {
			if err := s.Save(st); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(s.Path(StateFile), []byte(garbage), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load()
		if err != nil || !reflect.DeepEqual(got, last) {
			t.Fatalf("Load of a state written over with %q = %+v, %v; want the last saved", garbage, got, err)
		}
		if msg := s.Recovered(); !strings.Contains(msg, s.Path(StateFile)+" could not be read") || !strings.Contains(msg, "the last good state ("+StateGood+", saved ") {
			t.Errorf("Recovered() = %q, want what was found and what came back", msg)
		}
		again := &Store{Dir: s.Dir} // the next reader finds the state whole
		if got, err := again.Load(); err != nil || got.CurrentIteration != 7 || again.Recovered() != "" {
			t.Errorf("the next Load = %+v, %v, %q; want the state put back", got, err, again.Recovered())
		}
		log, _ := os.ReadFile(s.Path(LogFile))
		if !strings.Contains(string(log), "[STATE] "+StateFile+" could not be read") {
			t.Errorf("iterations.log does not say the state was recovered:\n%s", log)
		}
	}
}

// A loop started without --name is named after its folder and pane, a fan
// after its folder: the name a person guesses from the folder finds them.
func TestFindOfANameNobodyHasNamesTheLoopsAndFansItBegins(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"proj-0", "proj-3", "other"} {
		st, err := Open(root, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Save(&State{WorkerName: name, Status: Stopped}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "fans", "proj-fan"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "fans", "proj-fan", "fan.json"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Find(root, "proj")
	want := "no ralph state found for loop 'proj' (did you mean proj-0, proj-3, fan proj-fan? 'ralph-watch list' shows every loop)"
	if err == nil || err.Error() != want {
		t.Errorf("Find(proj): %v\nwant %s", err, want)
	}
	if _, err := Find(root, "nosuch"); err == nil || err.Error() != "no ralph state found for loop 'nosuch'" {
		t.Errorf("Find(nosuch): %v", err)
	}
}
