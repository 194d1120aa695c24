package control

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func TestStatusShowsTheAgentsStateTheLimitWaitAndTheTurnGap(t *testing.T) {
	gap := int64(140)
	l := &Loop{Name: "a", Watched: true, Pane: PaneRunning, State: &state.State{
		Status: state.Running, Agent: "claude", AgentState: "limited",
		WaitingUntil: "2026-11-22T20:00:00", TurnGapMS: &gap,
	}}
	var out strings.Builder
	WriteStatus(&out, l, time.Now())
	for _, want := range []string{"Agent: claude (limited)\n", "Waiting for limit reset (20:00)\n", "Turn end to next iteration: 140ms\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
	l.State.Agent = "generic"
	out.Reset()
	WriteStatus(&out, l, time.Now())
	if strings.Contains(out.String(), "Agent:") {
		t.Errorf("a generic loop shows an agent:\n%s", out.String())
	}
}

func TestWorkerStatusNeverSaysRunningBesideALoopThatIsOver(t *testing.T) {
	reason := "stopped"
	for _, tc := range []struct {
		name string
		st   state.State
		pane string
		want string
	}{
		{"a live loop's agent", state.State{Status: state.Running}, PaneRunning, "running"},
		{"a stopped loop's agent runs on", state.State{Status: state.Stopped, ExitReason: &reason}, PaneRunning, "left-running"},
		{"a done loop's pane at its shell", state.State{Status: state.Stopped, ExitReason: &reason}, PaneExited, "exited"},
		{"a closed pane", state.State{Status: state.Failed}, PaneRemoved, "removed"},
	} {
		l := &Loop{Name: "a", Pane: tc.pane, State: &tc.st}
		if got := l.WorkerStatus(); got != tc.want {
			t.Errorf("%s: AGENT %q, want %q", tc.name, got, tc.want)
		}
	}
}
