package control

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func reason(r string) *string { return &r }

// Only a loop that was live when its server went away, with no watcher,
// recorded on this server's socket and knowing how to start its watcher,
// is re-armed; a loop the person paused or stopped never is.
func TestRestorableIsOnlyALoopLiveWhenItsServerWentAway(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "default")
	args := []string{"--target", "%3", "--", "claude"}
	for _, tc := range []struct {
		name string
		st   state.State
		want bool
	}{
		{"ended by server_gone", state.State{Status: state.Failed, ExitReason: reason("server_gone")}, true},
		{"running, its watcher died with the machine", state.State{Status: state.Running}, true},
		{"paused by the person", state.State{Status: state.Paused}, false},
		{"stopped by the person", state.State{Status: state.Stopped, ExitReason: reason("killed")}, false},
		{"its pane closed", state.State{Status: state.Failed, ExitReason: reason("pane_closed")}, false},
		{"failed on its own", state.State{Status: state.Failed, ExitReason: reason("consecutive_failures")}, false},
		{"another server's", state.State{Status: state.Running, TmuxSocket: socket + "-other"}, false},
		{"no watcher arguments", state.State{Status: state.Running, WatcherArgs: []string{}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.st
			if st.TmuxSocket == "" {
				st.TmuxSocket = socket
			}
			if st.WatcherArgs == nil {
				st.WatcherArgs = args
			}
			_, l := newLoop(t, &st)
			if got := Restorable(l, socket); got != tc.want {
				t.Errorf("Restorable = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAWatchedLoopIsNeverRestorable(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "default")
	_, l := newLoop(t, &state.State{Status: state.Running, TmuxSocket: socket, WatcherArgs: []string{"--"}})
	watcher := &state.Store{Dir: l.Store.Dir}
	if err := watcher.Lock(); err != nil {
		t.Fatal(err)
	}
	defer watcher.Unlock()
	if l, _ = Find(filepath.Dir(l.Store.Dir), "l"); Restorable(l, socket) {
		t.Error("a loop a watcher holds is restorable")
	}
}

// A socket reached through a symbolic link is the same server.
func TestRestorableKnowsASocketByAnyPath(t *testing.T) {
	dir := t.TempDir()
	socket := filepath.Join(dir, "default")
	if err := os.WriteFile(socket, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	_, l := newLoop(t, &state.State{Status: state.Running, TmuxSocket: filepath.Join(link, "default"), WatcherArgs: []string{"--"}})
	if !Restorable(l, socket) {
		t.Error("the loop's socket, named through a link, is not this server's")
	}
}

func TestWithTargetLoopsTheNewPaneAndKeepsTheRest(t *testing.T) {
	for _, tc := range []struct{ args, want []string }{
		{[]string{"--target", "%3", "--name", "x", "--", "claude", "-t", "%9"}, []string{"--target", "%7", "--name", "x", "--", "claude", "-t", "%9"}},
		{[]string{"--target=%3", "--"}, []string{"--target=%7", "--"}},
		{[]string{"--name", "x", "--", "claude", "--target", "%9"}, []string{"--target", "%7", "--name", "x", "--", "claude", "--target", "%9"}},
	} {
		if got := withTarget(tc.args, "%7"); !slices.Equal(got, tc.want) {
			t.Errorf("withTarget(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
	args := []string{"--target", "%3", "--"}
	withTarget(args, "%7")
	if args[1] != "%3" {
		t.Error("withTarget changed its argument")
	}
}

// A loop that ended because its pane or server went away may be resumed,
// and one that failed for a cause the person can mend once it is mended: a
// prompt file back, a command found again, what kept failing fixed.
func TestResumableTakesALoopWhosePaneOrServerWentAway(t *testing.T) {
	there := filepath.Join(t.TempDir(), "PROMPT.md")
	if err := os.WriteFile(there, []byte("go"), 0o600); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "PROMPT.md")
	for _, tc := range []struct {
		reason, prompt string
		command        []string
		want           bool
	}{{"server_gone", "", nil, true}, {"pane_closed", "", nil, true}, {"consecutive_failures", "", nil, true},
		{"prompt_file_missing", there, nil, true}, {"prompt_file_missing", gone, nil, false},
		{"fatal_exit", "", []string{"sh"}, true}, {"fatal_exit", "", []string{"ralph-no-such-agent"}, false}} {
		_, l := newLoop(t, &state.State{Status: state.Failed, ExitReason: reason(tc.reason), WatcherArgs: []string{"--"}, PromptFile: tc.prompt, Command: tc.command})
		var warn strings.Builder
		ok, err := Resumable(l, &warn, clock.NewAuto(start))
		if ok != tc.want || (err != nil) == tc.want {
			t.Errorf("%s: Resumable = %v, %v; want %v", tc.reason, ok, err, tc.want)
		}
	}
}

// A loop whose folder is gone gets no pane: tmux would open it in $HOME,
// and the agent would work there.
func TestResumeRefusesALoopWhoseFolderIsGone(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "project")
	_, l := newLoop(t, &state.State{Status: state.Failed, ExitReason: reason("server_gone"), Dir: gone,
		TmuxSocket: filepath.Join(t.TempDir(), "default"), WatcherArgs: []string{"--target", "%1", "--"}})
	var out, warn strings.Builder
	started := false
	r := Rearm{Clock: clock.NewAuto(start), Executable: func() (string, error) { started = true; return "", os.ErrNotExist }}
	err := r.Resume(l, &out, &warn)
	if err == nil || err.Error() != "the folder of 'l' is gone: "+gone || started || out.Len() != 0 {
		t.Errorf("err %v, started %v, out %q", err, started, out.String())
	}
	if log, _ := os.ReadFile(l.Store.Path(state.LogFile)); len(log) != 0 {
		t.Errorf("the log says something happened:\n%s", log)
	}
}

// While one command re-arms a loop, another leaves it to it: resume says
// so, restore says nothing, and neither starts a second watcher.
func TestALoopBeingReArmedIsLeftToTheCommandDoingIt(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "default")
	root, l := newLoop(t, &state.State{Status: state.Failed, ExitReason: reason("server_gone"), Dir: t.TempDir(),
		TmuxSocket: socket, WatcherArgs: []string{"--target", "%1", "--"}})
	release, err := holdRearm(l)
	if err != nil || release == nil {
		t.Fatalf("take the re-arm lock: %v", err)
	}
	defer release()
	started := false
	r := Rearm{Clock: clock.NewAuto(start), Executable: func() (string, error) { started = true; return "", os.ErrNotExist }}
	var out, warn strings.Builder
	if err := r.Resume(l, &out, &warn); err != nil || warn.String() != "ralph-watch: warning: loop 'l' was resumed by another command\n" {
		t.Errorf("resume: err %v, warnings %q", err, warn.String())
	}
	out.Reset()
	warn.Reset()
	if err := r.Restore(root, socket, false, &out, &warn); err != nil || out.Len()+warn.Len() != 0 {
		t.Errorf("restore: err %v, out %q, warnings %q", err, out.String(), warn.String())
	}
	if started {
		t.Error("a second watcher was started")
	}
}

// The dry run says what the run will do: a loop whose folder is gone is
// one restore refuses, so the dry run does not promise to re-arm it.
func TestRestoreDryRunSaysALoopWhoseFolderIsGoneWillNotBeReArmed(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "default")
	gone := filepath.Join(t.TempDir(), "project")
	root, _ := newLoop(t, &state.State{Status: state.Failed, ExitReason: reason("server_gone"), Dir: gone,
		TmuxSocket: socket, WatcherArgs: []string{"--target", "%1", "--"}})
	r := Rearm{Clock: clock.NewAuto(start), Executable: func() (string, error) { return "", os.ErrNotExist }}
	why := "the folder of 'l' is gone: " + gone
	var out, warn strings.Builder
	if err := r.Restore(root, socket, true, &out, &warn); err != nil || out.String() != "would not re-arm l: "+why+"\n" || warn.Len() != 0 {
		t.Errorf("restore --dry-run: err %v, out %q, warnings %q", err, out.String(), warn.String())
	}
	out.Reset()
	if err := r.Restore(root, socket, false, &out, &warn); err == nil || out.Len() != 0 || warn.String() != "ralph-watch: error: cannot re-arm l: "+why+"\n" {
		t.Errorf("restore: err %v, out %q, warnings %q", err, out.String(), warn.String())
	}
}
