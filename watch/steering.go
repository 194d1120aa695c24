package watch

import (
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// The loop's side of the person's steering (package steering): the
// requests and notes it takes between iterations, and the limits in force,
// which set changes there, the loop's settings staying as its flags gave
// them.

// steer takes the person's requests waiting in the loop's folder; a limit
// they changed is saved where state.json shows the limits in force.
func steer(l *Loop) {
	if l.steer.Take() {
		l.rec.WriteSetup(recordSetup(l))
	}
}

// inForce is the loop's settings with the limits now in force: what an
// iteration, the gates and the record read.
func inForce(l *Loop) *Config {
	c := l.steer.Limits.Over(l.Config)
	return &c
}

// ran is what the loop has used of its limits so far.
func (l *Loop) ran() state.Ran {
	spent := l.spend.Spent()
	return state.Ran{Iterations: l.rec.Iteration(), Elapsed: l.Clock.Now().Sub(l.start), Tokens: spent.Tokens, CostUSD: spent.CostUSD,
		Attempts: l.rec.State().Tasks.Attempts()}
}
