package control

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

var start = time.Date(2026, 11, 22, 20, 0, 0, 0, time.Local)

// newLoop writes a loop's state under a fresh root, with no pane (its
// server is gone), and finds it as a command would.
func newLoop(t *testing.T, st *state.State) (string, *Loop) {
	t.Helper()
	root := t.TempDir()
	store, err := state.Open(root, "l")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	l, err := Find(root, "l")
	if err != nil {
		t.Fatal(err)
	}
	return root, l
}

func TestPausingAnUnwatchedLoopRecordsItOnDisk(t *testing.T) {
	_, l := newLoop(t, &state.State{Status: state.Running, CurrentIteration: 2})
	var out, warn strings.Builder
	if err := Pause(l, &out, &warn, clock.NewFake(start)); err != nil {
		t.Fatal(err)
	}
	if out.String() != "paused ralph loop for l\n" || warn.Len() != 0 {
		t.Errorf("out %q, warnings %q", out.String(), warn.String())
	}
	st, _ := l.Store.Load()
	if st.Status != state.Paused || st.Reason != "request" {
		t.Errorf("state %s (%s), want paused by request", st.Status, st.Reason)
	}
	if log, _ := os.ReadFile(l.Store.Path(state.LogFile)); !strings.Contains(string(log), "[PAUSE] loop paused reason=request") {
		t.Errorf("log lacks the pause:\n%s", log)
	}
	warn.Reset()
	if err := Pause(l, &out, &warn, clock.NewFake(start)); err != nil || warn.String() != "ralph-watch: warning: loop 'l' is already paused\n" {
		t.Errorf("a second pause: err %v, warnings %q", err, warn.String())
	}
}

func TestAWatcherIsAskedToPauseAndAwaited(t *testing.T) {
	_, l := newLoop(t, &state.State{Status: state.Running})
	watcher := &state.Store{Dir: l.Store.Dir}
	if err := watcher.Lock(); err != nil {
		t.Fatal(err)
	}
	defer watcher.Unlock()
	l.Watched = true
	clk := clock.NewFake(start)
	done := make(chan error, 1)
	var out strings.Builder
	go func() { done <- Pause(l, &out, &out, clk) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !clk.WaitFor(ctx, 1) {
		t.Fatal("pause never waited for the watcher")
	}
	if got := watcher.TakeRequest(); got != state.RequestPause {
		t.Fatalf("request %q, want %q", got, state.RequestPause)
	}
	if err := watcher.Save(&state.State{Status: state.Paused}); err != nil {
		t.Error(err)
	}
	clk.Advance(lookEvery)
	if err := <-done; err != nil || out.String() != "paused ralph loop for l\n" {
		t.Errorf("err %v, out %q", err, out.String())
	}
}

func TestAWatcherThatDoesNotAnswerFailsThePause(t *testing.T) {
	_, l := newLoop(t, &state.State{Status: state.Running})
	l.Watched = true
	err := Pause(l, os.Stdout, os.Stderr, clock.NewAuto(start))
	if e, ok := err.(*Error); !ok || e.Code != 1 || e.Msg != "the watcher of 'l' did not answer the pause request" {
		t.Errorf("err %#v", err)
	}
}

func TestStoppingAnEndedLoopSaysSoAndChangesNothing(t *testing.T) {
	reason := "done"
	_, l := newLoop(t, &state.State{Status: state.Stopped, ExitReason: &reason})
	var out strings.Builder
	if err := Stop(l, true, &out, clock.NewAuto(start)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "ralph loop for l has already ended (") || !strings.HasSuffix(out.String(), "); nothing to stop\n") {
		t.Errorf("out %q", out.String())
	}
}

func TestStoppingAnUnwatchedLoopSaysStoppedOrKilled(t *testing.T) {
	for kill, want := range map[bool]string{false: "stopped", true: "killed"} {
		_, l := newLoop(t, &state.State{Status: state.Paused, CurrentIteration: 4})
		var out strings.Builder
		if err := Stop(l, kill, &out, clock.NewAuto(start)); err != nil {
			t.Fatal(err)
		}
		st, _ := l.Store.Load()
		if st.Status != state.Stopped || st.ExitReason == nil || *st.ExitReason != want || out.String() != "stopped ralph loop for l\n" {
			t.Errorf("kill %v: state %s %v, out %q, want reason %s", kill, st.Status, st.ExitReason, out.String(), want)
		}
	}
}

func TestANameOfAResumableLoopIsRefusedUnlessReplacedOrCleaned(t *testing.T) {
	root, _ := newLoop(t, &state.State{Status: state.Paused})
	var out strings.Builder
	_, err := ClaimName(root, "l", ClaimNew, &out, clock.NewAuto(start))
	if e, ok := err.(*Error); !ok || e.Code != 2 || !strings.Contains(e.Msg, "use 'ralph-watch resume l', --replace or --clean-state") {
		t.Fatalf("err %v", err)
	}
	if _, err := ClaimName(root, "l", ClaimClean, &out, clock.NewAuto(start)); err != nil || out.String() != "cleared ralph state for l\n" {
		t.Fatalf("clean: err %v, out %q", err, out.String())
	}
	if _, err := Find(root, "l"); err == nil {
		t.Error("the old state is still there")
	}
}

func TestCleanRefusesAWatchedLoopAndRemovesTheOthers(t *testing.T) {
	root, l := newLoop(t, &state.State{Status: state.Stopped})
	other, _ := state.Open(root, "m")
	if err := os.WriteFile(other.Path(state.StateFile), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.Store.Lock(); err != nil {
		t.Fatal(err)
	}
	var out, warn strings.Builder
	err := Clean(root, []string{"l", "m"}, &out, &warn)
	l.Store.Unlock()
	if e, ok := err.(*Error); !ok || e.Code != 1 || e.Msg != "" {
		t.Errorf("err %#v, want exit 1 with no message", err)
	}
	if !strings.Contains(warn.String(), "loop 'l' is being watched") || out.String() != "cleaned ralph state for m\n" {
		t.Errorf("out %q, warnings %q", out.String(), warn.String())
	}
}

// A watcher seen live when stop looked, gone before it answered (killed as
// it was asked): stop stops the loop itself and takes back its request,
// which no watcher is left to take.
func TestAStopWhoseWatcherWentWithoutAnsweringStopsTheLoopItself(t *testing.T) {
	_, l := newLoop(t, &state.State{Status: state.Running, CurrentIteration: 2})
	watcher := &state.Store{Dir: l.Store.Dir}
	if err := watcher.Lock(); err != nil {
		t.Fatal(err)
	}
	l.Watched = true
	clk := clock.NewFake(start)
	done := make(chan error, 1)
	var out strings.Builder
	go func() { done <- Stop(l, false, &out, clk) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !clk.WaitFor(ctx, 1) {
		t.Fatal("stop never waited for the watcher")
	}
	watcher.Unlock() // it ends without a word
	clk.Advance(lookEvery)
	select {
	case err := <-done:
		if err != nil || out.String() != "stopped ralph loop for l\n" {
			t.Fatalf("err %v, out %q", err, out.String())
		}
	case <-ctx.Done():
		t.Fatal("stop still waits for an answer from a watcher that is gone")
	}
	st, err := l.Store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != state.Stopped || st.ExitReason == nil || *st.ExitReason != "stopped" {
		t.Errorf("state %s %v, want stopped", st.Status, st.ExitReason)
	}
	if got := l.Store.TakeRequest(); got != "" {
		t.Errorf("the stop request %q was left for a watcher to come", got)
	}
}
