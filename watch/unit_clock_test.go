package watch_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// virtual is the clock the unit tests give the loop: a fake clock that
// notes the deadline of every timer asked of it and counts the calls, so a
// test can tell that the loop waits, and for what.
type virtual struct {
	*clock.Fake
	mu    sync.Mutex
	calls int
	due   []time.Time // deadlines asked for and not yet passed
	plans []plan      // what the agent does on its own, and when
}

// plan is an act of the agent at a virtual time.
type plan struct {
	at time.Time
	f  func()
}

// Now implements clock.Clock.
func (c *virtual) Now() time.Time {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return c.Fake.Now()
}

// After implements clock.Clock.
func (c *virtual) After(d time.Duration) <-chan time.Time {
	at := c.Fake.Now().Add(d) // taken before an automatic clock jumps to it
	ch := c.Fake.After(d)
	c.mu.Lock()
	c.calls++
	c.due = append(c.due, at)
	c.mu.Unlock()
	return ch
}

// asked reports whether a timer falling due at was asked for.
func (c *virtual) asked(at time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.due {
		if t.Equal(at) {
			return true
		}
	}
	return false
}

func (c *virtual) activity() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// step moves the clock to what comes first: the next planned act, which
// then runs (acted reports it), or the earliest timer still to fire.
func (c *virtual) step() (acted bool) {
	now := c.Fake.Now()
	c.mu.Lock()
	var next time.Time
	kept := c.due[:0]
	for _, t := range c.due {
		if t.After(now) {
			kept = append(kept, t)
			if next.IsZero() || t.Before(next) {
				next = t
			}
		}
	}
	c.due = kept
	first := -1
	for i, p := range c.plans {
		if first < 0 || p.at.Before(c.plans[first].at) {
			first = i
		}
	}
	var act *plan
	if first >= 0 && (next.IsZero() || !c.plans[first].at.After(next)) {
		p := c.plans[first]
		act, next = &p, p.at
		c.plans = append(c.plans[:first], c.plans[first+1:]...)
	}
	c.mu.Unlock()
	if next.After(now) {
		c.Fake.Advance(next.Sub(now))
	}
	if act != nil {
		act.f()
	}
	return act != nil
}

// manual has the loop run on a clock that moves only when the test
// advances it, so a test can tell exactly when the loop moves on.
func (u *unit) manual() {
	u.clock = clock.NewFake(unitStart)
	u.vc = &virtual{Fake: u.clock}
}

// simulate has the clock move as time would for the loop: whenever the
// loop waits, to the next thing due (see drive). Unlike the automatic
// clock, which jumps to each timer as soon as it is asked for, it lets
// what the agent does on its own (plan) come before the loop's later timers.
func (u *unit) simulate() {
	u.manual()
	u.simulated = true
}

// plan has the agent act on its own (f, on its pane) d of virtual time from
// now; it may be called from a program's hooks. Only a simulated clock runs it.
func (u *unit) plan(d time.Duration, f func(t *tmuxfake.Term)) {
	u.schedule(d, func() { u.tmux.Act(u.cfg.Pane, f) })
}

// schedule runs f d of virtual time from now, on a simulated clock.
func (u *unit) schedule(d time.Duration, f func()) {
	at := u.clock.Now().Add(d)
	u.vc.mu.Lock()
	defer u.vc.mu.Unlock()
	u.vc.plans = append(u.vc.plans, plan{at: at, f: f})
}

// drive moves a simulated clock until stop: when the loop has been seen
// twice in a row blocked on a channel (a timer, its wake, the pane's
// output) with no call made in between, it waits, and the clock steps. An
// act of the agent is given a moment to reach the loop (a signal, output).
func (u *unit) drive(stop, halt <-chan struct{}) {
	last, still := -1, 0
	for {
		select {
		case <-stop:
			return
		case <-halt:
			return
		case <-time.After(100 * time.Microsecond):
		}
		busy := u.vc.activity() + u.tmux.Ops()
		if busy != last || u.quiet == 0 && !u.loopWaits() {
			last, still = busy, 0
			continue
		}
		if still++; still < max(2, u.quiet) {
			continue
		}
		still = 0
		if u.vc.step() && u.quiet == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// loopWaits reports whether the goroutine running this unit's loop (not
// another's: the simulation runs seeds side by side) is blocked on a
// channel, as the goroutines' stacks tell: its runOn frame names the unit.
func (u *unit) loopWaits() bool {
	buf := make([]byte, 1<<20)
	for n := runtime.Stack(buf, true); ; n = runtime.Stack(buf, true) {
		if n < len(buf) { // all of them: a cut dump may miss this loop's and never let the clock move
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	mine := fmt.Sprintf("(*unit).runOn(%p", u)
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "watch.(*Loop).Run(") && strings.Contains(g, mine) && !strings.Contains(g, "(*killable).gate(") { // a killed watcher waits for ever
			header, _, _ := strings.Cut(g, "\n")
			return strings.Contains(header, "[select") || strings.Contains(header, "[chan receive")
		}
	}
	return false
}

// waitTimer waits until the loop (on a manual clock) has asked for a timer
// that falls due d from now.
func (u *unit) waitTimer(d time.Duration) {
	u.t.Helper()
	at := u.clock.Now().Add(d)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if u.vc.asked(at) {
			return
		}
	}
	u.t.Fatalf("the loop never waited %s; output:\n%s", d, u.out.String())
}
