//go:build linux

package tmuxtest

import (
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// Places are shared: no more holders at once than places, a test holding
// two counts twice, a test asking again holds no more, and a place freed
// at a test's end goes to one that waits.
func TestAgentPlacesBoundHowManyRunAtOnce(t *testing.T) {
	placeName = fmt.Sprintf("@ralph-tmuxtest-place-%d-", os.Getpid()) // not the places real tests hold
	t.Setenv("RALPH_TEST_AGENTS", "3")
	var running, most atomic.Int32
	t.Run("group", func(t *testing.T) {
		for i, n := range []int{1, 2, 1, 2, 1, 3, 5} {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				HoldAgentPlaces(t, n)
				HoldAgentPlaces(t, n) // held already: returns at once
				now := running.Add(int32(min(n, 3)))
				defer running.Add(-int32(min(n, 3)))
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				if now > 3 {
					t.Errorf("%d places held at once, of 3", now)
				}
				time.Sleep(50 * time.Millisecond)
			})
		}
	})
	if most.Load() == 0 {
		t.Errorf("no place was ever held")
	}
	// All free again once every test ended.
	for i := range 3 {
		if l, ok := tryPlace(i); ok {
			l.release()
		} else {
			t.Errorf("place %d still held after every test ended", i)
		}
	}
}
