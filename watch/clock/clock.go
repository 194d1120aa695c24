// Package clock answers "what time is it, and wake me later" for the loop, so
// tests can run its timeouts, backoffs and limit waits in virtual time.
package clock

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock is a source of time. The loop and everything it calls take one
// instead of calling time.Now, time.After or time.Sleep.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Real is the wall clock.
type Real struct{}

// Now implements Clock.
func (Real) Now() time.Time { return time.Now() }

// After implements Clock.
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Sleep waits d on c; false when ctx ended first.
func Sleep(ctx context.Context, c Clock, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-c.After(d):
		return true
	}
}

// Since is c.Now().Sub(t).
func Since(c Clock, t time.Time) time.Duration { return c.Now().Sub(t) }

// Fake is a clock that moves only when told: Advance moves it and fires every
// timer that falls due. With Auto set, a timer moves it at once to its own
// deadline, so a loop under test runs through its waits without sleeping.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	auto    bool
	timers  []timer
	changed chan struct{} // closed and replaced when a timer is added
}

type timer struct {
	at time.Time
	ch chan time.Time
}

// NewFake returns a fake clock standing at start.
func NewFake(start time.Time) *Fake {
	return &Fake{now: start, changed: make(chan struct{})}
}

// NewAuto returns a fake clock that jumps to each timer's deadline as soon
// as it is asked for.
func NewAuto(start time.Time) *Fake {
	f := NewFake(start)
	f.auto = true
	return f
}

// Now implements Clock.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After implements Clock.
func (f *Fake) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- f.now
		return ch
	}
	if f.auto {
		f.now = f.now.Add(d)
		f.fire()
		ch <- f.now
		return ch
	}
	f.timers = append(f.timers, timer{f.now.Add(d), ch})
	close(f.changed)
	f.changed = make(chan struct{})
	return ch
}

// Advance moves the clock by d and fires the timers that fall due, in order.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	f.fire()
}

// fire sends on every timer due by now; f.mu is held.
func (f *Fake) fire() {
	sort.SliceStable(f.timers, func(i, j int) bool { return f.timers[i].at.Before(f.timers[j].at) })
	kept := f.timers[:0]
	for _, t := range f.timers {
		if t.at.After(f.now) {
			kept = append(kept, t)
			continue
		}
		t.ch <- f.now
	}
	f.timers = kept
}

// Waiting is how many timers have not fired.
func (f *Fake) Waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// WaitFor blocks until at least n timers are pending or ctx ends; false then.
// Tests use it to know the code under test reached its wait.
func (f *Fake) WaitFor(ctx context.Context, n int) bool {
	for {
		f.mu.Lock()
		pending, changed := len(f.timers), f.changed
		f.mu.Unlock()
		if pending >= n {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}
