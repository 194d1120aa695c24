package main

import (
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// aFan is the fan a command names, when no loop has that name.
type aFan struct {
	*fan.State
	dir  string
	root string
}

// fanArg finds the fan args name (status, pause, resume, stop FAN).
func fanArg(e env, args []string) (aFan, bool) {
	if len(args) != 1 || !control.ValidName(args[0]) {
		return aFan{}, false
	}
	root := state.Root(e.Getenv)
	if state.Exists(root, args[0]) {
		return aFan{}, false
	}
	dir := fan.Dir(root, args[0])
	s, err := fan.Load(dir)
	if err != nil {
		return aFan{}, false
	}
	return aFan{State: s, dir: dir, root: root}, true
}

// running reports whether the fan's process holds it.
func (f aFan) running() bool { return (&state.Store{Dir: f.dir}).Locked() }

// loops are the fan's loops at work, as found.
func (f aFan) loops() []*control.Loop {
	var out []*control.Loop
	for _, t := range f.Tasks {
		if t.State == fan.Working {
			if l, err := control.Find(f.root, t.Loop); err == nil {
				out = append(out, l)
			}
		}
	}
	return out
}

// writeFanStatus is status FAN: the fan, its loops, its tasks, the queue,
// what landed and what waits for review.
func writeFanStatus(w io.Writer, f aFan) {
	total, landed, review, working := f.Counts()
	run := "stopped"
	switch {
	case f.running():
		run = fmt.Sprintf("running (pid %d)", f.PID)
	case f.Ended:
		run = "ended"
	case f.Restorable(f.dir):
		run = "not running (ralph-watch restore brings it back)"
	}
	fmt.Fprintf(w, "Fan: %s, %s\n", f.Name, run)
	fmt.Fprintf(w, "Plan: %s in %s\n", f.Plan, f.Repo)
	fmt.Fprintf(w, "Branch: %s (from %s)\n", f.Into, f.Base[:min(len(f.Base), 10)])
	fmt.Fprintf(w, "Tasks: %d of %d landed, %d working, %d queued, %d waiting for review\n", landed, total, working, len(f.Queue), review)
	fmt.Fprintf(w, "Loops: %d of %d\n", working, f.Max)
	for _, l := range f.loops() {
		fmt.Fprintf(w, "  %s: %s, iteration %d\n", l.Name, l.State.Status, l.State.CurrentIteration)
	}
	if len(f.Queue) > 0 {
		fmt.Fprintf(w, "Queue: %s\n", strings.Join(f.Queue, ", "))
	}
	writeFanTasks(w, f)
	for _, t := range f.Tasks {
		switch {
		case t.State == fan.NeedsReview || t.State == fan.Skipped:
			fmt.Fprintf(w, "Task %s %s: %s (branch %s)\n", t.ID, t.State, firstLineOf(t.Why), t.Branch)
		case t.State == fan.Open && t.Why != "":
			fmt.Fprintf(w, "Task %s open: %s\n", t.ID, t.Why)
		}
	}
	writeFanSteering(w, f)
	writeFanAfter(w, f)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLineOf(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// eachFanLoop does what to every loop of the fan at work.
func eachFanLoop(f aFan, out io.Writer, what func(*control.Loop) error) error {
	loops := f.loops()
	if len(loops) == 0 {
		fmt.Fprintf(out, "fan %s has no loop at work\n", f.Name)
	}
	var first error
	for _, l := range loops {
		if err := what(l); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// stopFan ends the fan's process first (its loops' ends are then not
// taken for skipped tasks), then its loops; started again, it takes them up.
func stopFan(f aFan, kill bool, out io.Writer) error {
	if f.running() && f.PID > 0 {
		_ = syscall.Kill(f.PID, syscall.SIGTERM)
		for deadline := time.Now().Add(10 * time.Second); f.running() && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		fmt.Fprintf(out, "stopped fan %s (pid %d)\n", f.Name, f.PID)
	}
	if s, err := fan.Load(f.dir); err == nil {
		f.State = s
		if !s.Ended && !f.running() { // the person's stop: restore leaves the fan be
			s.Stopped = true
			_ = s.Save(f.dir)
		}
	}
	return eachFanLoop(f, out, func(l *control.Loop) error {
		err := control.Stop(l, kill, out, clock.Real{})
		for deadline := time.Now().Add(10 * time.Second); l.Store.Locked() && time.Now().Before(deadline); { // ended, for a fan started again to find it so
			time.Sleep(50 * time.Millisecond)
		}
		return err
	})
}
