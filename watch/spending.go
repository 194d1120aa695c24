package watch

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/hooks"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
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

// spending keeps the loop's receipts and reads its spend for the budget.
type spending struct {
	cfg   *Config // read only
	rec   *recorder
	pane  *loopPane
	hooks *hooks.Hooks
	clock clock.Clock
	wake  <-chan os.Signal

	it     iterationSpend // the iteration's receipt before it is written
	warned bool           // the person was told a cost budget misses unpriced tokens
}

// iterationSpend is what the loop knows of the iteration's receipt before
// it is written: where it began, in time and in the work tree.
type iterationSpend struct {
	iteration int       // the iteration this is about
	since     time.Time // when it began: the agent's session is read from then on
	tree      string    // the work tree then, as a git tree; "": unknown
	meter     *receipt.BudgetMeter
	why       string   // why the budget ended the iteration
	recorded  bool     // the iteration's receipt is written
	turnOver  bool     // the agent finished its turn and runs on: its session file will hold the turn
	notes     []string // the person's notes its prompt carried
	reason    string   // why the loop ended it early, for the receipt
	// environs are the environments the agent's processes ran with (see
	// agentEnvs), kept from a look while they ran.
	environs [][]string
}

// begin notes where the iteration that starts now begins.
func (s *spending) begin(now time.Time, notes []string) {
	s.it = iterationSpend{iteration: s.rec.iteration(), since: now, notes: notes}
	s.it.tree, _ = gitwork.WorkTree(s.cfg.Dir, s.rec.store.Path(state.WorkTreeIndex))
	// Saved with the iteration's start: a watcher that takes it up measures from there.
	s.rec.st.IterationTree = s.it.tree
	if s.rec.cost == "" { // a resumed loop shows what it spent before
		all, _ := receipt.Load(s.rec.store.Path(state.ReceiptsFile))
		s.rec.cost = receipt.Total(all).Compact()
	}
}

// current is where the current iteration began; for one a previous
// watcher started, as its state records it.
func (s *spending) current() *iterationSpend {
	if n := s.rec.iteration(); s.it.iteration != n {
		s.it = iterationSpend{iteration: n, tree: s.rec.st.IterationTree}
		if t, err := time.ParseInLocation(state.TimeFormat, s.rec.st.LastIterationStarted, time.Local); err == nil {
			s.it.since = t
		}
	}
	return &s.it
}

// read is the current iteration's receipt so far: what its agent
// reports in its own session files, priced.
func (s *spending) read() (receipt.Receipt, error) {
	it := s.current()
	r := receipt.Receipt{Iteration: it.iteration, Agent: s.cfg.Agent.Name, Started: it.since, Ended: s.clock.Now()}
	transcript, _ := os.ReadFile(s.rec.store.Path(state.TranscriptFile)) // as the agent's hook told it
	session := receipt.Session{Agent: s.cfg.Agent.Name, Dir: s.cfg.Dir,
		Transcript: strings.TrimSpace(string(transcript)), Since: it.since}
	var u receipt.Usage
	var source string
	var err error
	for _, getenv := range s.envs() {
		session.Getenv = getenv
		u, source, err = session.Read()
		if errors.Is(err, fs.ErrNotExist) {
			err = nil // a session that wrote nothing yet reports nothing
		}
		if source != "" || err != nil {
			break
		}
	}
	r.Usage, r.Source, r.Notes, r.Reason = u, source, it.notes, it.reason
	prices := s.cfg.Prices
	if prices == nil {
		prices = receipt.DefaultPrices
	}
	return r.Priced(prices), err
}

// envs are the environments the agent may have run with, the likeliest
// first: its own processes' (a wrapper or `env HOME=…` gives it another
// HOME, CODEX_HOME, GEMINI_CLI_HOME than the watcher's), as they run now or
// ran at an earlier look; then the command's own NAME=value words over the
// watcher's environment; then the watcher's. Its session files are under
// the folders these name.
func (s *spending) envs() []func(string) string {
	s.NoteEnv(0)
	var envs [][]string
	envs = append(envs, s.it.environs...)
	if words := agent.CommandEnv(s.cfg.Command, false); len(words) > 0 {
		envs = append(envs, words)
	}
	envs = append(envs, nil)
	var getenvs []func(string) string
	seen := map[string]bool{}
	for _, env := range envs {
		getenv := agent.Getenv(env, s.hooks.Getenv) // else what the loop gave it for its hooks, else the watcher's
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

// agentHome is the HOME the agent runs with, as far as the loop can tell.
func (s *spending) agentHome() string {
	return s.envs()[0]("HOME")
}

// NoteEnv keeps the environments of the agent's processes under the
// pane's process pid (0: the latest agent's) while they run, so that a
// receipt read after the agent exited still finds its session files.
func (s *spending) NoteEnv(pid int) {
	if !ReportsUsage(s.cfg.Agent.Name) {
		return
	}
	if pid <= 0 {
		pid = s.pane.agentPID
	}
	if pid <= 0 { // an agent a previous watcher started
		if pane, err := s.pane.tmux.Pane(s.cfg.Pane); err == nil && !pane.Dead {
			pid = pane.PID
		}
	}
	if envs := agent.Environs(pid); len(envs) > 0 {
		s.current().environs = envs
	}
}

// record writes the receipt of the iteration that ended: its usage,
// the work tree's change since it began, its checks.
func (s *spending) record(runs []checks.CheckRun) {
	it := s.current()
	if it.recorded {
		return
	}
	it.recorded = true
	if it.turnOver {
		s.awaitTurnWritten()
	}
	r, err := s.read()
	if err != nil {
		s.rec.warnf("read the agent's session for iteration %d: %v", it.iteration, err)
	}
	r.Changes = s.changes(it)
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
	s.rec.receipt(r)
	if r.CostUSD == nil && r.Usage.Sum() > 0 && s.cfg.Budget.CostUSD > 0 && !s.warned {
		s.warned = true
		s.rec.warnf("no price for %s: --max-cost counts only priced tokens (give prices with --prices FILE)",
			strings.Join(r.Usage.ModelNames(), ", "))
	}
}

// recordCut writes the receipt of the iteration a restart cut short (its
// tmux server went away; restore recorded its end) when it has none: what
// its agent wrote, read from its session files as at any iteration's end.
func (s *spending) recordCut() {
	st := s.rec.st
	if st.CurrentIteration == 0 || st.LastIterationEnded == "" || st.WaitingUntil != "" {
		return
	}
	all, _ := receipt.Load(s.rec.store.Path(state.ReceiptsFile))
	for _, r := range all {
		if r.Iteration == st.CurrentIteration {
			return
		}
	}
	it := s.current()
	it.recorded = true
	r, err := s.read()
	if err != nil {
		s.rec.warnf("read the agent's session for iteration %d: %v", it.iteration, err)
	}
	if ended, err := time.ParseInLocation(state.TimeFormat, st.LastIterationEnded, time.Local); err == nil {
		r.Ended = ended
	}
	r.Changes = s.changes(it)
	s.rec.receipt(r)
}

// changes is what changed in the work tree since the iteration began.
func (s *spending) changes(it *iterationSpend) receipt.DiffStat {
	if it.tree == "" {
		return receipt.DiffStat{}
	}
	to, err := gitwork.WorkTree(s.cfg.Dir, s.rec.store.Path(state.WorkTreeIndex))
	if err != nil {
		return receipt.DiffStat{}
	}
	d, _ := gitwork.TreeDiff(s.cfg.Dir, it.tree, to)
	return d
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
func (s *spending) awaitTurnWritten() {
	if s.cfg.Agent.Name != "claude" {
		return
	}
	deadline := s.clock.Now().Add(turnWriteWait)
	if s.hooks.Reports(agent.HookTurnEnd) && !s.hooks.Lost() {
		for s.clock.Now().Before(deadline) {
			if _, ok := s.hooks.Record(agent.HookTurnEnd); ok {
				break
			}
			if pane, err := s.pane.tmux.Pane(s.cfg.Pane); err != nil || pane.Dead {
				break // it will report nothing more
			}
			select {
			case <-s.wake:
			case <-s.clock.After(turnWriteLook):
			}
		}
	}
	if pane, err := s.pane.tmux.Pane(s.cfg.Pane); err != nil || pane.Dead {
		return // the agent is gone: what it wrote is all there is
	}
	path := s.transcriptPath()
	if path == "" {
		return
	}
	size, still := int64(-2), s.clock.Now()
	for {
		written, n := receipt.ClaudeTurnWritten(path)
		now := s.clock.Now()
		if n != size {
			size, still = n, now
		} else if written && now.Sub(still) >= turnWriteStill {
			return
		}
		if !now.Before(deadline) {
			return
		}
		<-s.clock.After(turnWriteLook)
	}
}

// transcriptPath is the Claude Code transcript of the current iteration:
// the one its hooks told, else the newest of its folder.
func (s *spending) transcriptPath() string {
	told, _ := os.ReadFile(s.rec.store.Path(state.TranscriptFile))
	if path := strings.TrimSpace(string(told)); path != "" {
		return path
	}
	for _, getenv := range s.envs() {
		if path := receipt.FindClaudeTranscript(receipt.ClaudeConfigDir(getenv), s.cfg.Dir, s.current().since); path != "" {
			return path
		}
	}
	return ""
}

// spent is what the loop's iterations have spent, by their receipts.
func (s *spending) spent() receipt.Spend {
	all, err := receipt.Load(s.rec.store.Path(state.ReceiptsFile))
	if err != nil {
		s.rec.warnf("read receipts: %v", err)
	}
	return receipt.SpendOf(all)
}

// Check says, while an iteration runs, whether its spend with the
// iterations before has reached the budget: the iteration is then ended
// (an iteration.Interrupt).
func (s *spending) Check() (iteration.Ending, bool) {
	if !s.cfg.Budget.Set() {
		return iteration.EndNone, false
	}
	it := s.current()
	if it.meter == nil {
		it.meter = &receipt.BudgetMeter{Budget: s.cfg.Budget, Before: s.spent(), Every: cmp.Or(s.cfg.BudgetEvery, budgetEvery), Clock: s.clock, Read: s.read}
	}
	why, reached := it.meter.Check()
	if !reached {
		return iteration.EndNone, false
	}
	it.why = why
	return iteration.EndBudget, true
}
