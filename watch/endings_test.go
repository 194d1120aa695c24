package watch

import (
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

func TestEachEndingMeansOneThing(t *testing.T) {
	for _, tc := range []struct {
		it   outcome
		want string
	}{
		{outcome{ending: endExit}, "exit"},
		{outcome{ending: endTurn}, "turn_end"}, // as iterations.log says, not "exit": the agent had not exited
		{outcome{ending: endTurnFailed}, "turn_failed"},
		{outcome{ending: endDialog}, "dialog_timeout"},
		{outcome{ending: endDoneFile}, "done_file"},
		{outcome{ending: endInactivity}, "inactivity_timeout"},
		{outcome{ending: endTimeout}, "iteration_timeout"},
		{outcome{ending: endInactivity, match: "RALPH_DONE"}, "done_pattern"},
	} {
		if got := endReason(tc.it); got != tc.want {
			t.Errorf("endReason(%v) = %q, want %q", tc.it.ending, got, tc.want)
		}
	}
	for _, e := range []ending{endNone, endReady, endWaitOver} {
		if r := endings[e]; r.then != goOn || r.reason != "" || r.failure {
			t.Errorf("ending %d is a step, not an end of the loop: %+v", e, r)
		}
	}
	for e, r := range endings {
		if r.agentRuns && r.then != pauseLoop {
			t.Errorf("ending %d leaves the agent running but does not leave the loop", e)
		}
		if r.then != goOn && r.reason == "" && r.then != waitReset {
			t.Errorf("ending %d ends the loop with no reason", e)
		}
	}
}

func TestAnExitStatusCountsAsWhatItSays(t *testing.T) {
	for _, tc := range []struct {
		code    int
		failure bool
		fatal   string
	}{
		{0, false, ""},
		{words.ExitPause, false, ""},
		{1, true, ""},
		{130, true, ""},
		{126, true, "command not executable"},
		{127, true, "command not found"},
	} {
		if failure, fatal := exitFailure(tc.code); failure != tc.failure || fatal != tc.fatal {
			t.Errorf("exitFailure(%d) = %v, %q; want %v, %q", tc.code, failure, fatal, tc.failure, tc.fatal)
		}
	}
}
