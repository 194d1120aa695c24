package watch

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/between"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// What each iteration cost and did, as the loop records it: a receipt in
// the state folder's receipts file, its [COST] line in the iterations log,
// the loop's spend on the pane for the status line, and the budget that
// ends the loop before, or during, an iteration that would go over it.

// ReportsUsage says whether agent keeps session files that package receipt
// reads (what Session.Read knows): only these can be held to a budget.
func ReportsUsage(agent string) bool {
	return slices.Contains([]string{"claude", "codex", "gemini", "copilot", "opencode"}, agent)
}

// spending is what the loop knows of the iteration's receipt before it is
// written: where it began, in time and in the work tree.
type spending struct {
	iteration int       // the iteration this is about
	since     time.Time // when it began: the agent's session is read from then on
	tree      string    // the work tree then, as a git tree; "": unknown
	meter     *receipt.BudgetMeter
	why       string // why the budget ended the iteration
	warned    bool   // the person was told a cost budget misses unpriced tokens
	recorded  bool   // the iteration's receipt is written
	turnOver  bool   // the agent finished its turn and runs on: its session file will hold the turn
	shown     string // the loop's spend as the status line shows it
	// environs are the environments the agent's processes ran with (see
	// agentEnvs), kept from a look while they ran.
	environs [][]string
}

// beginReceipt notes where the iteration that starts now begins.
func (l *Loop) beginReceipt(now time.Time) {
	l.spend = spending{iteration: l.iteration, since: now, warned: l.spend.warned, shown: l.spend.shown}
	l.spend.tree, _ = between.WorkTree(l.Dir, l.Store.Path(state.WorkTreeIndex))
	if l.spend.shown == "" { // a resumed loop shows what it spent before
		all, _ := receipt.Load(l.Store.Path(state.ReceiptsFile))
		l.spend.shown = receipt.Total(all).Compact()
	}
}

// receiptStart is where the current iteration began; for one a previous
// watcher started, as its state records it, with the work tree unknown.
func (l *Loop) receiptStart() spending {
	if l.spend.iteration != l.iteration {
		s := spending{iteration: l.iteration, warned: l.spend.warned, shown: l.spend.shown}
		if t, err := time.ParseInLocation(state.TimeFormat, l.st.LastIterationStarted, time.Local); err == nil {
			s.since = t
		}
		l.spend = s
	}
	return l.spend
}

// readReceipt is the current iteration's receipt so far: what its agent
// reports in its own session files, priced.
func (l *Loop) readReceipt() (receipt.Receipt, error) {
	s := l.receiptStart()
	r := receipt.Receipt{Iteration: l.iteration, Agent: l.Agent.Name, Started: s.since, Ended: l.Clock.Now()}
	transcript, _ := os.ReadFile(l.Store.Path(state.TranscriptFile)) // as the agent's hook told it
	session := receipt.Session{Agent: l.Agent.Name, Dir: l.Dir,
		Transcript: strings.TrimSpace(string(transcript)), Since: s.since}
	var u receipt.Usage
	var source string
	var err error
	for _, getenv := range l.agentEnvs() {
		session.Getenv = getenv
		u, source, err = session.Read()
		if errors.Is(err, fs.ErrNotExist) {
			err = nil // a session that wrote nothing yet reports nothing
		}
		if source != "" || err != nil {
			break
		}
	}
	r.Usage, r.Source = u, source
	prices := l.Prices
	if prices == nil {
		prices = receipt.DefaultPrices
	}
	return r.Priced(prices), err
}

// agentEnvs are the environments the agent may have run with, the likeliest
// first: its own processes' (a wrapper or `env HOME=…` gives it another
// HOME, CODEX_HOME, GEMINI_CLI_HOME than the watcher's), as they run now or
// ran at an earlier look; then the command's own NAME=value words over the
// watcher's environment; then the watcher's. Its session files are under
// the folders these name.
func (l *Loop) agentEnvs() []func(string) string {
	l.noteAgentEnv(0)
	var envs [][]string
	envs = append(envs, l.spend.environs...)
	if words := agent.CommandEnv(l.Command, false); len(words) > 0 {
		envs = append(envs, words)
	}
	envs = append(envs, nil)
	var getenvs []func(string) string
	seen := map[string]bool{}
	for _, env := range envs {
		getenv := agent.Getenv(env, l.agentGetenv) // else what the loop gave it for its hooks, else the watcher's
		key := ""
		for _, name := range []string{"HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"} {
			key += name + "=" + getenv(name) + "\x00"
		}
		if !seen[key] {
			seen[key] = true
			getenvs = append(getenvs, getenv)
		}
	}
	return getenvs
}

// noteAgentEnv keeps the environments of the agent's processes under the
// pane's process pid (0: the latest agent's) while they run, so that a
// receipt read after the agent exited still finds its session files.
func (l *Loop) noteAgentEnv(pid int) {
	if !ReportsUsage(l.Agent.Name) {
		return
	}
	if pid <= 0 {
		pid = l.agentPID
	}
	if pid <= 0 { // an agent a previous watcher started
		if pane, err := l.Tmux.Pane(l.Pane); err == nil && !pane.Dead {
			pid = pane.PID
		}
	}
	if envs := agent.Environs(pid); len(envs) > 0 {
		l.receiptStart()
		l.spend.environs = envs
	}
}

// recordReceipt writes the receipt of the iteration that ended: its usage,
// the work tree's change since it began, its checks.
func (l *Loop) recordReceipt(runs []between.CheckRun) {
	if l.receiptStart().recorded {
		return
	}
	l.spend.recorded = true
	if l.spend.turnOver {
		l.awaitTurnWritten()
	}
	r, err := l.readReceipt()
	if err != nil {
		l.warnf("read the agent's session for iteration %d: %v", l.iteration, err)
	}
	if from := l.spend.tree; from != "" {
		if to, err := between.WorkTree(l.Dir, l.Store.Path(state.WorkTreeIndex)); err == nil {
			r.Changes, _ = between.TreeDiff(l.Dir, from, to)
		}
	}
	if len(runs) > 0 {
		r.Checks = &receipt.CheckSum{}
		for _, run := range runs {
			if run.Passed() {
				r.Checks.Passed++
			} else {
				r.Checks.Failed++
			}
		}
	}
	if err := receipt.Append(l.Store.Path(state.ReceiptsFile), r); err != nil {
		l.warnf("record the receipt of iteration %d: %v", l.iteration, err)
	}
	l.log("COST", r.LogLine())
	if r.CostUSD == nil && r.Usage.Sum() > 0 && l.Budget.CostUSD > 0 && !l.spend.warned {
		l.spend.warned = true
		l.warnf("no price for %s: --max-cost counts only priced tokens (give prices with --prices FILE)",
			strings.Join(r.Usage.ModelNames(), ", "))
	}
	all, _ := receipt.Load(l.Store.Path(state.ReceiptsFile))
	l.spend.shown = receipt.Total(all).Compact()
}

// How long the loop waits, at most, for an agent to write the turn that
// ended into its session file, and how it looks: Claude Code writes a
// turn's last message there a moment after it shows it, and may run its
// Stop hook before.
const (
	turnWriteWait  = 3 * time.Second
	turnWriteLook  = 100 * time.Millisecond
	turnWriteStill = 300 * time.Millisecond // the file unchanged this long, the turn in it: written
)

// awaitTurnWritten waits, bounded, until the agent's session file holds the
// turn that ended: for an agent whose Stop hook the loop installed, until
// that hook reported (it tells the transcript); then until the transcript's
// last line is the model's and the file stands still. A receipt read before
// would miss the turn's last message.
func (l *Loop) awaitTurnWritten() {
	if l.Agent.Name != "claude" {
		return
	}
	deadline := l.Clock.Now().Add(turnWriteWait)
	if l.hooked[agent.HookTurnEnd] && !l.hooksLost {
		for l.Clock.Now().Before(deadline) {
			if _, ok := l.hookRecord(agent.HookTurnEnd); ok {
				break
			}
			if pane, err := l.Tmux.Pane(l.Pane); err != nil || pane.Dead {
				break // it will report nothing more
			}
			select {
			case <-l.Wake:
			case <-l.Clock.After(turnWriteLook):
			}
		}
	}
	if pane, err := l.Tmux.Pane(l.Pane); err != nil || pane.Dead {
		return // the agent is gone: what it wrote is all there is
	}
	path := l.transcriptPath()
	if path == "" {
		return
	}
	size, still := int64(-2), l.Clock.Now()
	for {
		written, n := receipt.ClaudeTurnWritten(path)
		now := l.Clock.Now()
		if n != size {
			size, still = n, now
		} else if written && now.Sub(still) >= turnWriteStill {
			return
		}
		if !now.Before(deadline) {
			return
		}
		<-l.Clock.After(turnWriteLook)
	}
}

// transcriptPath is the Claude Code transcript of the current iteration:
// the one its hooks told, else the newest of its folder.
func (l *Loop) transcriptPath() string {
	told, _ := os.ReadFile(l.Store.Path(state.TranscriptFile))
	if path := strings.TrimSpace(string(told)); path != "" {
		return path
	}
	for _, getenv := range l.agentEnvs() {
		if path := receipt.FindClaudeTranscript(receipt.ClaudeConfigDir(getenv), l.Dir, l.receiptStart().since); path != "" {
			return path
		}
	}
	return ""
}

// spent is what the loop's iterations have spent, by their receipts.
func (l *Loop) spent() receipt.Spend {
	all, err := receipt.Load(l.Store.Path(state.ReceiptsFile))
	if err != nil {
		l.warnf("read receipts: %v", err)
	}
	return receipt.SpendOf(all)
}

// budgetStop ends the loop before an iteration when the receipts have
// reached the budget.
func (l *Loop) budgetStop() (Result, bool) {
	if !l.Budget.Set() {
		return Result{}, false
	}
	if why, reached := l.Budget.Reached(l.spent()); reached {
		return l.overBudget(why), true
	}
	return Result{}, false
}

// budgetEnding says, while an iteration runs, whether its spend with the
// iterations before has reached the budget: the iteration is then ended.
func (l *Loop) budgetEnding() (ending, bool) {
	if !l.Budget.Set() {
		return endExit, false
	}
	if l.receiptStart().meter == nil {
		l.spend.meter = &receipt.BudgetMeter{Budget: l.Budget, Before: l.spent(), Every: cmp.Or(l.BudgetEvery, budgetEvery), Clock: l.Clock, Read: l.readReceipt}
	}
	why, reached := l.spend.meter.Check()
	if !reached {
		return endExit, false
	}
	l.spend.why = why
	return endBudget, true
}

// budgetEnded ends the iteration whose spend reached the budget, and the
// loop: the agent is ended first, so that its receipt is complete.
func (l *Loop) budgetEnded() Result {
	if pane, err := l.Tmux.Pane(l.Pane); err == nil {
		l.endAgent(pane)
	}
	l.log("END", fmt.Sprintf("iteration %d budget", l.iteration))
	l.recordReceipt(nil)
	why, reached := l.Budget.Reached(l.spent())
	if !reached {
		why = l.spend.why
	}
	return l.overBudget(why)
}

// overBudget ends the loop on its budget: a limit, whatever else could end it.
func (l *Loop) overBudget(why string) Result {
	l.sayf("%s, stopping loop", why)
	l.log("BUDGET", why)
	l.log("DONE", fmt.Sprintf("loop complete after %d iterations reason=budget", l.iteration))
	return l.end(words.StatusLimit, words.ReasonBudget, words.ExitLimit)
}
