package control

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// endedLoop is a loop with no watcher that ran iterations of max, ended by reason.
func endedLoop(t *testing.T, iterations, max int, reason contract.Reason) *Loop {
	t.Helper()
	store, err := state.Open(t.TempDir(), "p")
	if err != nil {
		t.Fatal(err)
	}
	st := &state.State{WorkerName: "p", Status: state.Stopped, CurrentIteration: iterations, MaxIterations: max,
		Started: state.Stamp(time.Now().Add(-time.Hour)), WatcherArgs: []string{"--"}}
	reason.Write(st)
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	return &Loop{Name: "p", Store: store, State: st, Pane: PaneRemoved}
}

func TestResumeOfALoopAtItsLimitSaysHowToRaiseItAndGoesOnOnceRaised(t *testing.T) {
	l := endedLoop(t, 10, 10, contract.ReasonMaxIterations)
	var warn bytes.Buffer
	ok, err := Resumable(l, &warn, clock.Real{})
	if ok || err == nil || !strings.Contains(err.Error(), "has status 'done': it ended at its limit (max_iterations); raise it to go on: 'ralph-watch resume p --max-iterations 20'") {
		t.Fatalf("Resumable = %v, %v", ok, err)
	}
	var out bytes.Buffer
	if err := Set(l, &state.Limits{AddIterations: 5}, &out, clock.Real{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "p: max-iterations 15 when the loop goes on ('ralph-watch resume p')") {
		t.Errorf("set said %q", out.String())
	}
	if ok, err := Resumable(l, &warn, clock.Real{}); !ok || err != nil {
		t.Errorf("after set: Resumable = %v, %v", ok, err)
	}
	var status bytes.Buffer
	WriteStatus(&status, l, time.Now())
	if !strings.Contains(status.String(), "Set at the next iteration: max-iterations +5") {
		t.Errorf("status:\n%s", status.String())
	}
}

func TestSetRefusesALimitBelowWhatRanWithTheReason(t *testing.T) {
	l := endedLoop(t, 7, 10, contract.ReasonPaused)
	l.State.Status = state.Paused
	for _, tc := range []struct {
		lim  state.Limits
		want string
	}{
		{state.Limits{MaxIterations: ptr(5)}, "--max-iterations 5 is below the 7 iterations already run"},
		{state.Limits{MaxTime: ptr(60)}, "--max-time 1m0s is below the 1h0m"},
	} {
		err := Set(l, &tc.lim, &bytes.Buffer{}, clock.Real{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || err.(*Error).Code != contract.ExitUsage {
			t.Errorf("set %s: %v, want %q (exit 2)", &tc.lim, err, tc.want)
		}
	}
	if n := len(l.Store.Steers()); n != 0 {
		t.Errorf("%d requests left for a refused set", n)
	}
	done := endedLoop(t, 3, 10, contract.ReasonDonePattern)
	if err := Note(done, "late", false, false, &bytes.Buffer{}, clock.Real{}); err == nil || !strings.Contains(err.Error(), "will not go on") {
		t.Errorf("a note for a loop that is done: %v", err)
	}
}

func TestStatusShowsThePendingNotes(t *testing.T) {
	l := endedLoop(t, 2, 10, contract.ReasonPaused)
	l.State.Status = state.Paused
	l.State.Notes = []state.Note{{Text: "kept", Sticky: true}}
	_ = Note(l, "first line\nsecond", false, false, &bytes.Buffer{}, clock.Real{})
	var out bytes.Buffer
	WriteStatus(&out, l, time.Now())
	if !strings.Contains(out.String(), "Notes for the next iteration: 2\n  kept (sticky)\n  first line …\n") {
		t.Errorf("status:\n%s", out.String())
	}
}

func ptr(n int) *int { return &n }

func TestSkipAndRetryNeedARunningLoop(t *testing.T) {
	l := endedLoop(t, 2, 10, contract.ReasonPaused)
	l.State.Status = state.Paused
	for _, request := range []string{state.RequestSkip, state.RequestRetry} {
		err := EndIteration(l, request, &bytes.Buffer{}, clock.Real{})
		if err == nil || !strings.Contains(err.Error(), "has status 'paused': no iteration running to") {
			t.Errorf("%s of a paused loop: %v", request, err)
		}
	}
	if _, err := l.Store.Load(); err != nil {
		t.Fatal(err)
	}
	if data := l.Store.TakeRequest(); data != "" {
		t.Errorf("a request was left: %q", data)
	}
}

func TestStatusJSONListsTheRequestsNotYetTaken(t *testing.T) {
	l := endedLoop(t, 2, 10, contract.ReasonPaused)
	l.State.Status = state.Paused
	_ = Note(l, "for later", true, false, &bytes.Buffer{}, clock.Real{})
	steer, _ := l.JSON()["steer_pending"].([]state.Steer)
	if len(steer) != 1 || steer[0].Text != "for later" || !steer[0].Sticky {
		t.Errorf("steer_pending = %+v", l.JSON()["steer_pending"])
	}
}

// status counts the notes the next iteration will carry, and lists those:
// a clear still waiting drops the ones before it, and a request the
// watcher has applied (state.json has its note) but not yet removed is
// not counted again.
func TestStatusCountsAndListsTheSameNotes(t *testing.T) {
	l := endedLoop(t, 2, 10, contract.ReasonPaused)
	l.State.Status = state.Paused
	applied, err := l.Store.Steer(state.Steer{Kind: state.SteerNote, Text: "applied"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	l.State.Notes = []state.Note{{Text: "kept", Sticky: true}, {Text: "applied"}}
	l.State.Steered = []string{applied.ID}
	var out bytes.Buffer
	WriteStatus(&out, l, time.Now())
	if !strings.Contains(out.String(), "Notes for the next iteration: 2\n  kept (sticky)\n  applied\n") || strings.Count(out.String(), "applied") != 1 {
		t.Errorf("a request applied and not yet removed:\n%s", out.String())
	}
	for _, n := range []struct {
		text  string
		clear bool
	}{{"before", false}, {"", true}, {"after", false}} {
		if err := Note(l, n.text, false, n.clear, &bytes.Buffer{}, clock.Real{}); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	WriteStatus(&out, l, time.Now())
	if !strings.Contains(out.String(), "Notes for the next iteration: 1 (those before cleared)\n  after\n") || strings.Contains(out.String(), "before\n") || strings.Contains(out.String(), "kept") {
		t.Errorf("a clear waiting between notes:\n%s", out.String())
	}
	if err := Note(l, "", false, true, &bytes.Buffer{}, clock.Real{}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	WriteStatus(&out, l, time.Now())
	if !strings.Contains(out.String(), "Notes for the next iteration: none (cleared)\n") || strings.Contains(out.String(), "after") {
		t.Errorf("a clear waiting last:\n%s", out.String())
	}
}

// Right after set --max-iterations +10, status shows the limit the loop
// will take, as its status line does at once (with the watcher's
// pendingMax), and says when it is taken; once the watcher applied the
// request (its file not yet removed) it is not added again; list agrees.
func TestStatusShowsTheLimitASetGivesTheLoopBeforeItIsTaken(t *testing.T) {
	l := endedLoop(t, 1, 6, contract.ReasonPaused)
	l.State.Status, l.Watched = state.Running, true
	var out bytes.Buffer
	if err := Set(l, &state.Limits{Add: &state.Limits{MaxIterations: ptr(10)}}, &out, clock.Real{}); err != nil {
		t.Fatal(err)
	}
	status := func() string {
		var b bytes.Buffer
		WriteStatus(&b, l, time.Now())
		return b.String()
	}
	if got := status(); !strings.Contains(got, "Iteration: 1/16 (set from 6, taken at the next iteration)\n") {
		t.Errorf("status after set +10:\n%s", got)
	}
	var list bytes.Buffer
	if err := WriteTable(&list, []*Loop{l}); err != nil || !strings.Contains(list.String(), " 1/16 ") {
		t.Errorf("list after set +10 (%v):\n%s", err, list.String())
	}
	l.Watched = false
	if got := status(); !strings.Contains(got, "Iteration: 1/16 (set from 6, taken when the loop goes on)\n") {
		t.Errorf("status of a loop without its watcher after set +10:\n%s", got)
	}
	l.Watched = true
	steers := l.Store.Steers()
	l.State.MaxIterations, l.State.Set, l.State.Steered = 16, &state.Limits{MaxIterations: ptr(16)}, []string{steers[0].ID} // applied, its file still there
	if got := status(); !strings.Contains(got, "Iteration: 1/16\n") {
		t.Errorf("status once the watcher took the set:\n%s", got)
	}
}
