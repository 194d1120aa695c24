package iteration

import (
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

func TestEachEndingMeansOneThing(t *testing.T) {
	for _, tc := range []struct {
		it   Outcome
		want string
	}{
		{Outcome{Ending: EndExit}, "exit"},
		{Outcome{Ending: EndTurn}, "turn_end"}, // as iterations.log says, not "exit": the agent had not exited
		{Outcome{Ending: EndTurnFailed}, "turn_failed"},
		{Outcome{Ending: EndDialog}, "dialog_timeout"},
		{Outcome{Ending: EndDoneFile}, "done_file"},
		{Outcome{Ending: EndInactivity}, "inactivity_timeout"},
		{Outcome{Ending: EndTimeout}, "iteration_timeout"},
		{Outcome{Ending: EndInactivity, Match: "RALPH_DONE"}, "done_pattern"},
	} {
		if got := EndReason(tc.it); got != tc.want {
			t.Errorf("EndReason(%v) = %q, want %q", tc.it.Ending, got, tc.want)
		}
	}
	// what each ending means for the loop: watch's TestEachEndingMeansOneThing (decide_test.go)
}

func TestAnExitStatusCountsAsWhatItSays(t *testing.T) {
	for _, tc := range []struct {
		code    int
		failure bool
		fatal   string
	}{
		{0, false, ""},
		{contract.ExitPause, false, ""},
		{1, true, ""},
		{130, true, ""},
		{126, true, "command not executable"},
		{127, true, "command not found"},
	} {
		if failure, fatal := ExitFailure(tc.code); failure != tc.failure || fatal != tc.fatal {
			t.Errorf("ExitFailure(%d) = %v, %q; want %v, %q", tc.code, failure, fatal, tc.failure, tc.fatal)
		}
	}
}
