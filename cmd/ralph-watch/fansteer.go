package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Steering a fan (note, set, resume with a limit, given its name): a
// request in the fan's folder that the fan takes into its record and
// passes to its loops at work (watch/fan/steer.go).

// fanAnswerWait bounds the wait for a running fan to take a request (it
// looks four times a second).
const fanAnswerWait = 15 * time.Second

// steerFan leaves request r for the fan and sees it taken: by the fan's
// process when it runs, else here, holding the fan's lock so that none
// starts meanwhile. It returns the fan's record once it took r.
func steerFan(f aFan, r state.Steer) (*fan.State, error) {
	store := &state.Store{Dir: f.dir}
	req, err := store.Steer(r, time.Now())
	if err != nil {
		return nil, control.Errorf(contract.ExitFailed, "%v", err)
	}
	if store.Lock() == nil {
		defer store.Unlock()
		s, err := fan.Load(f.dir)
		if err != nil {
			return nil, control.Errorf(contract.ExitFailed, "%v", err)
		}
		fan.TakeSteers(f.root, f.dir, s, func() error { return s.Save(f.dir) })
		if store.SteerPending(req.ID) {
			return nil, control.Errorf(contract.ExitFailed, "fan %s: its record cannot be written; the request waits for the fan", f.Name)
		}
		return s, nil
	}
	for deadline := time.Now().Add(fanAnswerWait); store.SteerPending(req.ID); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			return nil, control.Errorf(contract.ExitFailed, "fan %s did not take the request; it waits for the fan", f.Name)
		}
	}
	return fan.Load(f.dir)
}

// loopNames are the names of the fan's loops at work.
func loopNames(s *fan.State) string {
	var names []string
	for _, t := range s.AtWork() {
		names = append(names, t.Loop)
	}
	return strings.Join(names, ", ")
}

// noteFan is note given a fan's name: the fan's note, for its loops at
// work and (sticky, or none at work) those it starts.
func noteFan(f aFan, text string, sticky, clear bool, out io.Writer) error {
	r := state.Steer{Kind: state.SteerNote, Text: text, Sticky: sticky}
	if clear {
		r = state.Steer{Kind: state.SteerClear}
	}
	s, err := steerFan(f, r)
	if err != nil {
		return err
	}
	at := loopNames(s)
	switch {
	case clear:
		fmt.Fprintf(out, "notes of fan %s cleared, its loops' too, from the next iteration on\n", f.Name)
	case sticky:
		fmt.Fprintf(out, "note for every iteration of fan %s's loops from the next on (until 'ralph-watch note %s --clear')\n", f.Name, f.Name)
	case at == "":
		fmt.Fprintf(out, "note for the next loop fan %s starts\n", f.Name)
	default:
		fmt.Fprintf(out, "note for the next iteration of %s (fan %s's loops at work; one that ends first leaves it to the next loop)\n", at, f.Name)
	}
	return nil
}

// setFan is set given a fan's name: the fan's limits, for its loops at
// work and those it starts; refused whole when one is below what a loop
// at work has run.
func setFan(f aFan, lim *state.Limits, out io.Writer) error {
	if lim.Empty() {
		return control.Errorf(contract.ExitUsage, "set needs a limit to change (see 'ralph-watch set --help')")
	}
	now := time.Now()
	var lines []string
	for _, l := range f.loops() {
		check, err := control.CheckSet(l, lim, now)
		if err != nil {
			return err
		}
		when := "at the next iteration"
		if !l.Watched {
			when = fmt.Sprintf("when the loop goes on ('ralph-watch resume %s')", l.Name)
		}
		lines = append(lines, fmt.Sprintf("%s: %s %s", l.Name, check.String(), when))
	}
	set := *lim
	if err := set.Check(state.Ran{}, f.InForce()); err != nil {
		return control.Errorf(contract.ExitUsage, "set %s on fan '%s': %v", lim, f.Name, err)
	}
	if _, err := steerFan(f, state.Steer{Kind: state.SteerSet, Set: lim}); err != nil {
		return err
	}
	for _, line := range lines {
		fmt.Fprintln(out, line)
	}
	fmt.Fprintf(out, "fan %s: %s for the loops it starts\n", f.Name, set.String())
	return nil
}

// resumeFan resumes the fan's loops at work that are paused or lost their
// watcher, its limits raised first (lim, nil: none), and says where each
// stands.
func resumeFan(e env, f aFan, lim *state.Limits) error {
	if lim != nil {
		set := *lim
		_ = set.Check(state.Ran{}, f.InForce())
		if err := setFan(f, lim, io.Discard); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "fan %s: %s for its loops at work and those it starts\n", f.Name, set.String())
	}
	err := eachFanLoop(f, e.Stdout, func(l *control.Loop) error {
		// A loop goes on when paused or when its watcher died; one that ended meanwhile stays ended.
		if l.State.Status != state.Paused && (l.Watched || l.State.Status != state.Running) {
			fmt.Fprintf(e.Stdout, "%s is %s\n", l.Name, l.Status())
			return nil
		}
		return rearm(e, "").Resume(l, e.Stdout, e.Stderr)
	})
	switch {
	case f.running():
		fmt.Fprintf(e.Stdout, "fan %s is running (pid %d)\n", f.Name, f.PID)
	case !f.Ended:
		fmt.Fprintf(e.Stdout, "fan %s itself is not running: start it again (ralph-watch fan --name %s --tasks ... -- COMMAND) to land what its loops finish\n", f.Name, f.Name)
	}
	return err
}

// fanLoopsHint names the fan's loops at work, or says it has none.
func fanLoopsHint(f aFan) string {
	if names := loopNames(f.State); names != "" {
		return "at work: " + names
	}
	return "none is at work; 'ralph-watch status " + f.Name + "' lists them"
}

// writeFanSteering shows what the person gave the fan for the loops it
// starts: the limits set, the sticky notes, the once-notes waiting.
func writeFanSteering(w io.Writer, f aFan) {
	if !f.Set.Empty() {
		fmt.Fprintf(w, "Set for the loops it starts: %s\n", f.Set)
	}
	var sticky, waiting []string
	for _, n := range f.Notes {
		if line, _, _ := strings.Cut(strings.TrimSpace(n.Text), "\n"); n.Sticky {
			sticky = append(sticky, line)
		} else {
			waiting = append(waiting, line)
		}
	}
	for _, n := range sticky {
		fmt.Fprintf(w, "Note for every iteration (sticky): %s\n", n)
	}
	for _, n := range waiting {
		fmt.Fprintf(w, "Note for the next loop it starts: %s\n", n)
	}
}
