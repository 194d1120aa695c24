package fan

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// The fan tested by simulation: seeded scenarios of plans with touches and
// dependencies, loops that finish, die or are interrupted, work that
// conflicts with what landed since or fails the checks, and the fan's
// process killed at any save and started again from its record on disk
// (with another --max, now and then), and a person who gives the fan notes,
// clears and limits at random moments (simsteer_test.go, with its own
// invariants). They drive the fan's own decisions
// (decide.go, State.Next, Sync, Save, Load, Locked) the way Runner.Run
// does, with git and tmux as a model, and check after every step: a task
// held by at most one loop, a window by one loop, no two held tasks whose
// touches meet, none before the tasks it depends on landed, a task landed
// at most once, nothing on the fan's branch that fails its checks, a
// task's failed tries its loops' real failures (a lost watcher is none);
// and at the end no task lost (landed, waiting for review after its
// attempts, skipped after its loops failed --task-attempts times, or open,
// each with its reason).
//
//	go test ./watch/fan -run TestSimulatedFans -sim.seeds 10000   # more seeds (make sim)
//	go test ./watch/fan -run TestSimulatedFans -sim.seed 1234 -v  # replay one
//
// The flags are the loop simulation's (watch/sim_test.go), so that one go
// test command runs both.
var (
	simSeeds = flag.Int("sim.seeds", 200, "how many seeds TestSimulatedFans runs (make unit 100; make sim 10,000)")
	simFirst = flag.Int64("sim.first", 1, "the first seed TestSimulatedFans runs")
	simSeed  = flag.Int64("sim.seed", 0, "run this one seed only")
)

// simRegressions are seeds that found a bug, kept so it stays fixed: seed, what it found.
var simRegressions = []struct {
	seed int64
	bug  string
}{
	{3870, "the model's own: a loop that took a note and ended at its limit had not recorded it"},
	{6308, "the same"},
}

func TestSimulatedFans(t *testing.T) {
	var seeds []int64
	if *simSeed != 0 {
		seeds = append(seeds, *simSeed)
	} else {
		for _, r := range simRegressions {
			seeds = append(seeds, r.seed)
		}
		n := *simSeeds
		if testing.Short() {
			n = min(n, 100)
		}
		for s := *simFirst; s < *simFirst+int64(n); s++ {
			seeds = append(seeds, s)
		}
	}
	begun := time.Now()
	failed := 0
	for _, seed := range seeds {
		ok := t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			simulateFan(t, seed)
			if t.Failed() {
				t.Logf("replay: go test ./watch/fan -run TestSimulatedFans -sim.seed %d -v", seed)
			}
		})
		if !ok {
			failed++
		}
	}
	t.Logf("simulation: %d fans, %d failed, in %s; %d landings, %d sent back, %d waiting for review, %d skipped, %d restarts of the fan; %d notes, clears and limits of the person's in %d iterations",
		len(seeds), failed, time.Since(begun).Round(time.Millisecond), simSeen["landed"], simSeen["sent"], simSeen["review"], simSeen["skipped"], simSeen["started"],
		simSeen["asks"], simSeen["carries"])
}

// errCrash is the fan's process killed at a save.
var errCrash = errors.New("the fan's process was killed")

// simWork is a loop's work as committed: whose, and what the checks and
// the merge find in it.
type simWork struct {
	task  string
	buggy bool     // the checks fail on it
	files []string // the paths it changes
}

// simLoop is a loop the fan started: it runs on while the fan is down.
type simLoop struct {
	task, name string
	slot       int
	ended      bool
	code       int
	lost       bool // its watcher was killed: the loop works on in its pane
	closed     bool // its window was closed
	// Its iterations, its limit, and the notes it has taken (simsteer_test.go).
	iterations, limit int
	began, lastIter   int
	notes             []state.Note
}

// simTask is a task of the plan.
type simTask struct {
	id, touches string
	deps        []string
}

type simFan struct {
	t        *testing.T
	rng      *rand.Rand
	dir      string
	tasks    []simTask
	json     bool // a tasks.json plan (dependencies), else Markdown
	files    map[string][]string
	buggy    map[string]bool // the task's work as its loop would commit it now
	attempts int
	tries    int            // --task-attempts
	failed   map[string]int // each task's loops that really failed, as the person saw them

	s       *State // the fan's record in its process; nil while it is down
	free    []bool
	loops   map[string]*simLoop
	adopted map[string]bool // the loops the fan took up when it last started again
	works   map[string]simWork
	branch  []string // the fan's branch: the commits landed, first first
	landed  map[string]string
	commits int
	kills   int
	trace   []string
	person  simPerson
}

func simulateFan(t *testing.T, seed int64) {
	root := t.TempDir()
	f := &simFan{t: t, rng: rand.New(rand.NewPCG(uint64(seed), 7)), dir: Dir(root, "sim"), files: map[string][]string{},
		buggy: map[string]bool{}, loops: map[string]*simLoop{}, works: map[string]simWork{}, landed: map[string]string{},
		person: simPerson{root: root}}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	globs := []string{"a.txt", "*.txt", "src/**", "src/x.go", "docs/*"}
	paths := []string{"a.txt", "b.txt", "src/x.go", "src/y.go", "docs/d.md"}
	n := 2 + f.rng.IntN(7)
	f.json = f.rng.IntN(3) == 0
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		task := simTask{id: id}
		for d := 1; d < i && f.json; d++ {
			if f.rng.IntN(4) == 0 {
				task.deps = append(task.deps, strconv.Itoa(d))
			}
		}
		f.files[id] = []string{"own-" + id}
		if f.rng.IntN(10) < 4 {
			g := globs[f.rng.IntN(len(globs))]
			task.touches = g
			for _, p := range paths {
				if ok, _ := path.Match(g, p); (ok || strings.HasSuffix(g, "**") && strings.HasPrefix(p, "src/")) && f.rng.IntN(2) == 0 {
					f.files[id] = append(f.files[id], p)
				}
			}
		} else if f.rng.IntN(2) == 0 { // no touches, yet it changes a shared file: a conflict may follow
			f.files[id] = append(f.files[id], paths[f.rng.IntN(len(paths))])
		}
		f.buggy[id] = f.rng.IntN(10) < 2
		f.tasks = append(f.tasks, task)
	}
	max, attempts := 1+f.rng.IntN(3), 1+f.rng.IntN(3)
	f.attempts, f.tries, f.failed = attempts, 1+f.rng.IntN(3), map[string]int{}
	limit := []int{0, 2, 4, 6}[f.rng.IntN(4)]
	s := &State{Name: "sim", Into: "ralph/fan-sim", Max: max, Flags: state.Limits{MaxIterations: &limit}}
	s.Sync(f.plan())
	if err := s.Save(f.dir); err != nil {
		t.Fatal(err)
	}
	f.up(s)
	for step := 0; ; step++ {
		if step > 5000 {
			t.Fatalf("the fan did not end in 5000 steps:\n%s", f.dump())
		}
		switch f.rng.IntN(10) {
		case 0:
			f.steer()
		case 1, 2, 3:
			f.iterateSome() // its loops go on, the fan up or down
		}
		if f.s == nil {
			if f.rng.IntN(3) == 0 {
				f.endSome() // its loops go on while it is down
				continue
			}
			f.restart()
		} else if f.s.Ended {
			break
		} else {
			f.step()
		}
		f.check()
	}
	f.checkEnd()
	f.checkSteering(true)
}

var simSeen = map[string]int{}

func (f *simFan) say(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	f.trace = append(f.trace, line)
	for _, word := range []string{"landed", "sent", "review", "skipped", "started", "asks", "carries"} {
		if strings.Contains(line, " "+word+" ") || strings.HasPrefix(line, word+" ") {
			simSeen[word]++
		}
	}
}

// save is the Runner's save, where its process may be killed.
func (f *simFan) save(where string) error {
	if err := f.s.Save(f.dir); err != nil {
		f.t.Fatal(err)
	}
	return f.crash("after saving " + where)
}

// crash kills the fan's process now and then, as many as six times.
func (f *simFan) crash(where string) error {
	if f.kills < 6 && f.rng.IntN(25) == 0 {
		f.kills++
		f.say("killed %s", where)
		f.s = nil
		return errCrash
	}
	return nil
}

func (f *simFan) tip() string { return "c" + strconv.Itoa(len(f.branch)) }

func (f *simFan) up(s *State) { f.s, f.free = s, s.Windows() }

// start is the Runner's start: a window, the worktree the first time,
// Begin, a save, the loop.
func (f *simFan) start(t *Task, note string) error {
	s := f.s
	slot := FreeSlot(f.free, t.Slot)
	if slot == 0 {
		s.Begin(t, 0, note)
		return f.save("a task waiting for a window")
	}
	if t.Worktree == "" {
		t.Worktree, t.Base = "wt-"+t.ID, f.tip()
	}
	if f.takeSteers(); f.s == nil { // as the Runner does: what the person asked until now is the new loop's
		return errCrash
	}
	s.Begin(t, slot, note)
	if err := f.save("loop " + t.Loop + " begun"); err != nil {
		return err
	}
	t.Note = ""
	notes := t.Notes
	if f.rng.IntN(30) == 0 {
		s.Lost(t, nil)
		f.failed[t.ID]++
		f.say("task %s %s at start", t.ID, s.StartFailed(t, errors.New("start loop: no pane"), f.tries))
		return f.save("task " + t.ID + " not started")
	}
	t.Notes = nil
	f.free[slot] = false
	f.loops[t.Loop] = &simLoop{task: t.ID, name: t.Loop, slot: slot}
	f.began(f.loops[t.Loop], notes)
	f.say("loop %s works task %s in window %d", t.Loop, t.ID, slot)
	return nil
}

// running are the loops the fan follows: started, not yet ended or seen ended.
func (f *simFan) running() []*simLoop {
	var out []*simLoop
	for _, name := range sortedKeys(f.loops) {
		out = append(out, f.loops[name])
	}
	return out
}

// step is one turn of Run's loop: claims while windows are free, then
// one loop's end.
func (f *simFan) step() {
	s := f.s
	for len(f.loops) < s.Max {
		var claimed *Task
		err := Locked(f.dir, func() error {
			p := f.plan()
			s.Sync(p)
			if pt := s.Next(p); pt != nil {
				claimed = s.Task(pt.ID)
				return f.start(claimed, claimed.Note)
			}
			return nil
		})
		if err != nil || f.s == nil {
			return
		}
		if claimed == nil {
			break
		}
	}
	loops := f.running()
	if len(loops) == 0 {
		s.Finish(f.plan())
		s.Ended = true
		_ = f.save("the end")
		return
	}
	l := loops[f.rng.IntN(len(loops))]
	if !l.ended {
		f.end(l)
	}
	f.ended(l)
}

// end ends a loop: its task done (mostly), interrupted, or dead, its
// watcher killed, or its window closed by the person.
func (f *simFan) end(l *simLoop) {
	l.ended = true
	switch r := f.rng.IntN(24); {
	case r < 2:
		l.code = 1
	case r < 4:
		l.code = 130
	case r < 6:
		l.code, l.lost = -1, true
	case r < 7:
		l.code, l.closed = 1, true
	}
}

// endSome ends a loop while the fan is down.
func (f *simFan) endSome() {
	if loops := f.running(); len(loops) > 0 {
		l := loops[f.rng.IntN(len(loops))]
		if !l.ended {
			f.end(l)
		}
	}
}

// ended is Run's handling of a loop's end.
func (f *simFan) ended(l *simLoop) {
	s := f.s
	t := s.Task(l.task)
	delete(f.loops, l.name)
	f.free[l.slot] = l.slot <= s.Max
	f.say("loop %s ended with %d (lost %t, closed %t)", l.name, l.code, l.lost, l.closed)
	e := End{Code: l.code, Lost: l.lost, Closed: l.closed}
	for verdict := ""; verdict != Offer; {
		if verdict = s.LoopEnded(t, e, f.tries); verdict != Follow {
			s.Unsent(Unsent(f.person.root, l.name)) // the person's once-notes it did not carry go to the next loop
		}
		switch verdict {
		case Follow: // Adopt: a lost watcher started again in its pane (mostly); a paused loop resumed, now and then
			if l.lost && f.rng.IntN(5) > 0 || l.code == 130 && f.rng.IntN(2) == 0 {
				f.say("loop %s followed on", l.name)
				l.ended, l.code, l.lost = false, 0, false
				f.loops[l.name], f.free[l.slot] = l, false
				return
			}
			e.Followed = true
		case Skipped, Open:
			if !l.lost {
				f.failed[t.ID]++
			}
			f.say("task %s %s : %s", t.ID, verdict, t.Why)
			_ = f.save("task " + t.ID + " " + verdict)
			return
		}
	}
	f.commits++
	commit := fmt.Sprintf("w%d", f.commits)
	f.works[commit] = simWork{task: t.ID, buggy: f.buggy[t.ID], files: f.files[t.ID]}
	s.Offer(t, commit)
	if f.save("task "+t.ID+" offered") != nil {
		return
	}
	_ = f.land(t)
}

// land is the Runner's land, on the model of git.
func (f *simFan) land(t *Task) error {
	s := f.s
	tip := f.tip()
	if t.Landed != "" && slices.Contains(f.branch, t.Landed) { // landed by a fan killed before it said so
		s.Settle(t, "", t.Landed, f.attempts)
		return f.save("task " + t.ID + " found landed")
	}
	w := f.works[t.Commit]
	var try Try
	if f.rng.IntN(40) == 0 {
		try.Err = errors.New("git apply: corrupt patch")
	} else {
		base, _ := strconv.Atoi(strings.TrimPrefix(t.Base, "c"))
		for _, c := range f.branch[base:] {
			for _, p := range f.works[f.landing(c)].files {
				if slices.Contains(w.files, p) && !slices.Contains(try.Conflicts, p) {
					try.Conflicts = append(try.Conflicts, p)
				}
			}
		}
		if len(try.Conflicts) == 0 {
			try.Cand = fmt.Sprintf("l%d:%s", len(f.branch)+1, t.Commit)
			if w.buggy {
				try.Failed, try.Output = "go test ./...", "FAIL"
			}
		}
	}
	why := s.Verdict(t, try)
	if why == "" {
		t.Landed = try.Cand
		if f.save("task "+t.ID+" about to land") != nil {
			return errCrash
		}
		f.branch = append(f.branch, try.Cand)
		f.say("task %s landed as %s", t.ID, try.Cand)
		if _, twice := f.landed[t.ID]; twice {
			f.t.Errorf("task %s landed twice:\n%s", t.ID, f.dump())
		}
		f.landed[t.ID] = try.Cand
		if f.crash("after the branch advanced, before the record says so") != nil {
			return errCrash
		}
	}
	switch s.Settle(t, why, try.Cand, f.attempts) {
	case Landed:
		return f.save("task " + t.ID + " settled")
	case NeedsReview:
		f.say("task %s needs review after %d tries", t.ID, t.Merges)
		return f.save("task " + t.ID + " settled")
	}
	f.say("task %s sent back: %s", t.ID, firstLine(why))
	s.SentBackTo(t, tip)
	if w.buggy && f.rng.IntN(10) < 7 { // its next loop puts it right
		f.buggy[t.ID] = false
	}
	return f.start(t, why)
}

// landing is the loop's work a landed commit holds.
func (f *simFan) landing(cand string) string { _, w, _ := strings.Cut(cand, ":"); return w }

// restart is the fan started again: its record from disk, its loops
// followed, the lost ones started again, its queue landed.
func (f *simFan) restart() {
	s, err := Load(f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	if f.rng.IntN(4) == 0 { // started again with another --max
		s.Max = 1 + f.rng.IntN(3)
	}
	f.say("started again with --max %d", s.Max)
	f.up(s)
	if f.takeSteers(); f.s == nil {
		return
	}
	f.adopted = map[string]bool{}
	lost := s.TakeUp(func(t *Task) bool {
		if l := f.loops[t.Loop]; l != nil && l.lost { // its watcher started again in its pane
			l.ended, l.code, l.lost = false, 0, false
		}
		if l := f.loops[t.Loop]; l != nil && (!l.ended || l.code == 0) { // Adopt: a live loop, or one that got its task done
			f.free[t.Slot], f.adopted[t.Loop] = false, true
			return true
		}
		delete(f.loops, t.Loop) // ended unfinished: not taken up
		s.Lost(t, Unsent(f.person.root, t.Loop))
		return false
	})
	for _, t := range lost {
		if f.start(t, t.Note) != nil {
			return
		}
	}
	for i := range s.Tasks {
		if t := &s.Tasks[i]; t.State == Queued {
			if f.land(t) != nil {
				return
			}
		}
	}
}
