package watch

import (
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
)

// The loop's side of its spending (package spending): the receipts it
// returns go into the record.

// beginSpend notes where the iteration that starts now begins: its work
// tree is saved with its start, and a resumed loop shows what it spent before.
func beginSpend(l *Loop, now time.Time, notes []string) {
	l.rec.IterationBegins(l.spend.Begin(l.rec.Iteration(), now, notes))
}

// recordSpend writes the receipt of the iteration that ended, once.
func recordSpend(l *Loop, runs []checks.CheckRun) {
	r, ok := l.spend.Record(runs, l.hooks.Reports(agent.HookTurnEnd) && !l.hooks.Lost())
	if !ok {
		return
	}
	l.rec.Receipt(r)
	l.spend.WarnUnpriced(r, l.Budget)
}
