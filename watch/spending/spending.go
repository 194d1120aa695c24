// Package spending is what each iteration of a loop costs and fills: its
// receipt (what its agent reports in its own session files, priced, and
// what it changed), the budget that ends an iteration that goes over it
// (--max-tokens, --max-cost), and the guard of the agent's context window
// (--max-context). It holds no other part of the loop: the loop gives it the
// iteration, the hooks' environment and the budget in force, and writes the
// receipts it returns into the record.
package spending

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
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/settings"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Every is how often a running iteration's spend is read when
// Config.BudgetEvery is 0: a session file can be megabytes, a few seconds
// late is soon enough.
const Every = 5 * time.Second

// ReportsUsage says whether agent keeps session files that package receipt
// reads (what Session.Read knows): only these can be held to a budget.
func ReportsUsage(agent string) bool {
	return slices.Contains([]string{"claude", "codex", "gemini", "copilot", "opencode"}, agent)
}

// Teller is where the loop's parts say what they did: its output lines,
// its warnings and its log (the record's).
type Teller interface {
	Sayf(format string, args ...any)
	Warnf(format string, args ...any)
	Log(event, message string)
}

// Spending keeps the loop's receipts and reads its spend for the budget.
type Spending struct {
	cfg   *settings.Config // read only
	store *state.Store     // the loop's folder: receipts, the transcript its hook told, the hooks' records
	tmux  tmux.Client
	clock clock.Clock
	wake  <-chan os.Signal
	tell  Teller
	// hookEnv is the agent's environment as the watcher knows it: what it
	// gave the agent for its hooks, its home when told, else the watcher's.
	hookEnv func(string) string

	it     iterationSpend // the iteration's receipt before it is written
	pid    int            // the latest agent's process, as noted while it ran
	warned bool           // the person was told a cost budget misses unpriced tokens
}

// New is the spending of a loop that runs by cfg in store's folder.
func New(cfg *settings.Config, store *state.Store, tm tmux.Client, clk clock.Clock, wake <-chan os.Signal,
	tell Teller, hookEnv func(string) string) *Spending {
	return &Spending{cfg: cfg, store: store, tmux: tm, clock: clk, wake: wake, tell: tell, hookEnv: hookEnv}
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

// Begin notes where iteration n, which starts now, begins, and returns the
// work tree then (to be saved with the iteration's start: a watcher that
// takes it up measures from there).
func (s *Spending) Begin(n int, now time.Time, notes []string) (tree string) {
	s.it = iterationSpend{iteration: n, since: now, notes: notes}
	s.pid = 0
	s.it.tree, _ = gitwork.WorkTree(s.cfg.Dir, s.store.Path(state.WorkTreeIndex))
	return s.it.tree
}

// Adopt takes up the iteration a previous watcher's record left (st, read only).
func (s *Spending) Adopt(st *state.State) {
	if s.it.iteration == st.CurrentIteration {
		return
	}
	s.it = iterationSpend{iteration: st.CurrentIteration, tree: st.IterationTree}
	s.pid = 0
	if t, err := time.ParseInLocation(state.TimeFormat, st.LastIterationStarted, time.Local); err == nil {
		s.it.since = t
	}
}

// Total is what the loop's iterations have spent, by their receipts, in short.
func (s *Spending) Total() string {
	all, _ := receipt.Load(s.store.Path(state.ReceiptsFile))
	return receipt.Total(all).Compact()
}

// TurnOver notes whether the agent finished its turn and runs on: its
// session file will hold the turn, a moment later.
func (s *Spending) TurnOver(over bool) { s.it.turnOver = over }

// EndedBy notes why the loop ended the iteration early, for its receipt.
func (s *Spending) EndedBy(reason string) { s.it.reason = reason }

// Read is the current iteration's receipt so far: what its agent
// reports in its own session files, priced.
func (s *Spending) Read() (receipt.Receipt, error) {
	it := &s.it
	r := receipt.Receipt{Iteration: it.iteration, Agent: s.cfg.Agent.Name, Started: it.since, Ended: s.clock.Now()}
	transcript, _ := os.ReadFile(s.store.Path(state.TranscriptFile)) // as the agent's hook told it
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
func (s *Spending) envs() []func(string) string {
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
		getenv := agent.Getenv(env, s.hookEnv) // else what the loop gave it for its hooks, else the watcher's
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

// AgentHome is the HOME the agent runs with, as far as the loop can tell.
func (s *Spending) AgentHome() string {
	return s.envs()[0]("HOME")
}

// NoteEnv keeps the environments of the agent's processes under the
// pane's process pid (0: the latest agent's) while they run, so that a
// receipt read after the agent exited still finds its session files.
func (s *Spending) NoteEnv(pid int) {
	if !ReportsUsage(s.cfg.Agent.Name) {
		return
	}
	if pid > 0 {
		s.pid = pid
	} else {
		pid = s.pid
	}
	if pid <= 0 { // an agent a previous watcher started, or one not looked at yet
		if pane, err := s.tmux.Pane(s.cfg.Pane); err == nil && !pane.Dead {
			pid = pane.PID
		}
	}
	if envs := agent.Environs(pid); len(envs) > 0 {
		s.it.environs = envs
	}
}

// Record is the receipt of the iteration that ended, for the record to
// write: its usage, the work tree's change since it began, its checks.
// turnHook says the agent's turn-end hook reports (installed and not
// lost). ok is false when the iteration's receipt was made already.
func (s *Spending) Record(runs []checks.CheckRun, turnHook bool) (r receipt.Receipt, ok bool) {
	it := &s.it
	if it.recorded {
		return receipt.Receipt{}, false
	}
	it.recorded = true
	if it.turnOver {
		s.awaitTurnWritten(turnHook)
	}
	r, err := s.Read()
	if err != nil {
		s.tell.Warnf("read the agent's session for iteration %d: %v", it.iteration, err)
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
	return r, true
}

// WarnUnpriced tells the person, once, that a cost budget misses the
// tokens of models r has no price for.
func (s *Spending) WarnUnpriced(r receipt.Receipt, budget receipt.Budget) {
	if r.CostUSD == nil && r.Usage.Sum() > 0 && budget.CostUSD > 0 && !s.warned {
		s.warned = true
		s.tell.Warnf("no price for %s: --max-cost counts only priced tokens (give prices with --prices FILE)",
			strings.Join(r.Usage.ModelNames(), ", "))
	}
}

// RecordCut is the receipt of the iteration a restart cut short (its tmux
// server went away; restore recorded its end, st read only) when it has
// none: what its agent wrote, read from its session files as at any
// iteration's end.
func (s *Spending) RecordCut(st *state.State) (receipt.Receipt, bool) {
	if st.CurrentIteration == 0 || st.LastIterationEnded == "" || st.WaitingUntil != "" {
		return receipt.Receipt{}, false
	}
	all, _ := receipt.Load(s.store.Path(state.ReceiptsFile))
	for _, r := range all {
		if r.Iteration == st.CurrentIteration {
			return receipt.Receipt{}, false
		}
	}
	s.Adopt(st)
	it := &s.it
	it.recorded = true
	r, err := s.Read()
	if err != nil {
		s.tell.Warnf("read the agent's session for iteration %d: %v", it.iteration, err)
	}
	if ended, err := time.ParseInLocation(state.TimeFormat, st.LastIterationEnded, time.Local); err == nil {
		r.Ended = ended
	}
	r.Changes = s.changes(it)
	return r, true
}

// changes is what changed in the work tree since the iteration began.
func (s *Spending) changes(it *iterationSpend) receipt.DiffStat {
	if it.tree == "" {
		return receipt.DiffStat{}
	}
	to, err := gitwork.WorkTree(s.cfg.Dir, s.store.Path(state.WorkTreeIndex))
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
// turn that ended: for an agent whose Stop hook the loop installed
// (turnHook), until that hook reported (it tells the transcript); then
// until the transcript's last line is the model's and the file stands
// still. A receipt read before would miss the turn's last message.
func (s *Spending) awaitTurnWritten(turnHook bool) {
	if s.cfg.Agent.Name != "claude" {
		return
	}
	deadline := s.clock.Now().Add(turnWriteWait)
	if turnHook {
		for s.clock.Now().Before(deadline) {
			if r, ok := agent.ReadHook(s.store, agent.HookTurnEnd); ok && r.Iteration == s.it.iteration {
				break
			}
			if pane, err := s.tmux.Pane(s.cfg.Pane); err != nil || pane.Dead {
				break // it will report nothing more
			}
			select {
			case <-s.wake:
			case <-s.clock.After(turnWriteLook):
			}
		}
	}
	if pane, err := s.tmux.Pane(s.cfg.Pane); err != nil || pane.Dead {
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
func (s *Spending) transcriptPath() string {
	told, _ := os.ReadFile(s.store.Path(state.TranscriptFile))
	if path := strings.TrimSpace(string(told)); path != "" {
		return path
	}
	for _, getenv := range s.envs() {
		if path := receipt.FindClaudeTranscript(receipt.ClaudeConfigDir(getenv), s.cfg.Dir, s.it.since); path != "" {
			return path
		}
	}
	return ""
}

// Spent is what the loop's iterations have spent, by their receipts.
func (s *Spending) Spent() receipt.Spend {
	all, err := receipt.Load(s.store.Path(state.ReceiptsFile))
	if err != nil {
		s.tell.Warnf("read receipts: %v", err)
	}
	return receipt.SpendOf(all)
}

// Budget is the check, while an iteration runs, of its spend with the
// iterations' before against budget (the one in force as it started): an
// iteration.Interrupt.
func (s *Spending) Budget(budget receipt.Budget) iteration.Interrupt {
	return budgetCheck{s: s, budget: budget}
}

type budgetCheck struct {
	s      *Spending
	budget receipt.Budget
}

// Check says whether the iteration's spend with the iterations before has
// reached the budget: the iteration is then ended.
func (b budgetCheck) Check() (iteration.Ending, bool) {
	s := b.s
	if !b.budget.Set() {
		return iteration.EndNone, false
	}
	it := &s.it
	if it.meter == nil {
		it.meter = &receipt.BudgetMeter{Budget: b.budget, Before: s.Spent(), Every: cmp.Or(s.cfg.BudgetEvery, Every), Clock: s.clock, Read: s.Read}
	}
	why, reached := it.meter.Check()
	if !reached {
		return iteration.EndNone, false
	}
	it.why = why
	return iteration.EndBudget, true
}

// Over is why the budget ended the loop: the receipts' spend has reached
// it, else what its meter saw while the iteration ran.
func (s *Spending) Over(budget receipt.Budget) string {
	if why, reached := budget.Reached(s.Spent()); reached {
		return why
	}
	return s.it.why
}
