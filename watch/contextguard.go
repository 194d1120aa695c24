package watch

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// contextEndAbove is how far past --max-context the iteration is ended:
// the nudge at PCT gives the agent room to finish its step.
const contextEndAbove = 15

// DefaultContextNudge is what the agent is told at --max-context.
const DefaultContextNudge = "Your context window is filling up. Finish the current step, commit your work, " +
	"update the plan with what is left, and stop."

// ReportsContext says whether agent's session files tell how full its
// context window is (receipt.Context): only these can be held to --max-context.
func ReportsContext(agent string) bool {
	return slices.Contains([]string{"claude", "codex", "gemini"}, agent)
}

// contextGuard keeps the agent's context window from filling up
// (--max-context): Ralph's point is a fresh context before the old one
// degrades. At MaxContext percent it types the nudge into the agent, once
// an iteration; at MaxContext+15 it ends the iteration.
type contextGuard struct {
	cfg   *Config // read only
	rec   *recorder
	spend *spending
	tmux  tmux.Client
	clock clock.Clock

	iteration int       // the iteration the guard is about
	nudged    bool      // the nudge went in this iteration
	next      time.Time // the session is read again then
	why       string    // why the iteration was ended
}

// Check reads how full the context is (every BudgetEvery at most) and
// nudges the agent or ends the iteration (an iteration.Interrupt).
func (g *contextGuard) Check() (iteration.Ending, bool) {
	if g.cfg.MaxContext <= 0 {
		return iteration.EndNone, false
	}
	now := g.clock.Now()
	if n := g.rec.iteration(); n != g.iteration {
		g.iteration, g.nudged, g.next, g.why = n, false, time.Time{}, ""
	}
	if now.Before(g.next) {
		return iteration.EndNone, false
	}
	g.next = now.Add(cmp.Or(g.cfg.BudgetEvery, budgetEvery))
	r, err := g.spend.read()
	if err != nil || r.Usage.Context == nil {
		return iteration.EndNone, false
	}
	c := *r.Usage.Context
	pct, window := c.Percent(g.windows())
	if window == 0 {
		return iteration.EndNone, false
	}
	used := fmt.Sprintf("%d%% (%d of %d tokens, %s)", pct, c.Tokens, window, c.Model)
	switch {
	case pct >= g.cfg.MaxContext+contextEndAbove:
		g.why = fmt.Sprintf("context %s at or over %d%%", used, g.cfg.MaxContext+contextEndAbove)
		g.spend.current().reason = g.why
		g.rec.sayf("context window at %s, ending iteration %d", used, g.iteration)
		g.rec.log("CONTEXT", fmt.Sprintf("iteration %d context=%s ended (max %d%%+%d)", g.iteration, used, g.cfg.MaxContext, contextEndAbove))
		return iteration.EndContext, true
	case pct >= g.cfg.MaxContext && !g.nudged:
		g.nudged = true
		g.rec.sayf("context window at %s, nudging the agent to wrap up", used)
		g.rec.log("CONTEXT", fmt.Sprintf("iteration %d context=%s nudged (max %d%%)", g.iteration, used, g.cfg.MaxContext))
		g.nudge()
	}
	return iteration.EndNone, false
}

// nudge types the nudge into the agent as a message is sent to it.
func (g *contextGuard) nudge() {
	if g.cfg.PromptMode != agent.ModeType { // it reads no input from its pane: only the end at PCT+15 applies
		g.rec.log("CONTEXT", fmt.Sprintf("iteration %d nudge not typed: --prompt-mode %s", g.iteration, g.cfg.PromptMode))
		return
	}
	text := cmp.Or(g.cfg.ContextNudge, DefaultContextNudge)
	t := &iteration.Typist{Tmux: g.tmux, Pane: g.cfg.Pane, Name: g.cfg.Name, Clock: g.clock, Warnf: g.rec.warnf}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := t.Type(ctx, text); err != nil {
		g.rec.warnf("nudge the agent about its context: %v", err)
	}
}

func (g *contextGuard) windows() receipt.Windows {
	if g.cfg.ContextWindows != nil {
		return g.cfg.ContextWindows
	}
	return receipt.DefaultWindows
}
