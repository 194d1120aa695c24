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

// status shows the goal, the last verdict and what it found missing; the
// JSON has them as goal and verdicts.
func TestStatusShowsTheGoalAndTheLastVerdict(t *testing.T) {
	l := &Loop{Name: "a", Watched: true, Pane: PaneRunning, State: &state.State{Status: state.Running, Goal: "a CSV\nparser",
		Verdicts: []state.Verdict{{Iteration: 2, Missing: []string{}, Reason: "no JSON"}, {Iteration: 4, Missing: []string{"tests", "docs"}, Reason: "tests; docs"}}}}
	var out strings.Builder
	WriteStatus(&out, l, time.Now())
	if want := "Goal: a CSV parser\nVerdict: not met (iteration 4): tests; docs\n  missing: tests\n  missing: docs\n"; !strings.Contains(out.String(), want) {
		t.Errorf("status lacks\n%s\n---\n%s", want, out.String())
	}
	m := l.JSON()
	if m["goal"] != "a CSV\nparser" {
		t.Errorf("JSON goal %v", m["goal"])
	}
	if v, ok := m["verdicts"].([]any); !ok || len(v) != 2 || v[1].(map[string]any)["iteration"] != float64(4) {
		t.Errorf("JSON verdicts %v", m["verdicts"])
	}
	l.State.Verdicts = append(l.State.Verdicts, state.Verdict{Iteration: 5, Met: true})
	out.Reset()
	WriteStatus(&out, l, time.Now())
	if !strings.Contains(out.String(), "Verdict: met (iteration 5)\n") {
		t.Errorf("status:\n%s", out.String())
	}
}
