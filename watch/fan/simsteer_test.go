package fan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// The simulation's person (sim_test.go): notes (once and sticky), clears
// and limits given to the fan by its name at random moments, while it runs
// and while it is down, taken as note, set and resume take them (the
// fan's TakeSteers, by its process or, with none, by the command), and its
// loops' iterations taking them as a watcher does. The invariants: a
// sticky note is in every iteration begun after it until a clear; a
// once-note is in the first iteration after it of each loop at work when
// it was given, and in some iteration (or waiting for a next loop when the
// fan ends); no loop runs past its limit, a set below what a loop at work
// ran is refused, and a loop starts with the fan's limit.

// simNote is a request of the person's as the fan took it.
type simNote struct {
	text   string
	sticky bool
	at     int             // the moment it was taken
	atWork map[string]bool // the loops at work then (a once-note's)
	gone   int             // the moment a clear after it was taken (0: none)
	seen   int             // iterations that carried it
}

// simAsk is a request left for the fan and not yet taken.
type simAsk struct {
	id   string
	note *simNote // nil: a clear or a set
	kind string
}

// simPerson is the person's side of the simulation.
type simPerson struct {
	root  string
	clock int
	seq   int
	notes []*simNote
	asks  []simAsk
}

// record is the fan's record as the person's command finds it.
func (f *simFan) record() *State {
	if f.s != nil {
		return f.s
	}
	s, err := Load(f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// steer is the person giving the fan a note, a clear or a limit.
func (f *simFan) steer() {
	p := &f.person
	s := f.record()
	r := state.Steer{Kind: state.SteerNote}
	var note *simNote
	switch k := f.rng.IntN(20); {
	case k < 8, k < 13:
		p.seq++
		r.Text, r.Sticky = fmt.Sprintf("note-%d", p.seq), k >= 8
		note = &simNote{text: r.Text, sticky: r.Sticky}
	case k < 15:
		r = state.Steer{Kind: state.SteerClear}
	default:
		var lim state.Limits
		if f.rng.IntN(2) == 0 {
			n := 1 + f.rng.IntN(3)
			lim.Add = &state.Limits{MaxIterations: &n}
			if c := lim; c.Check(state.Ran{}, s.InForce()) != nil { // set's check of the fan: no limit to add to
				f.say("set %s refused", lim.String())
				return
			}
		} else {
			n := f.rng.IntN(9)
			lim.MaxIterations = &n
		}
		for _, t := range s.AtWork() { // set's check of each loop at work
			if l := f.loops[t.Loop]; l != nil && !l.ended {
				c := lim
				if c.Check(state.Ran{Iterations: l.iterations}, iterationLimit(f.pendingLimit(l))) != nil {
					f.say("set %s refused", lim.String())
					return
				}
			}
		}
		r = state.Steer{Kind: state.SteerSet, Set: &lim}
		f.say("set %s", lim.String())
	}
	req, err := (&state.Store{Dir: f.dir}).Steer(r, time.Now())
	if err != nil {
		f.t.Fatal(err)
	}
	f.say("the person asks %s %q", r.Kind, r.Text)
	p.asks = append(p.asks, simAsk{id: req.ID, note: note, kind: r.Kind})
	if f.s != nil {
		f.takeSteers()
		return
	}
	s = f.record() // no fan process: the command takes it
	TakeSteers(p.root, f.dir, s, func() error { return s.Save(f.dir) })
	f.taken(s)
}

// takeSteers is the Runner's steer, where its process may be killed.
func (f *simFan) takeSteers() {
	s := f.s
	TakeSteers(f.person.root, f.dir, s, func() error { return f.save("a request of the person's taken") })
	f.taken(s)
}

// taken records the requests the fan has taken since the last look.
func (f *simFan) taken(s *State) {
	p := &f.person
	store := &state.Store{Dir: f.dir}
	p.asks = slices.DeleteFunc(p.asks, func(a simAsk) bool {
		if store.SteerPending(a.id) {
			return false
		}
		p.clock++
		switch {
		case a.note != nil:
			a.note.at, a.note.atWork = p.clock, map[string]bool{}
			for _, t := range s.AtWork() {
				a.note.atWork[t.Loop] = true
			}
			p.notes = append(p.notes, a.note)
		case a.kind == state.SteerClear:
			for _, n := range p.notes {
				if n.gone == 0 {
					n.gone = p.clock
				}
			}
		}
		return true
	})
}

// pendingLimit is loop l's limit once it takes the limits waiting for it.
func (f *simFan) pendingLimit(l *simLoop) int {
	limit := l.limit
	for _, r := range f.loopStore(l.name).Steers() {
		if r.Kind == state.SteerSet {
			c := *r.Set
			if c.Check(state.Ran{Iterations: l.iterations}, iterationLimit(limit)) == nil && c.MaxIterations != nil {
				limit = *c.MaxIterations
			}
		}
	}
	return limit
}

// saveNotes writes loop l's notes as the watcher's state.json has them
// (without its fsync: the simulation is fast).
func (f *simFan) saveNotes(store *state.Store, l *simLoop) {
	data, _ := json.Marshal(&state.State{Notes: l.notes})
	if err := os.WriteFile(store.Path(state.StateFile), data, 0o600); err != nil {
		f.t.Fatal(err)
	}
}

// iterationLimit is a loop's limits in force as far as the simulation has them.
func iterationLimit(n int) state.Limits { return state.Limits{MaxIterations: &n} }

func (f *simFan) loopStore(name string) *state.Store {
	dir := filepath.Join(f.person.root, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		f.t.Fatal(err)
	}
	return &state.Store{Dir: dir}
}

// began is a loop started: the notes and the limit the Runner's Start
// gives it (the person's notes as requests in its folder, the fan's limit
// as its flag).
func (f *simFan) began(l *simLoop, notes []state.Note) {
	l.limit, l.began = f.s.Limit(), f.person.clock
	store := f.loopStore(l.name)
	for _, n := range notes {
		if _, err := store.Steer(state.Steer{Kind: state.SteerNote, Text: n.Text, Sticky: n.Sticky, Made: n.Made}, time.Now()); err != nil {
			f.t.Fatal(err)
		}
	}
}

// iterate is an iteration of loop l: the requests in its folder taken,
// then its prompt with the notes; at its limit it ends instead.
func (f *simFan) iterate(l *simLoop) {
	p := &f.person
	store := f.loopStore(l.name)
	for _, r := range store.Steers() {
		switch r.Kind {
		case state.SteerNote:
			l.notes = append(l.notes, state.Note{Text: r.Text, Sticky: r.Sticky, Made: r.Made})
		case state.SteerClear:
			l.notes = nil
		case state.SteerSet:
			c := *r.Set
			if c.Check(state.Ran{Iterations: l.iterations}, iterationLimit(l.limit)) == nil && c.MaxIterations != nil {
				l.limit = *c.MaxIterations
			}
		}
		f.saveNotes(store, l) // recorded before the request's file goes, as the watcher's state.json has them
		_ = store.SteerTaken(r.ID)
	}
	if l.limit > 0 && l.iterations >= l.limit {
		l.ended, l.code = true, 3
		f.say("loop %s ended at its limit %d", l.name, l.limit)
		return
	}
	l.iterations++
	p.clock++
	carried := map[string]bool{}
	for _, n := range l.notes {
		carried[n.Text] = true
	}
	l.notes = slices.DeleteFunc(l.notes, func(n state.Note) bool { return !n.Sticky })
	f.saveNotes(store, l)
	f.say("loop %s iteration %d carries %v", l.name, l.iterations, sortedKeys(carried))
	for _, n := range p.notes {
		if carried[n.text] {
			n.seen++
		}
		live := n.gone == 0 || n.gone > p.clock
		switch {
		case n.sticky && live && !carried[n.text]:
			f.t.Fatalf("iteration %d of %s lacks the sticky note %s:\n%s", l.iterations, l.name, n.text, f.dump())
		case !n.sticky && live && n.atWork[l.name] && l.lastIter < n.at && !carried[n.text]:
			f.t.Fatalf("iteration %d of %s, at work when the note %s was given, lacks it:\n%s", l.iterations, l.name, n.text, f.dump())
		case !live && carried[n.text] && n.at < n.gone:
			f.t.Fatalf("iteration %d of %s carries the note %s, cleared before:\n%s", l.iterations, l.name, n.text, f.dump())
		}
	}
	l.lastIter = p.clock
}

// iterateSome runs an iteration of a loop that works.
func (f *simFan) iterateSome() {
	var live []*simLoop
	for _, l := range f.running() {
		if !l.ended {
			live = append(live, l)
		}
	}
	if len(live) > 0 {
		f.iterate(live[f.rng.IntN(len(live))])
	}
}

// checkSteering: every loop within its limit; at the end every once-note
// not cleared was carried or waits for a next loop.
func (f *simFan) checkSteering(end bool) {
	for _, l := range f.running() {
		if l.limit > 0 && l.iterations > l.limit {
			f.t.Fatalf("loop %s ran %d iterations, past its limit %d:\n%s", l.name, l.iterations, l.limit, f.dump())
		}
	}
	if !end {
		return
	}
	for _, n := range f.person.notes {
		waiting := slices.ContainsFunc(f.s.Notes, func(w state.Note) bool { return w.Text == n.text })
		if !n.sticky && n.gone == 0 && n.seen == 0 && !waiting {
			f.t.Fatalf("the note %s reached no iteration and waits for none:\n%s", n.text, f.dump())
		}
	}
}
