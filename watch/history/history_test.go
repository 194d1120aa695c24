package history

import (
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// The log's lines tell each iteration's ending, failure and checks, and its
// duration as the person read it there; else a receipt's times win over the
// log's (they have sub-second precision).
func TestIterationsAreReadFromTheLogAndTheReceipts(t *testing.T) {
	log := `2026-11-24T22:00:00 [START] iteration 1/5
2026-11-24T22:03:00 [CHECK] iteration 1 fail exit=2 duration=3s check="go test ./..."
2026-11-24T22:03:00 [CHECK] iteration 1 pass exit=0 duration=1s check="echo \"quoted\""
2026-11-24T22:03:00 [END] iteration 1 exit=0 duration=180s
2026-11-24T22:03:01 [START] iteration 2/5
2026-11-24T22:06:01 [TIMEOUT] iteration 2 inactivity_timeout=180s
2026-11-24T22:06:01 [FAIL] iteration 2 inactivity_timeout=180s attempt=1/5 backoff=2s
2026-11-24T22:06:04 [START] iteration 3
2026-11-24T22:07:04 [END] iteration 3 exit=0 duration=60s
2026-11-24T22:07:04 [DONE] loop complete after 3 iterations reason=done_pattern
2026-11-24T22:07:04 [COST] iteration 3 tokens in=1
2026-11-24T22:07:05 [START] iteration 4
2026-11-24T22:08:11 [END] iteration 4 turn_end duration=1m 5s
not a log line
`
	start := time.Date(2026, 11, 24, 22, 0, 0, 0, time.Local)
	rs := []receipt.Receipt{{Iteration: 1, Started: start, Ended: start.Add(181500 * time.Millisecond)}, // written after its checks
		{Iteration: 2, Started: start.Add(181 * time.Second), Ended: start.Add(361500 * time.Millisecond)}}
	its := iterations(log, rs)
	if len(its) != 4 {
		t.Fatalf("%d iterations, want 4", len(its))
	}
	for _, c := range []struct {
		n        int
		how      string
		failed   bool
		took     time.Duration
		passed   int
		checks   int
		receipts bool
	}{
		{1, "exit=0", false, 180 * time.Second, 1, 2, true},
		{2, "inactivity_timeout=180s", true, 180500 * time.Millisecond, 0, 0, true},
		{3, "exit=0, loop ended done_pattern", false, time.Minute, 0, 0, false},
		{4, "turn_end", false, 65 * time.Second, 0, 0, false},
	} {
		it := its[c.n-1]
		passed, all := it.ChecksPassed()
		if it.N != c.n || it.How() != c.how || it.Failed != c.failed || it.Duration != c.took || passed != c.passed || all != c.checks || (it.Receipt != nil) != c.receipts {
			t.Errorf("iteration %d: %+v (how %q, checks %d/%d)", c.n, *it, it.How(), passed, all)
		}
	}
	if got := its[0].Checks[1]; got.Command != `echo "quoted"` || !got.Passed {
		t.Errorf("second check of iteration 1: %+v", got)
	}
	if got := its[0].Checks[0]; got.Command != "go test ./..." || got.Passed || got.Exit != 2 {
		t.Errorf("first check of iteration 1: %+v", got)
	}
}

// A loop that ended at its limit on failures logs its end as a failure:
// the report still reads how the loop ended after that iteration.
func TestALoopsEndOnFailuresIsReadAsItsEnd(t *testing.T) {
	log := `2026-11-24T22:00:00 [START] iteration 1/2
2026-11-24T22:00:05 [FAIL] iteration 1 exit=1 attempt=1/5 backoff=1s
2026-11-24T22:00:06 [START] iteration 2/2
2026-11-24T22:00:10 [FAIL] iteration 2 exit=1 attempt=2/5
2026-11-24T22:00:10 [FAIL] loop failed after 2 iterations reason=max_iterations failed=2
`
	its := iterations(log, nil)
	if len(its) != 2 || its[1].LoopEnded != "max_iterations" || its[1].How() != "exit=1, loop ended max_iterations" || !its[1].Failed {
		t.Fatalf("iterations %+v, want the second to end the loop at max_iterations", its)
	}
}
