package watch_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/prompt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// simSteerer is a person who steers the simulated loop at random ticks:
// notes for the next iteration (some sticky), a clear of them, new
// iteration limits (some below what has run, which must be refused), a
// skip or a retry of the running iteration.
type simSteerer struct {
	store *state.Store
	acts  map[int]state.Steer // by tick
	ends  map[int]string      // by tick: state.RequestSkip or state.RequestRetry
	left  []state.Steer       // what was left, in order
}

func newSimSteerer(rng *rand.Rand, u *unit) *simSteerer {
	p := &simSteerer{store: u.store, acts: map[int]state.Steer{}, ends: map[int]string{}}
	if rng.IntN(2) == 0 {
		p.ends[1+rng.IntN(150)] = []string{state.RequestSkip, state.RequestRetry}[rng.IntN(2)]
	}
	for i, n := 0, 1+rng.IntN(4); i < n; i++ {
		var s state.Steer
		switch rng.IntN(5) {
		case 0, 1:
			s = state.Steer{Kind: state.SteerNote, Text: fmt.Sprintf("note %d", i)}
		case 2:
			s = state.Steer{Kind: state.SteerNote, Text: fmt.Sprintf("sticky %d", i), Sticky: true}
		case 3:
			s = state.Steer{Kind: state.SteerClear}
		default:
			lim := &state.Limits{AddIterations: 1 + rng.IntN(3)} // as a request made before +N took every limit
			switch rng.IntN(4) {
			case 0:
				max := rng.IntN(7)
				lim = &state.Limits{MaxIterations: &max}
			case 1:
				more := 1 + rng.IntN(3)
				lim = &state.Limits{Add: &state.Limits{MaxIterations: &more}}
			case 2: // the budget: N dollars more
				more := float64(1 + rng.IntN(5))
				lim = &state.Limits{Add: &state.Limits{MaxCostUSD: &more}}
			}
			s = state.Steer{Kind: state.SteerSet, Set: lim}
		}
		p.acts[1+rng.IntN(150)] = s
	}
	return p
}

// tick leaves the request due at this tick.
func (p *simSteerer) tick(u *unit, n int, wake chan os.Signal) {
	if request, ok := p.ends[n]; ok && p.store.Request(request) == nil {
		select {
		case wake <- syscall.SIGUSR1:
		default:
		}
	}
	s, ok := p.acts[n]
	if !ok {
		return
	}
	left, err := p.store.Steer(s, u.clock.Now())
	if err == nil {
		p.left = append(p.left, left)
	}
}

// notesOf are the notes iteration n's prompt carried at any of its starts,
// by iterations.log.
func notesOf(log string, n int) []string {
	var notes []string
	for _, a := range attemptNotes(log, n) {
		notes = append(notes, a...)
	}
	return notes
}

// attemptNotes are the notes each start of iteration n carried, in order,
// by iterations.log: a limit gives an iteration back, and its next start
// takes its notes again, which may be more than the first start's.
func attemptNotes(log string, n int) [][]string {
	var attempts [][]string
	var notes []string
	for _, line := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(afterTag(line, "[START]"), fmt.Sprintf("iteration %d/", n)):
			attempts, notes = append(attempts, notes), nil
		case strings.HasPrefix(afterTag(line, "[LIMIT]"), fmt.Sprintf("iteration %d not counted", n)):
			notes = nil
		default:
			rest := afterTag(line, "[NOTE]")
			head := fmt.Sprintf("iteration %d", n)
			if !strings.HasPrefix(rest, head+": ") && !strings.HasPrefix(rest, head+" sticky: ") {
				continue
			}
			_, quoted, _ := strings.Cut(rest, ": ")
			if text, err := strconv.Unquote(quoted); err == nil {
				notes = append(notes, text)
			}
		}
	}
	return append(attempts, notes) // and a start not logged yet
}

// promptsOf are the prompts the starts of iteration n were given: the
// file's, with each start's notes.
func promptsOf(log, text string, n int) []string {
	var prompts []string
	for _, notes := range attemptNotes(log, n) {
		prompts = append(prompts, prompt.Compose(text, prompt.Vars{Iteration: n, Notes: notes}, prompt.FailAppend, false))
	}
	return prompts
}

// check: each note reached exactly the iterations it should (a note once,
// in the first iteration that started after it was taken, unless a clear
// came first; a sticky one in every iteration from then until a clear), and
// no limit in force was ever below the iterations run.
func (p *simSteerer) check(t *testing.T, u *unit, st *state.State, describe func() string) {
	data, _ := os.ReadFile(u.store.Path(state.LogFile))
	log := string(data)
	var starts []int
	for _, line := range strings.Split(log, "\n") {
		var n int
		if _, err := fmt.Sscanf(afterTag(line, "[START]"), "iteration %d", &n); err == nil && !slicesContains(starts, n) {
			starts = append(starts, n) // once: an iteration a limit gave back starts again
		}
		var max, at int
		if _, err := fmt.Sscanf(afterTag(line, "[SET]"), "max-iterations %d at iteration %d", &max, &at); err == nil && max > 0 && max < at {
			t.Errorf("a limit of %d set at iteration %d\n%s\n%s", max, at, log, describe())
		}
	}
	if st.MaxIterations > 0 && st.CurrentIteration > st.MaxIterations {
		t.Errorf("iteration %d of a limit of %d\n%s\n%s", st.CurrentIteration, st.MaxIterations, log, describe())
	}
	p.checkPlus(t, log, describe)
	pending := map[string]bool{}
	for _, s := range u.store.Steers() {
		pending[s.Text] = true
	}
	for _, n := range st.Notes {
		pending[n.Text] = true
	}
	for i, s := range p.left {
		if s.Kind != state.SteerNote {
			continue
		}
		var in []int
		for _, n := range starts {
			if slicesContainsString(notesOf(log, n), s.Text) {
				in = append(in, n)
			}
		}
		clearedAfter := false
		for _, later := range p.left[i+1:] {
			clearedAfter = clearedAfter || later.Kind == state.SteerClear
		}
		switch {
		case !s.Sticky && len(in) > 1:
			t.Errorf("note %q reached iterations %v, want one\n%s\n%s", s.Text, in, log, describe())
		case len(in) == 0 && !pending[s.Text] && !clearedAfter:
			t.Errorf("note %q reached no iteration and waits for none\n%s\n%s", s.Text, log, describe())
		case s.Sticky && len(in) > 0 && !clearedAfter && in[len(in)-1] != starts[len(starts)-1]:
			t.Errorf("sticky note %q stopped after iteration %d, with no clear\n%s\n%s", s.Text, in[len(in)-1], log, describe())
		}
		for k := 1; k < len(in); k++ {
			if in[k] != in[k-1]+1 && in[k] != in[k-1] { // an iteration a limit's wait gave back starts again
				t.Errorf("sticky note %q skipped iterations: %v\n%s\n%s", s.Text, in, log, describe())
			}
		}
	}
}

func slicesContainsString(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// checkPlus: a limit after set +N is the old one plus N. Each set request
// the watcher took has one [SET] line, applied or refused, in their order.
func (p *simSteerer) checkPlus(t *testing.T, log string, describe func() string) {
	var sets []*state.Limits
	for _, s := range p.left {
		if s.Kind == state.SteerSet {
			sets = append(sets, s.Set)
		}
	}
	i := 0
	for _, line := range strings.Split(log, "\n") {
		rest := afterTag(line, "[SET]")
		if rest == "" || i >= len(sets) {
			continue
		}
		set := sets[i]
		i++
		if strings.HasPrefix(rest, "refused ") {
			continue
		}
		var add float64
		name := "max-iterations"
		switch {
		case set.AddIterations != 0:
			add = float64(set.AddIterations)
		case set.Add != nil && set.Add.MaxIterations != nil:
			add = float64(*set.Add.MaxIterations)
		case set.Add != nil && set.Add.MaxCostUSD != nil:
			add, name = *set.Add.MaxCostUSD, "max-cost"
		default:
			continue
		}
		var now, was float64
		var at int
		if _, err := fmt.Sscanf(rest, name+" %g at iteration %d (was "+name+" %g)", &now, &at, &was); err != nil || now != was+add {
			t.Errorf("set %s gave %q, want the old limit plus %g\n%s\n%s", set, rest, add, log, describe())
		}
	}
}
