package watch_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/prompt"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// spendingClaude is a fake Claude Code that tells its hook where its
// transcript is, and writes into it, as the real one does, one response in
// two lines (a text block, then a tool call, the usage repeated) and a
// second response; it also leaves a note in its folder. Per iteration:
// in=15 out=70 cache read 6200, cache write 200: 6485 tokens, 2 turns, 1 tool.
// It ends its turn by its Stop hook, unless told to work on.
func spendingClaude(dir string, endTurn bool) string {
	transcript := filepath.Join(dir, "home", "session-{{iteration}}.jsonl")
	line := func(id, content string, in, out, read, write int) string {
		return fmt.Sprintf(`append %s {"type":"assistant","timestamp":"{{now}}","sessionId":"s{{iteration}}","message":{"id":"%s","model":"claude-sonnet-4-5-20250929","role":"assistant","type":"message","content":[%s],"usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":%d}}}`,
			transcript, id, content, in, out, read, write)
	}
	script := strings.Join([]string{
		`hook SessionStart {"transcript_path":"` + transcript + `","source":"startup"}`,
		"print   ⏻ a footer no profile has seen",
		"ready",
		"read",
		`hook UserPromptSubmit {"prompt":"x"}`,
		"echo",
		line("msg_{{iteration}}a", `{"type":"text","text":"Reading the test."}`, 10, 8, 3000, 200),
		line("msg_{{iteration}}a", `{"type":"tool_use","id":"toolu_{{iteration}}","name":"Bash","input":{}}`, 10, 50, 3000, 200),
		line("msg_{{iteration}}b", `{"type":"text","text":"Fixed."}`, 5, 20, 3200, 0),
		"append " + filepath.Join(dir, "note-{{iteration}}.txt") + " what iteration {{iteration}} did",
		"print ● Done with iteration {{iteration}}.",
	}, "\n") + "\n"
	if endTurn {
		return script + "hook Stop\nquiet\n"
	}
	return script + "spinner 2m\n"
}

// spendingLoop prepares h to loop spendingClaude in a git repository, with a check.
func (h *harness) spendingLoop(endTurn bool) func(time.Duration) watch.Result {
	h.t.Helper()
	h.gitInit()
	_, run := h.hooked(spendingClaude(h.srv.Dir, endTurn))
	h.cfg.Agent.IdleGrace = 0 // only the hook ends a turn
	h.cfg.PollInterval = 10 * time.Second
	h.cfg.ReadyTimeout = time.Minute
	h.cfg.Checks = []checks.Check{{Command: "true"}}
	h.cfg.CheckTimeout = 30 * time.Second
	h.cfg.CheckOutputChars = 5000
	h.cfg.CheckFailAction = prompt.FailAppend
	return run
}

func (h *harness) receipts() []receipt.Receipt {
	h.t.Helper()
	rs, err := receipt.Load(h.store.Path(state.ReceiptsFile))
	if err != nil {
		h.t.Fatal(err)
	}
	return rs
}

// sonnet45 is what 6485 tokens of spendingClaude cost at the list price.
const sonnet45 = (15*3 + 70*15 + 6200*0.30 + 200*3.75) / 1e6

func TestReceiptsTotalWhatAClaudeTranscriptReportsInStateStatusJSONAndList(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "fix the test", nil)
	run := h.spendingLoop(true)
	h.cfg.MaxIterations = 2
	res := run(90 * time.Second)
	h.wantResult(res, contract.ExitDone, "max_iterations")

	rs := h.receipts()
	if len(rs) != 2 {
		t.Fatalf("%d receipts, want 2: %+v\noutput:\n%s", len(rs), rs, h.out.String())
	}
	for i, r := range rs {
		u := r.Usage
		if r.Iteration != i+1 || r.Agent != "claude" || !strings.HasSuffix(r.Source, fmt.Sprintf("session-%d.jsonl", i+1)) ||
			u.Input != 15 || u.Output != 70 || u.CacheRead != 6200 || u.CacheWrite != 200 || u.Turns != 2 || u.ToolCalls != 1 {
			t.Errorf("receipt %d: %+v", i+1, r)
		}
		if r.CostUSD == nil || math.Abs(*r.CostUSD-sonnet45) > 1e-9 {
			t.Errorf("receipt %d costs %v, want %v", i+1, r.CostUSD, sonnet45)
		}
		if r.Changes != (receipt.DiffStat{Files: 1, Insertions: 1}) {
			t.Errorf("receipt %d changes %+v, want the one new note", i+1, r.Changes)
		}
		if r.Checks == nil || *r.Checks != (receipt.CheckSum{Passed: 1}) {
			t.Errorf("receipt %d checks %+v, want one passed", i+1, r.Checks)
		}
	}
	log := h.iterationsLog()
	for _, want := range []string{
		"[COST] iteration 1 tokens in=15 out=70 cache=6200/200 turns=2 tools=1 cost=$0.0037 files=1 +1 -0 checks=pass\n",
		"[COST] iteration 2 tokens in=15 out=70 cache=6200/200 turns=2 tools=1 cost=$0.0037 files=1 +1 -0 checks=pass\n",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("iterations.log lacks %q:\n%s", want, log)
		}
	}
	if got := h.srv.Option(h.cfg.Pane, contract.OptionCost); got != "13k tok $0.0074" {
		t.Errorf("%s = %q, want the loop's spend", contract.OptionCost, got)
	}

	l, err := control.Find(filepath.Join(h.srv.Dir, "state"), "test")
	if err != nil {
		t.Fatal(err)
	}
	var status bytes.Buffer
	control.WriteStatus(&status, l, time.Now())
	for _, want := range []string{
		"Spent: 12970 tokens, $0.0074 over 2 iterations\n",
		"  total: tokens in=30 out=140 cache=12400/400 turns=4 tools=2 cost=$0.0074 files=2 +2 -0 checks=pass\n",
		"  last:  iteration 2 tokens in=15 out=70",
	} {
		if !strings.Contains(status.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, status.String())
		}
	}
	var js bytes.Buffer
	if err := control.WriteJSON(&js, l.JSON()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Receipts struct {
			Iterations int     `json:"iterations"`
			Tokens     int64   `json:"tokens"`
			CostUSD    float64 `json:"cost_usd"`
			Totals     receipt.Receipt
			Last       receipt.Receipt
		} `json:"receipts"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if r := got.Receipts; r.Iterations != 2 || r.Tokens != 12970 || math.Abs(r.CostUSD-2*sonnet45) > 1e-9 ||
		r.Totals.Usage.Turns != 4 || r.Totals.Changes.Files != 2 || r.Last.Iteration != 2 {
		t.Errorf("status --json receipts: %+v\n%s", r, js.String())
	}
	var list bytes.Buffer
	if err := control.WriteTable(&list, []*control.Loop{l}); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(list.String(), "\n"); !strings.Contains(lines[0], "FAILURES  COST") ||
		!strings.Contains(lines[1], "0/0       13k tok $0.0074") {
		t.Errorf("list:\n%s", list.String())
	}
}

func TestATokenBudgetStopsTheLoopBeforeTheNextIteration(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "fix the test", nil)
	run := h.spendingLoop(true)
	h.cfg.Budget = receipt.Budget{Tokens: 10000} // iteration 1 stays under it, iteration 2 goes over
	res := run(90 * time.Second)
	h.wantResult(res, contract.ExitLimit, "budget")
	h.wantOutput("iteration 2 completed (turn ended", "budget reached: 12970 tokens of 10000, stopping loop")
	if st := h.state(); st.CurrentIteration != 2 || st.MaxTokens != 10000 {
		t.Errorf("ended at iteration %d with max_tokens %d, want 2 and 10000", st.CurrentIteration, st.MaxTokens)
	}
	log := h.iterationsLog()
	for _, want := range []string{"[BUDGET] budget reached: 12970 tokens of 10000\n", "[DONE] loop complete after 2 iterations reason=budget\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("iterations.log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "[START] iteration 3") {
		t.Errorf("an iteration started over the budget:\n%s", log)
	}
}

func TestACostBudgetAtPricesFromAFileStopsTheLoop(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "fix the test", nil)
	run := h.spendingLoop(true)
	path := filepath.Join(h.srv.Dir, "home", "prices.json")
	// A dollar a token: one iteration costs $0.006485 at these prices.
	if err := os.WriteFile(path, []byte(`{"claude-sonnet-4-5*": {"input": 1, "output": 1, "cache_read": 1, "cache_write": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	prices, err := receipt.LoadPrices(path)
	if err != nil {
		t.Fatal(err)
	}
	h.cfg.Prices = prices
	h.cfg.Budget = receipt.Budget{CostUSD: 0.006}
	res := run(90 * time.Second)
	h.wantResult(res, contract.ExitLimit, "budget")
	h.wantOutput("budget reached: $0.0065 of $0.0060, stopping loop")
	if rs := h.receipts(); len(rs) != 1 || rs[0].CostUSD == nil || math.Abs(*rs[0].CostUSD-0.006485) > 1e-9 {
		t.Errorf("receipts: %+v", rs)
	}
	h.wantLogged("cost=$0.0065 files=1")
}

func TestAnIterationThatGoesOverTheBudgetIsEnded(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "fix the test", nil)
	run := h.spendingLoop(false) // it spends, then works on for minutes
	h.cfg.Budget = receipt.Budget{Tokens: 5000}
	h.cfg.PollInterval, h.cfg.CheckEvery, h.cfg.BudgetEvery = time.Second, 500*time.Millisecond, 500*time.Millisecond
	started := time.Now()
	res := run(90 * time.Second)
	h.wantResult(res, contract.ExitLimit, "budget")
	if took := time.Since(started); took > time.Minute {
		t.Errorf("the iteration ran %s: it was not ended at the budget", took)
	}
	h.wantOutput("budget reached: 6485 tokens of 5000, stopping loop")
	log := h.iterationsLog()
	for _, want := range []string{"[END] iteration 1 budget\n", "[COST] iteration 1 tokens in=15 out=70", "[DONE] loop complete after 1 iterations reason=budget\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("iterations.log lacks %q:\n%s", want, log)
		}
	}
	if p, err := h.srv.Client.Pane(h.cfg.Pane); err != nil || !p.Dead {
		t.Errorf("the agent runs on in the pane (%+v, %v)", p, err)
	}
}

func TestWorkTreeSeesUntrackedFilesAndLeavesTheIndexAlone(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "x", nil)
	h.gitInit()
	if err := os.WriteFile(filepath.Join(h.srv.Dir, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.git("add", "a.txt")
	h.git("commit", "-q", "-m", "a")
	index := filepath.Join(h.srv.Dir, "home", "worktree.index")
	before, err := gitwork.WorkTree(h.srv.Dir, index)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.srv.Dir, "a.txt"), []byte("one\n2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.srv.Dir, "new.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := gitwork.WorkTree(h.srv.Dir, index)
	if err != nil {
		t.Fatal(err)
	}
	d, err := gitwork.TreeDiff(h.srv.Dir, before, after)
	if err != nil || d != (receipt.DiffStat{Files: 2, Insertions: 3, Deletions: 1}) {
		t.Errorf("diff %+v (%v), want 2 files +3 -1", d, err)
	}
	if status := h.git("status", "--porcelain"); status != " M a.txt\n?? new.txt\n" {
		t.Errorf("the index changed: git status says\n%s", status)
	}
	if info, err := os.Stat(index); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("index file: %v, %v; want mode 0600", info, err)
	}
	if _, err := gitwork.WorkTree(t.TempDir(), index); err != gitwork.ErrNotGit {
		t.Errorf("outside git: %v, want %v", err, gitwork.ErrNotGit)
	}
}

// An iteration the loop's max time cuts short spent its tokens all the same:
// its receipt is written, so a budget sees them.
func TestAnIterationCutShortStillLeavesItsReceipt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "fix the test", nil)
	run := h.spendingLoop(false) // it spends, then works on for minutes
	h.cfg.PollInterval, h.cfg.CheckEvery = time.Second, 500*time.Millisecond
	h.cfg.MaxTime = 8 * time.Second // long enough to spend first, even under load
	res := run(90 * time.Second)
	h.wantResult(res, contract.ExitDone, "max_time")
	rs := h.receipts()
	if len(rs) != 1 || rs[0].Iteration != 1 || rs[0].Usage.Sum() != 6485 {
		t.Fatalf("receipts = %+v, want iteration 1 with 6485 tokens", rs)
	}
	h.wantLogged("[COST] iteration 1 tokens in=15 out=70")
}

// Claude Code shows the done token, runs its Stop hook, and writes the turn
// to its transcript a moment later (about 100 ms, measured; 300 ms here):
// the receipt of the iteration that ends the loop still counts that turn.
func TestTheDoneIterationCountsTheTurnClaudeWritesToItsTranscriptAfterTheDoneLine(t *testing.T) {
	h := newHarness(t, "fix the test", nil)
	transcript := filepath.Join(h.srv.Dir, "home", "late-{{iteration}}.jsonl")
	_, run := h.hooked(strings.Join([]string{
		`hook SessionStart {"source":"startup"}`, // only the Stop hook tells the transcript
		"print   ⏻ a footer no profile has seen",
		"ready",
		"read",
		`hook UserPromptSubmit {"prompt":"x"}`,
		"echo",
		`append ` + transcript + ` {"type":"user","timestamp":"{{now}}","message":{"role":"user","content":"fix the test"}}`,
		"print RALPH_DONE",
		`hook Stop {"hook_event_name":"Stop","transcript_path":"` + transcript + `"}`,
		"sleep 300ms",
		`append ` + transcript + ` {"type":"assistant","timestamp":"{{now}}","message":{"id":"msg_{{iteration}}","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"RALPH_DONE"}],"usage":{"input_tokens":10,"output_tokens":5}}}`,
		"quiet",
	}, "\n") + "\n")
	h.cfg.Agent.IdleGrace = 0
	h.cfg.ReadyTimeout = time.Minute
	h.cfg.DonePattern = regexp.MustCompile(`^RALPH_DONE$`)
	h.cfg.CheckDoneContinuous = true // as the plugin runs it: the loop ends on the line
	h.cfg.MaxIterations = 3
	res := run(60 * time.Second)
	h.wantResult(res, contract.ExitDone, "done_pattern")
	rs := h.receipts()
	if len(rs) != 1 || rs[0].Usage.Input != 10 || rs[0].Usage.Output != 5 || !strings.HasSuffix(rs[0].Source, "late-1.jsonl") {
		t.Fatalf("receipts = %+v, want iteration 1 with 10 in and 5 out from late-1.jsonl\noutput:\n%s", rs, h.out.String())
	}
	h.wantLogged("[COST] iteration 1 tokens in=10 out=5")
}
