package watch

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/record"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// steering takes what the person asks of a running loop beside pause and
// stop (ralph-watch note, set; state.Steer): notes for the prompts and new
// limits, at iteration boundaries only, each request once, in the order
// made. A request left while no watcher ran is taken when one comes back.
type steering struct {
	cfg *Config // its limits change here, between iterations, and nowhere else
	rec *record.Record
	ran func() state.Ran // what the loop has used of its limits
	// taken are the notes the running iteration's prompt took, and kept how
	// many of them stayed queued (the sticky ones): an iteration a usage
	// limit gives back gives them back, in their order, for its new start.
	taken []state.Note
	kept  int
}

// take applies the requests waiting in the loop's folder. Each is recorded
// as applied (state.json saved) before its file goes, so a watcher stopped
// between the two removes it and does not apply it again.
func (s *steering) take() {
	store := s.rec.Store()
	for _, r := range store.Steers() {
		if !slices.Contains(s.rec.State().Steered, r.ID) {
			s.apply(r)
			s.rec.Steered(r.ID)
		}
		if err := store.SteerTaken(r.ID); err != nil {
			s.rec.Warnf("remove request %s: %v", r.ID, err)
		}
	}
	s.rec.ForgetSteered(store.SteerPending)
}

func (s *steering) apply(r state.Steer) {
	switch r.Kind {
	case state.SteerNote:
		s.rec.AddNote(state.Note{Text: r.Text, Sticky: r.Sticky, Made: r.Made})
	case state.SteerClear:
		n := len(s.rec.State().Notes)
		s.rec.SetNotes(nil)
		s.rec.Log("NOTE", fmt.Sprintf("cleared %d notes", n))
		s.rec.Sayf("notes cleared (%d)", n)
	case state.SteerSet:
		s.set(r.Set)
	}
}

// set changes the loop's limits, unless one is below what has already run.
func (s *steering) set(l *state.Limits) {
	if l.Empty() {
		return
	}
	asked := l.String()
	if err := l.Check(s.ran(), limitsInForce(s.cfg)); err != nil {
		s.rec.Sayf("set %s refused: %v", asked, err)
		s.rec.Log("SET", fmt.Sprintf("refused %s: %v", asked, err))
		return
	}
	was := limitsNow(s.cfg, l)
	s.rec.MergeSet(l)
	setLimits(s.cfg, l)
	s.rec.WriteSetup(recordSetup(s.cfg)) // state.json shows the limits in force
	s.rec.Sayf("set %s (was %s)", l.String(), was)
	s.rec.Log("SET", fmt.Sprintf("%s at iteration %d (was %s)", l.String(), s.rec.Iteration(), was))
}

// pendingMax is the iteration limit the loop will have once it takes the
// set requests waiting for it, each checked as take will check it: the
// status line shows a raised limit at once, not at the next iteration.
func (s *steering) pendingMax() int {
	return *state.Pending(limitsInForce(s.cfg), s.ran, s.rec.Store().Steers(), s.rec.State().Steered).MaxIterations
}

// forPrompt takes the notes for the iteration that starts: every note
// queued, once, and the sticky ones; each is logged with the iteration.
func (s *steering) forPrompt() []string {
	st := s.rec.State()
	var texts []string
	var kept []state.Note
	s.taken = append([]state.Note(nil), st.Notes...)
	for _, n := range st.Notes {
		texts = append(texts, n.Text)
		s.rec.Log("NOTE", fmt.Sprintf("iteration %d%s: %q", s.rec.Iteration(), map[bool]string{true: " sticky"}[n.Sticky], n.Text))
		if n.Sticky {
			kept = append(kept, n)
		}
	}
	s.kept = len(kept)
	s.rec.SetNotes(kept)
	return texts
}

// giveBack queues again, in their order, the notes of an iteration a usage
// limit gave back, before those that came since: its new start is the
// iteration they were for.
func (s *steering) giveBack() {
	if s.taken == nil {
		return
	}
	notes := s.rec.State().Notes
	since := notes[min(s.kept, len(notes)):] // notes the person sent meanwhile (a clear waits for the boundary)
	s.rec.SetNotes(append(s.taken, since...))
	s.taken, s.kept = nil, 0
}

// setLimits puts the limits the person set in force.
func setLimits(c *Config, l *state.Limits) {
	if l == nil {
		return
	}
	secs := func(n int) time.Duration { return time.Duration(n) * time.Second }
	if l.MaxIterations != nil {
		c.MaxIterations = *l.MaxIterations
	}
	if l.MaxTime != nil {
		c.MaxTime = secs(*l.MaxTime)
	}
	if l.MaxTokens != nil {
		c.Budget.Tokens = *l.MaxTokens
	}
	if l.MaxCostUSD != nil {
		c.Budget.CostUSD = *l.MaxCostUSD
	}
	if l.InactivityTimeout != nil {
		c.InactivityTimeout = secs(*l.InactivityTimeout)
	}
	if l.IterationTimeout != nil {
		c.IterationTimeout = secs(*l.IterationTimeout)
	}
	if l.TaskAttempts != nil {
		c.TaskAttempts = *l.TaskAttempts
	}
}

// limitsInForce are the values of every limit set may change, as now in
// force (0: none).
func limitsInForce(c *Config) state.Limits {
	secs := func(d time.Duration) *int { n := int(d / time.Second); return &n }
	iterations, tokens, cost, attempts := c.MaxIterations, c.Budget.Tokens, c.Budget.CostUSD, c.TaskAttempts
	return state.Limits{MaxIterations: &iterations, MaxTime: secs(c.MaxTime), MaxTokens: &tokens, MaxCostUSD: &cost,
		InactivityTimeout: secs(c.InactivityTimeout), IterationTimeout: secs(c.IterationTimeout), TaskAttempts: &attempts}
}

// limitsNow is the values now in force of the limits l sets, as [SET]
// says what they were (0: none).
func limitsNow(c *Config, l *state.Limits) string {
	var now state.Limits
	secs := func(d time.Duration) *int { n := int(d / time.Second); return &n }
	if l.MaxIterations != nil {
		now.MaxIterations = &c.MaxIterations
	}
	if l.MaxTime != nil {
		now.MaxTime = secs(c.MaxTime)
	}
	if l.MaxTokens != nil {
		now.MaxTokens = &c.Budget.Tokens
	}
	if l.MaxCostUSD != nil {
		now.MaxCostUSD = &c.Budget.CostUSD
	}
	if l.InactivityTimeout != nil {
		now.InactivityTimeout = secs(c.InactivityTimeout)
	}
	if l.IterationTimeout != nil {
		now.IterationTimeout = secs(c.IterationTimeout)
	}
	if l.TaskAttempts != nil {
		now.TaskAttempts = &c.TaskAttempts
	}
	return now.String()
}

// ran is what the loop has used of its limits so far.
func (l *Loop) ran() state.Ran {
	spent := l.spend.Spent()
	return state.Ran{Iterations: l.rec.Iteration(), Elapsed: l.Clock.Now().Sub(l.start), Tokens: spent.Tokens, CostUSD: spent.CostUSD,
		Attempts: l.rec.State().Tasks.Attempts()}
}

// requests are what the person asks of a running loop (ralph-watch pause,
// stop, stop --kill, skip, retry): a file in the loop's folder and a signal that wakes
// the watcher.
type requests struct {
	store *state.Store
	clock clock.Clock
	wake  <-chan os.Signal // a command left a request (SIGUSR1)
	kill  bool             // a stop asked for the agent to be ended too
	// looked, when set, runs each time the requests are looked at: what a
	// command left besides them (a new limit) may change what the pane shows.
	looked func()
}

// wait sleeps between iterations; a pause or stop request, or an interrupt,
// ends the wait at once and is returned (iteration.EndWaitOver: the wait ran out).
func (q *requests) wait(ctx context.Context, d time.Duration) iteration.Ending {
	timer := q.clock.After(d)
	for {
		if end, ok := q.Take(); ok {
			if end.NextNow() { // no iteration runs: the next starts now
				return iteration.EndWaitOver
			}
			return end
		}
		select {
		case <-ctx.Done():
			return iteration.EndInterrupted
		case <-timer:
			return iteration.EndWaitOver
		case <-q.wake:
		case <-q.clock.After(time.Second): // a request whose signal was lost
		}
	}
}

// Take takes a pending pause or stop request.
func (q *requests) Take() (iteration.Ending, bool) {
	if q.looked != nil {
		q.looked()
	}
	switch q.store.TakeRequest() {
	case state.RequestPause:
		return iteration.EndPaused, true
	case state.RequestStop:
		return iteration.EndStopped, true
	case state.RequestStopKill:
		q.kill = true
		return iteration.EndStopped, true
	case state.RequestSkip:
		return iteration.EndSkipped, true
	case state.RequestRetry:
		return iteration.EndRetried, true
	}
	return iteration.EndNone, false
}

// Check takes a pending request while an iteration runs (an iteration.Interrupt).
func (q *requests) Check() (iteration.Ending, bool) { return q.Take() }

// Wake receives when a command left a request.
func (q *requests) Wake() <-chan os.Signal { return q.wake }
