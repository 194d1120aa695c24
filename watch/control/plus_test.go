package control

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// +N is "N more" for every limit set and resume take: the limit in force
// plus N; a limit that would be below what was spent is refused.
func TestSetPlusNAddsToEveryLimitItKnows(t *testing.T) {
	l := endedLoop(t, 4, 10, contract.ReasonBudget)
	l.State.MaxTokens, l.State.MaxCostUSD = 200000, 5
	usd := 5.0
	if err := receipt.Append(l.Store.Path(state.ReceiptsFile), receipt.Receipt{Iteration: 4,
		Usage: receipt.Usage{Tokens: receipt.Tokens{Input: 200000}}, CostUSD: &usd}); err != nil {
		t.Fatal(err)
	}
	tokens, cost := int64(300000), 1.0
	var out bytes.Buffer
	if err := Set(l, &state.Limits{Add: &state.Limits{MaxTokens: &tokens}}, &out, clock.Real{}); err != nil {
		t.Fatal(err)
	}
	if err := Set(l, &state.Limits{Add: &state.Limits{MaxCostUSD: &cost}}, &out, clock.Real{}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "p: max-tokens 500000 when") || !strings.Contains(got, "p: max-cost 6.00 when") {
		t.Errorf("set said %q, want max-tokens 500000 and max-cost 6.00", got)
	}
	lim := Pending(l, time.Now())
	if *lim.MaxTokens != 500000 || *lim.MaxCostUSD != 6 {
		t.Errorf("pending limits: tokens %d, cost %.2f; want 500000 and 6.00", *lim.MaxTokens, *lim.MaxCostUSD)
	}
	if ok, err := Resumable(l, &bytes.Buffer{}, clock.Real{}); !ok || err != nil {
		t.Errorf("after set: Resumable = %v, %v", ok, err)
	}
	less := int64(100000)
	err := Set(l, &state.Limits{MaxTokens: &less}, &bytes.Buffer{}, clock.Real{})
	if err == nil || !strings.Contains(err.Error(), "--max-tokens 100000 is below the 200000 tokens already spent") {
		t.Errorf("a limit below what was spent: %v", err)
	}
	free := endedLoop(t, 4, 0, contract.ReasonPaused)
	free.State.Status = state.Paused
	err = Set(free, &state.Limits{Add: &state.Limits{MaxCostUSD: &cost}}, &bytes.Buffer{}, clock.Real{})
	if err == nil || !strings.Contains(err.Error(), "no --max-cost limit to add to") {
		t.Errorf("+1 on no cost limit: %v", err)
	}
}

// The +N of a limit the command does not know (one given as a flag of the
// first run) is left for the watcher, which adds it to its own.
func TestLimitsCheckAddsEachPlusNToTheLimitInForce(t *testing.T) {
	in := func(n int) *int { return &n }
	tokens, cost := int64(200000), 5.0
	now := state.Limits{MaxIterations: in(10), MaxTime: in(3600), MaxTokens: &tokens, MaxCostUSD: &cost,
		InactivityTimeout: in(180), IterationTimeout: in(600), TaskAttempts: in(3)}
	moreTokens, moreCost := int64(1000), 1.5
	l := state.Limits{Add: &state.Limits{MaxIterations: in(2), MaxTime: in(1800), MaxTokens: &moreTokens, MaxCostUSD: &moreCost,
		InactivityTimeout: in(60), IterationTimeout: in(60), TaskAttempts: in(1)}}
	if got := l.String(); got != "max-iterations +2 max-time +30m0s max-tokens +1000 max-cost +1.50 inactivity-timeout +1m0s iteration-timeout +1m0s task-attempts +1" {
		t.Errorf("String = %q", got)
	}
	if err := l.Check(state.Ran{}, now); err != nil {
		t.Fatal(err)
	}
	if got := l.String(); got != "max-iterations 12 max-time 1h30m0s max-tokens 201000 max-cost 6.50 inactivity-timeout 4m0s iteration-timeout 11m0s task-attempts 4" || l.Add != nil {
		t.Errorf("after Check: %q (add %+v)", got, l.Add)
	}
	unknown := state.Limits{Add: &state.Limits{MaxTime: in(60)}}
	if err := unknown.Check(state.Ran{}, state.Limits{}); err != nil || unknown.String() != "max-time +1m0s" {
		t.Errorf("a +N of a limit not known here: %v, %q", err, unknown.String())
	}
}

// resume of a loop the person stopped goes on.
func TestResumeOfAStoppedLoopGoesOn(t *testing.T) {
	for _, reason := range []contract.Reason{contract.ReasonStopped, contract.ReasonKilled} {
		l := endedLoop(t, 3, 10, reason)
		if ok, err := Resumable(l, &bytes.Buffer{}, clock.Real{}); !ok || err != nil {
			t.Errorf("%s: Resumable = %v, %v", reason, ok, err)
		}
		if err := Note(l, "go on with the parser", false, false, &bytes.Buffer{}, clock.Real{}); err != nil {
			t.Errorf("%s: a note for the loop resume goes on with: %v", reason, err)
		}
	}
}
