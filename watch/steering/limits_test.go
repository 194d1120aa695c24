package steering

import (
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/settings"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// A set applies to the limits in force alone; Over gives an iteration the
// flags' settings with them, and Was says what the set limits were.
func TestLimitsTakeASetAndLeaveTheSettingsAsTheFlagsGaveThem(t *testing.T) {
	flags := settings.Config{MaxIterations: 2, MaxTime: time.Hour, InactivityTimeout: 3 * time.Minute, TaskAttempts: 3,
		Budget: receipt.Budget{CostUSD: 5}, Name: "w"}
	l := From(flags)
	cost, secs, n := 7.5, 60, 4
	set := &state.Limits{MaxIterations: &n, InactivityTimeout: &secs, MaxCostUSD: &cost}
	if was := l.Was(set); was != "max-iterations 2 max-cost 5.00 inactivity-timeout 3m0s" {
		t.Errorf("was = %q", was)
	}
	l.Apply(set)
	if l.MaxIterations != 4 || l.InactivityTimeout != time.Minute || l.Budget.CostUSD != 7.5 || l.MaxTime != time.Hour || l.TaskAttempts != 3 {
		t.Errorf("limits after set = %+v", l)
	}
	if flags.MaxIterations != 2 || flags.InactivityTimeout != 3*time.Minute {
		t.Errorf("the flags' settings changed: %+v", flags)
	}
	c := l.Over(flags)
	if c.MaxIterations != 4 || c.InactivityTimeout != time.Minute || c.Budget.CostUSD != 7.5 || c.Name != "w" {
		t.Errorf("over = max %d inactivity %s cost %v name %q", c.MaxIterations, c.InactivityTimeout, c.Budget.CostUSD, c.Name)
	}
	if s := l.State(); *s.MaxIterations != 4 || *s.InactivityTimeout != 60 || *s.MaxTime != 3600 {
		t.Errorf("state = %+v", s)
	}
}
