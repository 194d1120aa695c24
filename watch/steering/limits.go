package steering

import (
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/settings"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Limits are the loop's limits that the person's set may change, as in
// force: the flags' at the start, each set's over them. The loop's
// settings stay as its flags gave them.
type Limits struct {
	MaxIterations     int           // 0: no limit
	MaxTime           time.Duration // 0: no limit
	Budget            receipt.Budget
	InactivityTimeout time.Duration
	IterationTimeout  time.Duration // 0: none
	TaskAttempts      int
}

// From are the limits the loop's flags give.
func From(c settings.Config) Limits {
	return Limits{MaxIterations: c.MaxIterations, MaxTime: c.MaxTime, Budget: c.Budget,
		InactivityTimeout: c.InactivityTimeout, IterationTimeout: c.IterationTimeout, TaskAttempts: c.TaskAttempts}
}

// Over is c with these limits in force: what an iteration reads.
func (l Limits) Over(c settings.Config) settings.Config {
	c.MaxIterations, c.MaxTime, c.Budget = l.MaxIterations, l.MaxTime, l.Budget
	c.InactivityTimeout, c.IterationTimeout, c.TaskAttempts = l.InactivityTimeout, l.IterationTimeout, l.TaskAttempts
	return c
}

// Apply puts the limits the person set in force.
func (l *Limits) Apply(s *state.Limits) {
	if s == nil {
		return
	}
	secs := func(n int) time.Duration { return time.Duration(n) * time.Second }
	if s.MaxIterations != nil {
		l.MaxIterations = *s.MaxIterations
	}
	if s.MaxTime != nil {
		l.MaxTime = secs(*s.MaxTime)
	}
	if s.MaxTokens != nil {
		l.Budget.Tokens = *s.MaxTokens
	}
	if s.MaxCostUSD != nil {
		l.Budget.CostUSD = *s.MaxCostUSD
	}
	if s.InactivityTimeout != nil {
		l.InactivityTimeout = secs(*s.InactivityTimeout)
	}
	if s.IterationTimeout != nil {
		l.IterationTimeout = secs(*s.IterationTimeout)
	}
	if s.TaskAttempts != nil {
		l.TaskAttempts = *s.TaskAttempts
	}
}

// State is every limit set may change, as now in force (0: none), in the
// form a set request is checked against.
func (l Limits) State() state.Limits {
	secs := func(d time.Duration) *int { n := int(d / time.Second); return &n }
	iterations, tokens, cost, attempts := l.MaxIterations, l.Budget.Tokens, l.Budget.CostUSD, l.TaskAttempts
	return state.Limits{MaxIterations: &iterations, MaxTime: secs(l.MaxTime), MaxTokens: &tokens, MaxCostUSD: &cost,
		InactivityTimeout: secs(l.InactivityTimeout), IterationTimeout: secs(l.IterationTimeout), TaskAttempts: &attempts}
}

// Was is the values now in force of the limits s sets, as [SET] says
// what they were (0: none).
func (l Limits) Was(s *state.Limits) string {
	all, now := l.State(), state.Limits{}
	pick := func(set *int, to **int, v *int) {
		if set != nil {
			*to = v
		}
	}
	pick(s.MaxIterations, &now.MaxIterations, all.MaxIterations)
	pick(s.MaxTime, &now.MaxTime, all.MaxTime)
	pick(s.InactivityTimeout, &now.InactivityTimeout, all.InactivityTimeout)
	pick(s.IterationTimeout, &now.IterationTimeout, all.IterationTimeout)
	pick(s.TaskAttempts, &now.TaskAttempts, all.TaskAttempts)
	if s.MaxTokens != nil {
		now.MaxTokens = all.MaxTokens
	}
	if s.MaxCostUSD != nil {
		now.MaxCostUSD = all.MaxCostUSD
	}
	return now.String()
}
