package contract

import (
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func TestStatusTableIsTheOneVocabulary(t *testing.T) {
	for _, c := range []struct {
		s                 Status
		word, mark, style string
		live              bool
		swarm             string
	}{
		{StatusRunning, "running", "⟳", "running", true, state.Running},
		{StatusStarting, "starting", "⟳", "running", true, state.Running},
		{StatusBackoff, "backoff", "⟳", "running", true, state.Running},
		{StatusNeedsInput, "needs-input", "✋", "paused", true, state.Running},
		{StatusWaiting, "waiting", "⏳", "paused", true, state.Running},
		{StatusPaused, "paused", "⏸", "paused", true, state.Paused},
		{StatusDone, "done", "✓", "done", false, state.Stopped},
		{StatusFailed, "failed", "✗", "failed", false, state.Failed},
		{StatusLimit, "limit", "■", "done", false, state.Stopped},
		{StatusStopped, "stopped", "■", "done", false, state.Stopped},
	} {
		if c.s.String() != c.word || c.s.Mark() != c.mark || c.s.Style() != c.style || c.s.Live() != c.live || c.s.Swarm() != c.swarm {
			t.Errorf("%v = %s %s %s live=%v %s, want %s %s %s live=%v %s", int(c.s), c.s, c.s.Mark(), c.s.Style(), c.s.Live(), c.s.Swarm(),
				c.word, c.mark, c.style, c.live, c.swarm)
		}
		if got, ok := ParseStatus(c.word); !ok || got != c.s {
			t.Errorf("ParseStatus(%q) = %v, %v", c.word, got, ok)
		}
	}
	if len(Statuses()) != 10 {
		t.Errorf("%d statuses, want the 10 of the contract", len(Statuses()))
	}
	if _, ok := ParseStatus("monitor_disconnected"); ok {
		t.Error("an unknown word parsed")
	}
	if Status(99).String() != "unknown" || Status(99).Live() {
		t.Error("an out-of-range status is not unknown and ended")
	}
}

func TestStatusOfAStateFileAgreesWithThePane(t *testing.T) {
	reason := func(r string) *string { return &r }
	pattern := "RALPH_DONE"
	for _, c := range []struct {
		name string
		st   state.State
		want Status
	}{
		{"shown done", state.State{Status: state.Stopped, Shown: "done"}, StatusDone},
		{"shown needs-input", state.State{Status: state.Running, Shown: "needs-input"}, StatusNeedsInput},
		{"shown waiting", state.State{Status: state.Running, Shown: "waiting"}, StatusWaiting},
		{"shown stale against the swarm status", state.State{Status: state.Paused, Shown: "waiting"}, StatusPaused},
		{"old file: done pattern", state.State{Status: state.Stopped, ExitReason: reason("done_pattern")}, StatusDone},
		{"old file: killed", state.State{Status: state.Stopped, ExitReason: reason("killed")}, StatusStopped},
		{"old file: limit with a criterion", state.State{Status: state.Stopped, ExitReason: reason("max_iterations"), DonePattern: &pattern}, StatusLimit},
		{"old file: all iterations, no criterion", state.State{Status: state.Stopped, ExitReason: reason("max_iterations")}, StatusDone},
		{"old file: failed", state.State{Status: state.Failed}, StatusFailed},
		{"old file: running", state.State{Status: state.Running}, StatusRunning},
	} {
		if got := StatusOf(&c.st); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestShownOptionsSayLiveEndedAndTheIterationToCome(t *testing.T) {
	ended := time.Unix(1700000000, 0)
	opts := func(s Shown) map[string]string {
		m := map[string]string{}
		for _, o := range s.Options() {
			m[o.Name] = o.Value
		}
		return m
	}
	w := opts(Shown{Status: StatusWaiting, Name: "a", Iteration: 0, Max: 3, Note: "waiting for limit reset (11:13)", Reason: "limit reset (11:13)"})
	if w[OptionLive] != "1" || w[OptionEnded] != "" || w[OptionIteration] != "1" || w[OptionStatus] != "⏳ 1/3 waiting for limit reset (11:13)" || w[OptionReason] != "limit reset (11:13)" {
		t.Errorf("waiting: %v", w)
	}
	d := opts(Shown{Status: StatusDone, Name: "a", Iteration: 2, Max: 3, Reason: "done_pattern", Ended: ended})
	if d[OptionLive] != "" || d[OptionEnded] != "1700000000" || d[OptionState] != "done" || d[OptionStatus] != "✓ 2/3" {
		t.Errorf("done: %v", d)
	}
	n := opts(Shown{Status: StatusNeedsInput, Name: "a", Iteration: 1, Max: 3})
	if n[OptionStatus] != "✋ 1/3 needs input" || n[OptionState] != "needs-input" {
		t.Errorf("needs input: %v", n)
	}
	if j := opts(Shown{Status: StatusRunning, Name: "a", Iteration: 3, Max: 10, Judging: true}); j[OptionStatus] != "⟳ 3/10 ⚖" {
		t.Errorf("judging: %v", j)
	}
	if len(Unset()) != len(d) {
		t.Errorf("Unset clears %d options, Options sets %d", len(Unset()), len(d))
	}
}

// A loop that waits for the person (a question) or stopped for something
// they must mend (a failure) says so in its pane, for the status line to
// put it first; no other does.
func TestShownOptionsSayWhenTheLoopNeedsThePerson(t *testing.T) {
	for _, s := range Statuses() {
		var got string
		for _, o := range (Shown{Status: s, Ended: time.Unix(1700000000, 0)}).Options() {
			if o.Name == OptionAttention {
				got = o.Value
			}
		}
		want := map[bool]string{true: "1"}[s == StatusNeedsInput || s == StatusFailed]
		if got != want {
			t.Errorf("%s: %s %q, want %q", s, OptionAttention, got, want)
		}
	}
}
