package tmuxtest

import (
	"testing"
	"time"
)

func TestPollAfterLooksOftenAtFirstAndLessAsAWaitLasts(t *testing.T) {
	for _, tc := range []struct{ waited, want time.Duration }{
		{0, 50 * time.Millisecond},
		{time.Second, 50 * time.Millisecond},
		{2 * time.Second, 150 * time.Millisecond},
		{3 * time.Second, 250 * time.Millisecond},
		{time.Minute, 250 * time.Millisecond},
	} {
		if got := PollAfter(tc.waited); got != tc.want {
			t.Errorf("PollAfter(%s) = %s, want %s", tc.waited, got, tc.want)
		}
	}
}

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	start, looks := time.Now(), 0
	Eventually(t, 10*time.Second, "the third look", func() bool { looks++; return looks == 3 })
	if looks != 3 {
		t.Errorf("%d looks, want 3", looks)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s for three looks", took)
	}
}
