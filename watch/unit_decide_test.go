package watch

import (
	"fmt"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
)

// What each ending does to the loop with no done signal: before the steps
// after the iteration (at once), and after them when it goes on.
var endingMeans = map[iteration.Ending]struct{ atOnce, after next }{
	iteration.EndNone:        {runSteps, nextIteration},
	iteration.EndReady:       {runSteps, nextIteration},
	iteration.EndWaitOver:    {runSteps, nextIteration},
	iteration.EndExit:        {runSteps, nextIteration}, // exit 0
	iteration.EndDone:        {runSteps, nextIteration}, // no match: the pattern is what says done
	iteration.EndDoneFile:    {runSteps, nextIteration}, // the done signal itself: see doneSignal
	iteration.EndInactivity:  {runSteps, nextIteration},
	iteration.EndTimeout:     {runSteps, nextIteration},
	iteration.EndMaxTime:     {endLimit, endLimit},
	iteration.EndInterrupted: {leave, leave},
	iteration.EndPaneGone:    {endFailed, endFailed},
	iteration.EndServerGone:  {endFailed, endFailed},
	iteration.EndPaused:      {leave, leave},
	iteration.EndStopped:     {leave, leave},
	iteration.EndTurn:        {runSteps, nextIteration},
	iteration.EndLimit:       {waitLimit, waitLimit},
	iteration.EndDialog:      {runSteps, nextIteration},
	iteration.EndStartup:     {endFailed, endFailed},
	iteration.EndTurnFailed:  {runSteps, retry},
	iteration.EndBudget:      {endBudget, endBudget},
	iteration.EndNoLogin:     {endFailed, endFailed},
	iteration.EndContext:     {runSteps, nextIteration},
	iteration.EndSkipped:     {runSteps, nextIteration},
	iteration.EndRetried:     {runSteps, nextIteration},
}

// TestUnitDecideOverEveryEndingDoneSignalChecksAndPlan goes through every
// ending × done signal (none, the pattern, the done file's own) × checks
// passing or failing × a plan or none: a leaving ending leaves whatever
// came; a done signal outweighs an ending that would end the loop, and
// ends it only when the checks pass and no plan decides instead; else the
// loop goes on as the ending says.
func TestUnitDecideOverEveryEndingDoneSignalChecksAndPlan(t *testing.T) {
	if len(endingMeans) != int(iteration.EndRetried)+1 {
		t.Fatalf("endingMeans has %d endings, there are %d", len(endingMeans), iteration.EndRetried+1)
	}
	for e := iteration.EndNone; e <= iteration.EndRetried; e++ {
		means := endingMeans[e]
		for _, match := range []string{"", "RALPH_DONE"} {
			done := match != "" || e == iteration.EndDoneFile
			it := iteration.Outcome{Ending: e, Match: match}
			leaves := means.atOnce == leave
			atOnce := means.atOnce
			if done && !leaves {
				atOnce = runSteps // the done signal came first: the iteration counts
			}
			if got := decide(it, facts{}); got.next != atOnce || got.done != done {
				t.Errorf("ending %d match %q, before the steps: %+v, want next %d done %v", e, match, got, atOnce, done)
			}
			for _, passed := range []bool{true, false} {
				for _, plan := range []bool{false, true} {
					f := facts{checks: checksFailed, plan: plan}
					if passed {
						f.checks = checksPassed
					}
					want := decision{next: means.after, done: done}
					switch {
					case leaves:
					case !done:
					case plan:
						want.ignoreDone, want.next = true, afterWithoutDone(means.after)
					case passed && match != "":
						want.next = endPattern
					case passed:
						want.next = endDoneFile
					default:
						want.rejectDone, want.next = true, afterWithoutDone(means.after)
					}
					name := fmt.Sprintf("ending %d match %q passed %v plan %v", e, match, passed, plan)
					if got := decide(it, f); got != want {
						t.Errorf("%s: %+v, want %+v", name, got, want)
					}
				}
			}
		}
	}
}

// afterWithoutDone is how an ending goes on once its done signal is set
// aside: one that would end the loop (a closed pane) goes on as an
// iteration, since it was the done signal that came first.
func afterWithoutDone(after next) next {
	switch after {
	case endLimit, endFailed, endBudget, waitLimit:
		return nextIteration
	}
	return after
}

// TestUnitDecideByTheAgentsExitAndTheFacts: how an agent's exit status
// and the loop's counts decide, with no done signal.
func TestUnitDecideByTheAgentsExitAndTheFacts(t *testing.T) {
	passed := facts{checks: checksPassed}
	for _, tc := range []struct {
		name string
		it   iteration.Outcome
		f    facts
		want next
	}{
		{"exit 0", iteration.Outcome{Ending: iteration.EndExit}, passed, nextIteration},
		{"exit 1", iteration.Outcome{Ending: iteration.EndExit, Code: 1}, passed, retry},
		{"exit 0 before the prompt", iteration.Outcome{Ending: iteration.EndExit, Untaken: true}, passed, retry},
		{"exit 42 pauses", iteration.Outcome{Ending: iteration.EndExit, Code: contract.ExitPause}, passed, pauseAgent},
		{"exit 127 before the steps", iteration.Outcome{Ending: iteration.EndExit, Code: 127}, facts{}, endFatal},
		{"exit 126 before the steps", iteration.Outcome{Ending: iteration.EndExit, Code: 126}, facts{}, endFatal},
		{"exit 127 with the done pattern", iteration.Outcome{Ending: iteration.EndExit, Code: 127, Match: "RALPH_DONE"}, facts{}, endFatal},
		{"the fifth failure in a row", iteration.Outcome{Ending: iteration.EndExit, Code: 1}, facts{checks: checksPassed, failures: maxFailures}, endFailures},
		{"the fourth failure in a row", iteration.Outcome{Ending: iteration.EndExit, Code: 1}, facts{checks: checksPassed, failures: maxFailures - 1}, retry},
		{"an API error, the fifth", iteration.Outcome{Ending: iteration.EndTurnFailed}, facts{checks: checksFailed, failures: maxFailures}, endFailures},
		{"stalled", iteration.Outcome{Ending: iteration.EndTurn}, facts{checks: checksPassed, stalled: true}, endStalled},
		{"stalled and failed: the stall first", iteration.Outcome{Ending: iteration.EndExit, Code: 1}, facts{checks: checksPassed, stalled: true, failures: maxFailures}, endStalled},
		{"exit 42 outweighs a stall", iteration.Outcome{Ending: iteration.EndExit, Code: contract.ExitPause}, facts{checks: checksPassed, stalled: true}, pauseAgent},
		{"the done pattern outweighs a stall", iteration.Outcome{Ending: iteration.EndTurn, Match: "RALPH_DONE"}, facts{checks: checksPassed, stalled: true}, endPattern},
		{"a stall ends a plan's loop whose done signal it ignores", iteration.Outcome{Ending: iteration.EndTurn, Match: "RALPH_DONE"}, facts{checks: checksPassed, stalled: true, plan: true}, endStalled},
	} {
		if got := decide(tc.it, tc.f); got.next != tc.want {
			t.Errorf("%s: next %d, want %d", tc.name, got.next, tc.want)
		}
	}
}

// TestEachEndingMeansOneThing (moved from watch/iteration's ending_test.go
// with the table): no step of an iteration ends the loop, an ending that
// leaves its agent running pauses, and every end of the loop has a reason.
func TestEachEndingMeansOneThing(t *testing.T) {
	for _, e := range []iteration.Ending{iteration.EndNone, iteration.EndReady, iteration.EndWaitOver} {
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
