package watch

import "time"

// SetMinLimitWait lets a test wait less for a usage limit's reset.
func SetMinLimitWait(d time.Duration) func() {
	old := minLimitWait
	minLimitWait = d
	return func() { minLimitWait = old }
}
