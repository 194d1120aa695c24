package state

// A loop's folder: found or made under the state root, held by one
// watcher's lock, state.json loaded and saved, iterations.log appended to,
// requests left for the watcher, ended runs archived.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ErrNoState means a loop has no state folder. Like are the loops and
// fans whose names begin with it: a loop started without --name is named
// after its folder and pane (myproj-3), a fan after its folder (myproj-fan).
type ErrNoState struct {
	Name string
	Like []string
}

func (e *ErrNoState) Error() string {
	msg := fmt.Sprintf("no ralph state found for loop '%s'", e.Name)
	if len(e.Like) > 0 {
		msg += fmt.Sprintf(" (did you mean %s? 'ralph-watch list' shows every loop)", strings.Join(e.Like, ", "))
	}
	return msg
}

// Find opens the existing state of loop name; *ErrNoState if there is none.
func Find(root, name string) (*Store, error) {
	if !Exists(root, name) {
		return nil, NoState(root, name)
	}
	return &Store{Dir: filepath.Join(root, name)}, nil
}

// NoState is the error for loop name, which has no state under root,
// naming at most three loops or fans whose names begin with it.
func NoState(root, name string) *ErrNoState {
	e := &ErrNoState{Name: name}
	if name == "" {
		return e
	}
	loops, _ := List(root)
	for _, other := range loops {
		if other != name && strings.HasPrefix(other, name) {
			e.Like = append(e.Like, other)
		}
	}
	fans, _ := os.ReadDir(filepath.Join(root, "fans"))
	for _, f := range fans {
		if _, err := os.Stat(filepath.Join(root, "fans", f.Name(), "fan.json")); err == nil && f.Name() != name && strings.HasPrefix(f.Name(), name) {
			e.Like = append(e.Like, "fan "+f.Name())
		}
	}
	if len(e.Like) > 3 {
		e.Like = e.Like[:3]
	}
	return e
}

// List returns the names of the loops under root, sorted.
func List(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && Exists(root, e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// Remove deletes the loop's folder.
func (s *Store) Remove() error { return os.RemoveAll(s.Dir) }

// Archive keeps an ended run apart, so that a new loop of the same name
// starts its own history: everything of the folder but its locks and the
// earlier runs moves into runs/LABEL. It returns that folder.
func (s *Store) Archive(label string) (string, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(s.Dir, RunsDir, label)
	for n := 2; ; n++ { // two runs started in the same second keep apart
		if _, err := os.Lstat(dir); os.IsNotExist(err) {
			break
		}
		dir = filepath.Join(s.Dir, RunsDir, fmt.Sprintf("%s-%d", label, n))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	for _, e := range entries {
		switch e.Name() {
		case LockFile, RearmLock, RunsDir:
			continue
		}
		if err := os.Rename(filepath.Join(s.Dir, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Runs are the loop's earlier runs, oldest first (see Archive).
func (s *Store) Runs() []string {
	entries, _ := os.ReadDir(filepath.Join(s.Dir, RunsDir))
	var runs []string
	for _, e := range entries {
		if e.IsDir() {
			runs = append(runs, filepath.Join(s.Dir, RunsDir, e.Name()))
		}
	}
	return runs
}

// Requests a command can make of a running watcher.
const (
	RequestPause    = "pause"
	RequestStop     = "stop"
	RequestStopKill = "stop-kill"
	RequestSkip     = "skip"  // end the iteration now; with a plan its task is skipped
	RequestRetry    = "retry" // end the iteration now and start its task again, not counted as a try
)

// Request leaves a request for the watcher, which takes it at its next look
// (a command also sends it SIGUSR1 so that is at once).
func (s *Store) Request(what string) error {
	tmp := s.Path("." + RequestFile + ".tmp")
	if err := os.WriteFile(tmp, []byte(what), 0o600); err != nil {
		return fmt.Errorf("write request: %w", err)
	}
	return os.Rename(tmp, s.Path(RequestFile))
}

// TakeRequest returns and removes a pending request, "" if none.
func (s *Store) TakeRequest() string {
	data, err := os.ReadFile(s.Path(RequestFile))
	if err != nil {
		return ""
	}
	_ = os.Remove(s.Path(RequestFile))
	return string(data)
}

// Root is where loops keep state: $RALPH_STATE_DIR, else $XDG_STATE_HOME/ralph,
// else ~/.local/state/ralph.
func Root(getenv func(string) string) string {
	if d := getenv("RALPH_STATE_DIR"); d != "" {
		return d
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "ralph")
	}
	return filepath.Join(getenv("HOME"), ".local", "state", "ralph")
}

// Store is one loop's folder.
type Store struct {
	Dir       string
	lock      *os.File
	recovered string // what Load found and brought back, "" when state.json was whole
}

// ErrLocked means another watcher holds the loop.
var ErrLocked = errors.New("another watcher is running this loop")

// Open makes (if needed) and opens the folder of loop name under root,
// 0700, and makes sure a file can be written in it: a loop whose record
// cannot be kept must not start.
func Open(root, name string) (*Store, error) {
	dir := filepath.Join(root, name)
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		err = os.Chmod(dir, 0o700)
	}
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(dir, ".writable-*"); err == nil {
			f.Close()
			err = os.Remove(f.Name())
		}
	}
	if err != nil {
		return nil, Unwritable(dir, err)
	}
	return &Store{Dir: dir}, nil
}

// Unwritable says that the state folder dir cannot be written, and why.
func Unwritable(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the folder is named once
	}
	return fmt.Errorf("cannot write the state folder %s: %w (RALPH_STATE_DIR chooses another)", dir, err)
}

// Path is a file in the loop's folder.
func (s *Store) Path(name string) string { return filepath.Join(s.Dir, name) }

// Lock takes the loop's exclusive lock for this process; ErrLocked if held.
// The kernel drops it when the process dies, so a dead watcher never blocks.
func (s *Store) Lock() error {
	f, err := os.OpenFile(s.Path(LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return ErrLocked
		}
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	s.lock = f
	return nil
}

// Locked reports whether some process holds the loop's lock (a live watcher).
func (s *Store) Locked() bool {
	f, err := os.OpenFile(s.Path(LockFile), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// Unlock releases the lock.
func (s *Store) Unlock() {
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}

// Load reads state.json; fs.ErrNotExist if there is none. A state.json
// that cannot be read (written over while no watcher ran) is put back from
// the last good state saved beside it, and the log says so (see Recovered).
func (s *Store) Load() (*State, error) {
	data, err := os.ReadFile(s.Path(StateFile))
	if err != nil {
		return nil, err
	}
	var st State
	err = json.Unmarshal(data, &st)
	if err == nil {
		return &st, nil
	}
	if good, at, ok := s.lastGood(); ok {
		s.recovered = fmt.Sprintf("%s could not be read (%v); the last good state (%s, saved %s) is back in its place",
			s.Path(StateFile), err, StateGood, at.Format(TimeFormat))
		if werr := writeAtomic(s.Path(StateFile), ".state-*.json", good.data); werr == nil {
			_ = s.Log(time.Now(), "STATE", fmt.Sprintf("%s could not be read (%v); the last good state, saved %s, is back in its place", StateFile, err, at.Format(TimeFormat)))
		}
		return good.st, nil
	}
	return nil, fmt.Errorf("corrupt state file %s: %v, and no good copy is kept beside it (remove it with 'ralph-watch clean %s' or start over with 'run --replace')",
		s.Path(StateFile), err, filepath.Base(s.Dir))
}

// Recovered is what the last Load found and brought back: "" when
// state.json could be read.
func (s *Store) Recovered() string { return s.recovered }

// goodState is the last good state, as saved and as read.
type goodState struct {
	data []byte
	st   *State
}

// lastGood reads the copy Save keeps beside state.json, and when it was saved.
func (s *Store) lastGood() (goodState, time.Time, bool) {
	path := s.Path(StateGood)
	data, err := os.ReadFile(path)
	info, serr := os.Stat(path)
	if err != nil || serr != nil {
		return goodState{}, time.Time{}, false
	}
	var st State
	if json.Unmarshal(data, &st) != nil {
		return goodState{}, time.Time{}, false
	}
	return goodState{data, &st}, info.ModTime(), true
}

// Save writes state.json atomically (temp file, fsync, rename), 0600, so a
// reader never sees half a file and a failed write leaves the old one; and
// the same beside it, as the last good state for Load to bring back.
func (s *Store) Save(st *State) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := writeAtomic(s.Path(StateFile), ".state-*.json", data); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	// no fsync: state.json has just been synced; the copy counts only once it is written over
	if err := writeWhole(s.Path(StateGood), ".state-good-*.json", data, false); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return nil
}

// Log appends `TIME [EVENT] message` to iterations.log.
func (s *Store) Log(now time.Time, event, message string) error {
	f, err := os.OpenFile(s.Path(LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("write iterations log: %w", err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "%s [%s] %s\n", Stamp(now), event, message)
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write iterations log: %w", err)
	}
	return f.Close()
}

// Exists reports whether loop name has a state folder under root.
func Exists(root, name string) bool {
	_, err := os.Stat(filepath.Join(root, name, StateFile))
	return !errors.Is(err, fs.ErrNotExist)
}
