package watch

import (
	"testing"
	"time"
)

func TestBackoffDoublesFromOneSecondUpToFiveMinutes(t *testing.T) {
	tests := []struct {
		name     string
		failures int
		want     time.Duration
	}{
		{"no failure means no wait", 0, 0},
		{"a negative count means no wait", -3, 0},
		{"first failure waits 1s", 1, 1 * time.Second},
		{"second failure waits 2s", 2, 2 * time.Second},
		{"third failure waits 4s", 3, 4 * time.Second},
		{"fourth failure waits 8s", 4, 8 * time.Second},
		{"fifth failure waits 16s", 5, 16 * time.Second},
		{"sixth failure waits 32s", 6, 32 * time.Second},
		{"seventh failure waits 64s", 7, 64 * time.Second},
		{"eighth failure waits 128s", 8, 128 * time.Second},
		{"ninth failure waits 256s", 9, 256 * time.Second},
		{"tenth failure is capped at 300s", 10, 300 * time.Second},
		{"the hundredth failure is still capped", 100, 300 * time.Second},
		{"a count that would overflow a shift is still capped", 1 << 30, 300 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Backoff(tt.failures); got != tt.want {
				t.Errorf("Backoff(%d) = %v, want %v", tt.failures, got, tt.want)
			}
		})
	}
}

func TestBackoffNeverDecreasesAndNeverPassesTheCap(t *testing.T) {
	prev := time.Duration(0)
	for n := 0; n <= 64; n++ {
		got := Backoff(n)
		if got < prev {
			t.Errorf("Backoff(%d) = %v is less than Backoff(%d) = %v", n, got, n-1, prev)
		}
		if got > MaxBackoff {
			t.Errorf("Backoff(%d) = %v passes the cap %v", n, got, MaxBackoff)
		}
		prev = got
	}
}
