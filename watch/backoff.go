package watch

import "time"

// MaxBackoff caps the wait after repeated failures.
const MaxBackoff = 300 * time.Second

// Backoff is the wait before retrying after the n-th consecutive failure:
// min(2^(n-1), 300) seconds.
func Backoff(n int) time.Duration {
	if n < 1 {
		return 0
	}
	if n > 9 { // 2^9 s is already past the cap
		return MaxBackoff
	}
	return min(time.Duration(1<<(n-1))*time.Second, MaxBackoff)
}
