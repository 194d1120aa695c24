package spending

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
	"github.com/ralph-tmux/ralph.tmux/watch/settings"
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

// Guard keeps the agent's context window from filling up (--max-context):
// Ralph's point is a fresh context before the old one degrades. At
// MaxContext percent it types the nudge into the agent, once an iteration;
// at MaxContext+15 it ends the iteration. It reads the receipt it is given.
type Guard struct {
	cfg   *settings.Config // read only
	tmux  tmux.Client
	clock clock.Clock
	tell  Teller

	iteration int       // the iteration the guard is about
	nudged    bool      // the nudge went in this iteration
	next      time.Time // the session is read again then
	why       string    // why the iteration was ended
}

// NewGuard is the context guard of a loop that runs by cfg.
func NewGuard(cfg *settings.Config, tm tmux.Client, clk clock.Clock, tell Teller) *Guard {
	return &Guard{cfg: cfg, tmux: tm, clock: clk, tell: tell}
}

// Due says whether the guard looks at iteration n's context now (every
// BudgetEvery at most): then the receipt so far goes to Look.
func (g *Guard) Due(n int) bool {
	if g.cfg.MaxContext <= 0 {
		return false
	}
	now := g.clock.Now()
	if n != g.iteration {
		g.iteration, g.nudged, g.next, g.why = n, false, time.Time{}, ""
	}
	if now.Before(g.next) {
		return false
	}
	g.next = now.Add(cmp.Or(g.cfg.BudgetEvery, Every))
	return true
}

// Look reads how full the context is by r, the iteration's receipt so
// far, and nudges the agent or ends the iteration; why says why it ended.
func (g *Guard) Look(r receipt.Receipt) (end iteration.Ending, why string, ok bool) {
	if r.Usage.Context == nil {
		return iteration.EndNone, "", false
	}
	c := *r.Usage.Context
	pct, window := c.Percent(g.windows())
	if window == 0 {
		return iteration.EndNone, "", false
	}
	used := fmt.Sprintf("%d%% (%d of %d tokens, %s)", pct, c.Tokens, window, c.Model)
	switch {
	case pct >= g.cfg.MaxContext+contextEndAbove:
		g.why = fmt.Sprintf("context %s at or over %d%%", used, g.cfg.MaxContext+contextEndAbove)
		g.tell.Sayf("context window at %s, ending iteration %d", used, g.iteration)
		g.tell.Log("CONTEXT", fmt.Sprintf("iteration %d context=%s ended (max %d%%+%d)", g.iteration, used, g.cfg.MaxContext, contextEndAbove))
		return iteration.EndContext, g.why, true
	case pct >= g.cfg.MaxContext && !g.nudged:
		g.nudged = true
		g.tell.Sayf("context window at %s, nudging the agent to wrap up", used)
		g.tell.Log("CONTEXT", fmt.Sprintf("iteration %d context=%s nudged (max %d%%)", g.iteration, used, g.cfg.MaxContext))
		g.nudge()
	}
	return iteration.EndNone, "", false
}

// nudge types the nudge into the agent as a message is sent to it.
func (g *Guard) nudge() {
	if g.cfg.PromptMode != agent.ModeType { // it reads no input from its pane: only the end at PCT+15 applies
		g.tell.Log("CONTEXT", fmt.Sprintf("iteration %d nudge not typed: --prompt-mode %s", g.iteration, g.cfg.PromptMode))
		return
	}
	text := cmp.Or(g.cfg.ContextNudge, DefaultContextNudge)
	t := &iteration.Typist{Tmux: g.tmux, Pane: g.cfg.Pane, Name: g.cfg.Name, Clock: g.clock, Warnf: g.tell.Warnf}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := t.Type(ctx, text); err != nil {
		g.tell.Warnf("nudge the agent about its context: %v", err)
	}
}

func (g *Guard) windows() receipt.Windows {
	if g.cfg.ContextWindows != nil {
		return g.cfg.ContextWindows
	}
	return receipt.DefaultWindows
}

// Context is the guard's check, while iteration n runs, of the receipt s
// reads: an iteration.Interrupt.
func Context(g *Guard, s *Spending, n int) iteration.Interrupt { return contextCheck{g: g, s: s, n: n} }

type contextCheck struct {
	g *Guard
	s *Spending
	n int
}

func (c contextCheck) Check() (iteration.Ending, bool) {
	if !c.g.Due(c.n) {
		return iteration.EndNone, false
	}
	r, err := c.s.Read()
	if err != nil {
		return iteration.EndNone, false
	}
	end, why, ok := c.g.Look(r)
	if ok {
		c.s.EndedBy(why) // for its receipt
	}
	return end, ok
}
