package watch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// scriptedJudge is a judge that keeps each input it is given (input-N
// in its folder) and answers with answer (a shell command's output).
type scriptedJudge struct{ dir string }

func newJudge(t *testing.T) scriptedJudge { return scriptedJudge{dir: t.TempDir()} }

func (j scriptedJudge) command(answer string) string {
	return "n=$(ls " + j.dir + " | wc -l); cat > " + j.dir + "/input-$n; " + answer
}

// inputs are the inputs the judge was given, in turn.
func (j scriptedJudge) inputs(t *testing.T) []string {
	t.Helper()
	var out []string
	for i := 0; ; i++ {
		data, err := os.ReadFile(filepath.Join(j.dir, "input-"+itoa(i)))
		if err != nil {
			return out
		}
		out = append(out, string(data))
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// prompts are the prompts the goal loops' agents were given.
var prompts struct {
	sync.Mutex
	of map[*testing.T][]string
}

// typedPrompts are the prompts this test's agents were given, in turn.
func (u *unit) typedPrompts() []string {
	prompts.Lock()
	defer prompts.Unlock()
	return prompts.of[u.t]
}

// goalUnit is a loop with a goal, its agent giving the done token after
// doing do at its nth start.
func goalUnit(t *testing.T, answer string, do func(dir string, n int)) (*unit, scriptedJudge) {
	t.Helper()
	j := newJudge(t)
	var u *unit
	u = newUnit(t, "Do the work. Print RALPH_DONE_42 when it is done.\n", exits(func(term *tmuxfake.Term, n int) {
		prompts.Lock()
		if prompts.of == nil {
			prompts.of = map[*testing.T][]string{}
		}
		prompts.of[t] = append(prompts.of[t], term.Argv[len(term.Argv)-1])
		prompts.Unlock()
		if do != nil {
			do(u.cfg.Dir, n)
		}
		term.Write("RALPH_DONE" + "_42\n")
	}))
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 3
	u.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
	u.cfg.Goal.Goal = "a file parser.go that parses CSV"
	u.cfg.Goal.Judge.Command = j.command(answer)
	return u, j
}

func writeIn(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Error(err)
	}
}

// Honest work, judged met, ends the loop done: goal_met, exit 0; the
// judge saw the goal and the work's diff (a new untracked file), and the
// agent was given the goal.
func TestUnitGoalHonestWorkJudgedMetEndsTheLoop(t *testing.T) {
	u, j := goalUnit(t, `echo '{"met": true, "missing": [], "evidence": ["parser.go parses CSV"]}'`, func(dir string, n int) {
		writeIn(t, dir, "parser.go", "package p // parses CSV\n")
	})
	gitInit(t, u.cfg.Dir)
	u.wantResult(u.run(), contract.ExitDone, "goal_met")
	u.wantLog("[JUDGE] iteration 1 met", "goal_met")
	if st := u.state(); st.Goal != "a file parser.go that parses CSV" || len(st.Verdicts) != 1 || !st.Verdicts[0].Met || st.Verdicts[0].Iteration != 1 {
		t.Errorf("the record's goal %q, verdicts %+v", st.Goal, st.Verdicts)
	}
	in := j.inputs(t)
	if len(in) != 1 || !strings.Contains(in[0], "a file parser.go that parses CSV") || !strings.Contains(in[0], "+package p // parses CSV") {
		t.Errorf("the judge's inputs: %q", in)
	}
	if !strings.Contains(strings.Join(u.typedPrompts(), "\n"), judge.GoalHeading+"\n\na file parser.go that parses CSV") {
		t.Errorf("the agent was not given the goal: %q", u.typedPrompts())
	}
}

// A done token with no work: a failing check is not met and the judge is
// not asked; the loop goes on to its limit (exit 3).
func TestUnitGoalAFailingCheckIsNotMetAndTheJudgeIsNotAsked(t *testing.T) {
	u, j := goalUnit(t, `echo '{"met": true}'`, nil)
	writeIn(t, u.cfg.Dir, "check.sh", "exit 1\n")
	u.cfg.Checks = []checks.Check{{Command: "sh check.sh"}}
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	u.wantLog("[CHECK] iteration 1 done signal rejected: checks failed", "[CHECK] iteration 2 done signal rejected: checks failed")
	if in := j.inputs(t); len(in) != 0 {
		t.Errorf("the judge was asked %d times", len(in))
	}
}

// Whatever else a judge answers is not met, its reason logged, and the
// missing items reach the next prompt.
func TestUnitGoalAJudgeThatDoesNotAnswerMetIsNotMet(t *testing.T) {
	for _, tc := range []struct{ name, answer, reason string }{
		{"prose", "echo 'Looks done to me.'", "not met: no JSON"},
		{"invalid JSON", `echo '{"met": tru}'`, "not met: invalid JSON"},
		{"exit 1", `echo '{"met": true}'; exit 1`, "not met: exit 1"},
		{"hangs", "sleep 30", "not met: timeout"},
		{"met with missing items", `echo '{"met": true, "missing": ["tests for empty input"]}'`, "not met: met with missing items: tests for empty input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := goalUnit(t, tc.answer, func(dir string, n int) { writeIn(t, dir, "parser.go", "package p // "+itoa(n)+"\n") })
			u.cfg.Goal.Judge.Timeout = 300 * time.Millisecond
			u.cfg.MaxIterations = 2
			u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
			u.wantLog("[JUDGE] iteration 1 "+tc.reason, "[JUDGE] iteration 2 "+tc.reason)
			if tc.name == "met with missing items" && !strings.Contains(strings.Join(u.typedPrompts(), "\n"), judge.MissingHeading+"\n\n- tests for empty input") {
				t.Errorf("the next prompt was not told what is missing: %q", u.typedPrompts())
			}
		})
	}
}

// The same missing items on unchanged work, --judge-patience 2 times in a
// row, end the loop at the second: goal_stalemate, exit 3.
func TestUnitGoalStalemateEndsTheLoop(t *testing.T) {
	u, _ := goalUnit(t, `echo '{"met": false, "missing": ["the README"]}'`, nil)
	writeIn(t, u.cfg.Dir, "README", "x\n")
	gitInit(t, u.cfg.Dir)
	u.cfg.Goal.Patience = 2
	u.cfg.MaxIterations = 5
	u.wantResult(u.run(), contract.ExitLimit, "goal_stalemate")
	if st := u.state(); st.CurrentIteration != 2 {
		t.Errorf("ended after iteration %d, want 2", st.CurrentIteration)
	}
	u.wantOutput("still missing: the README")
	if v := u.state().Verdicts; len(v) != 2 || v[1].Met || strings.Join(v[1].Missing, ",") != "the README" {
		t.Errorf("the record's verdicts %+v", v)
	}
}

// A check script the agent edits to pass is put back before the checks
// run: the check fails as the person wrote it, the judge is not asked.
func TestUnitGoalAProtectedCheckScriptEditedByTheAgentIsPutBack(t *testing.T) {
	u, j := goalUnit(t, `echo '{"met": true}'`, func(dir string, n int) { writeIn(t, dir, "check.sh", "exit 0\n") })
	writeIn(t, u.cfg.Dir, "check.sh", "test -s parser.go\n")
	u.cfg.Checks = []checks.Check{{Command: "sh check.sh"}}
	u.cfg.MaxIterations = 1
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	u.wantLog("[PROTECT] iteration 1 put back check.sh", `[CHECK] iteration 1 fail exit=1 duration=0s check="sh check.sh"`, "done signal rejected")
	if data, _ := os.ReadFile(filepath.Join(u.cfg.Dir, "check.sh")); string(data) != "test -s parser.go\n" {
		t.Errorf("check.sh: %q", data)
	}
	if len(j.inputs(t)) != 0 {
		t.Error("the judge was asked")
	}
}

// With --judge-every, a failing check is the verdict: not met, naming
// the check, the judge not asked.
func TestUnitGoalJudgeEveryNamesTheFailingCheck(t *testing.T) {
	j := newJudge(t)
	u := newUnit(t, "Do the work.\n", exits(nil))
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 2
	u.cfg.Goal.Goal, u.cfg.Goal.Every = "g", 1
	u.cfg.Goal.Judge.Command = j.command(`echo '{"met": true}'`)
	writeIn(t, u.cfg.Dir, "check.sh", "exit 1\n")
	u.cfg.Checks = []checks.Check{{Command: "sh check.sh"}}
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	u.wantLog(`[JUDGE] iteration 1 not met: check "sh check.sh" failed with exit code 1`, `[JUDGE] iteration 2 not met: check "sh check.sh" failed with exit code 1`)
	if len(j.inputs(t)) != 0 {
		t.Error("the judge was asked")
	}
	writeIn(t, u.cfg.Dir, "check.sh", "exit 0\n")
}

// All tasks done is a moment the loop would end done: the judge is asked
// then, sees the plan's state, and a not-met verdict keeps the loop going
// (its missing items in the next prompt) until one says met.
func TestUnitGoalAPlanAllDoneIsJudgedBeforeTheLoopEnds(t *testing.T) {
	j := newJudge(t)
	u := planned(t, "# Plan\n\n- [ ] Add the parser\n", func(u *unit, n int, prompt string) {
		u.work(n)
		u.tick(prompt)
		prompts.Lock()
		if prompts.of == nil {
			prompts.of = map[*testing.T][]string{}
		}
		prompts.of[u.t] = append(prompts.of[u.t], prompt)
		prompts.Unlock()
	})
	u.cfg.MaxIterations = 5
	u.cfg.Goal.Goal = "a CSV parser"
	u.cfg.Goal.Judge.Command = j.command(`if [ -e ` + j.dir + `/input-1 ]; then echo '{"met": true}'; else echo '{"met": false, "missing": ["the error message"]}'; fi`)
	u.wantResult(u.run(), contract.ExitDone, "goal_met")
	u.wantLog("[JUDGE] iteration 1 not met: the error message", "[JUDGE] iteration 2 met", "goal_met")
	in := j.inputs(t)
	if len(in) != 2 || !strings.Contains(in[0], "1 of 1 tasks done.\n\n- [x] 1 Add the parser") {
		t.Errorf("the judge's inputs: %q", in)
	}
	if p := u.typedPrompts(); len(p) != 2 || !strings.Contains(p[1], judge.MissingHeading+"\n\n- the error message") {
		t.Errorf("the prompts: %q", p)
	}
}

// claudeJudge is a judge's output in Claude Code's --output-format json
// form: the verdict in "result", its tokens and cost beside it.
func claudeJudge(verdict string, usd string) string {
	return `printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":` +
		strconv.Quote(verdict) + `,"total_cost_usd":` + usd +
		`,"usage":{"input_tokens":800,"output_tokens":60,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}'`
}

// A judge that tells its cost (Claude Code's JSON form) is paid from the
// budget: its tokens and cost are in the receipt of the iteration it
// judged, and once they reach --max-cost the loop ends at the budget,
// no judge asked again.
func TestUnitGoalAJudgesCostStopsTheLoopAtMaxCost(t *testing.T) {
	u, j := goalUnit(t, claudeJudge(`{"met": false, "missing": ["tests for empty input"]}`, "0.03"), func(dir string, n int) {
		writeIn(t, dir, "parser.go", "package p // "+itoa(n)+"\n")
	})
	u.cfg.MaxIterations = 5
	u.cfg.Budget.CostUSD = 0.05
	u.wantResult(u.run(), contract.ExitLimit, "budget")
	u.wantLog("[COST] iteration 1 judge tokens in=800 out=60 cache=0/0 cost=$0.030",
		"[JUDGE] iteration 1 not met: tests for empty input",
		"[COST] iteration 2 judge tokens in=800 out=60 cache=0/0 cost=$0.030",
		"[BUDGET] budget reached: $0.060 of $0.050")
	if in := j.inputs(t); len(in) != 2 {
		t.Errorf("the judge was asked %d times, want 2", len(in))
	}
	rs := u.receipts()
	if len(rs) != 2 {
		t.Fatalf("receipts = %+v, want 2", rs)
	}
	for _, r := range rs {
		if j := r.Judge; j == nil || j.Calls != 1 || j.Reported != 1 || j.Usage.Input != 800 || j.Usage.Output != 60 || j.CostUSD == nil || *j.CostUSD != 0.03 {
			t.Errorf("receipt of iteration %d: judge %+v, want one call of 800 in, 60 out, $0.03", r.Iteration, r.Judge)
		}
	}
	if w := receipt.Total(rs).Words(); w != "1720 tokens, $0.060" {
		t.Errorf("the receipts' total: %q, want the judge's counted", w)
	}
	if st := u.state(); st.CurrentIteration != 2 {
		t.Errorf("ended after iteration %d, want 2", st.CurrentIteration)
	}
}

// A judge the budget cannot pay for is not asked: the agent's own spend
// reached --max-cost with its done token, and the loop ends at the budget.
func TestUnitGoalAJudgeTheBudgetCannotPayForIsNotAsked(t *testing.T) {
	u := newUnit(t, "work until finished", nil)
	u.simulate()
	u.lateTranscript(100 * time.Millisecond) // 10 in, 5 out of claude-sonnet-4-5: $0.000105
	u.cfg.Budget.CostUSD = 0.0001
	j := newJudge(t)
	u.cfg.Goal.Goal = "the work done"
	u.cfg.Goal.Judge.Command = j.command(`echo '{"met": true}'`)
	u.wantResult(u.run(), contract.ExitLimit, "budget")
	if in := j.inputs(t); len(in) != 0 {
		t.Errorf("the judge was asked %d times", len(in))
	}
	u.wantLog("[COST] iteration 1 tokens in=10 out=5", "[BUDGET] budget reached")
}

// A judge whose output tells no use (prose, or any JSON but the agent's
// form) is one call whose tokens are unreported, never guessed.
func TestUnitGoalAProseJudgesSpendIsUnreported(t *testing.T) {
	u, _ := goalUnit(t, `echo 'Looks done to me.'`, nil)
	u.cfg.MaxIterations = 1
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	u.wantLog("[COST] iteration 1 judge tokens unreported", "[JUDGE] iteration 1 not met: no JSON")
	rs := u.receipts()
	if len(rs) != 1 || rs[0].Judge == nil || rs[0].Judge.Calls != 1 || rs[0].Judge.Reported != 0 || rs[0].Judge.Usage.Sum() != 0 || rs[0].Judge.CostUSD != nil {
		t.Fatalf("receipts = %+v, want iteration 1's with one unreported judge call", rs)
	}
	if w := receipt.Total(rs).Words(); w != "no usage reported" {
		t.Errorf("the total in words: %q", w)
	}
}

// The status line shows ⚖ while the judge runs, and not after.
func TestUnitGoalTheStatusLineShowsTheScalesWhileTheJudgeRuns(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "go")
	u, _ := goalUnit(t, `while [ ! -e `+gate+` ]; do sleep 0.01; done; echo '{"met": true}'`, nil)
	status := func() string {
		v, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionStatus)
		return v
	}
	done := u.start()
	realSoon(t, "⚖ in the status line", func() bool { return strings.Contains(status(), contract.JudgingMark) })
	if s := status(); s != "⟳ 1/3 ⚖" {
		t.Errorf("the status line while the judge runs: %q", s)
	}
	writeIn(t, filepath.Dir(gate), "go", "")
	u.wantResult(<-done, contract.ExitDone, "goal_met")
	if s := status(); strings.Contains(s, contract.JudgingMark) {
		t.Errorf("the status line after the judge: %q", s)
	}
}

// A resumed loop keeps the protected files' bytes read at its first start:
// a check script edited while the loop was paused (the agent runs on) is
// put back to the person's bytes, not taken as the new original.
func TestUnitGoalAResumedLoopPutsBackTheBytesOfItsFirstStart(t *testing.T) {
	const original = "test -s parser.go\n"
	var u *unit
	u, j := goalUnit(t, `echo '{"met": true}'`, func(dir string, n int) {
		if n == 1 {
			writeIn(t, dir, "check.sh", "exit 0\n")
			if err := u.store.Request(state.RequestPause); err != nil {
				t.Error(err)
			}
		}
	})
	writeIn(t, u.cfg.Dir, "check.sh", original)
	u.cfg.Checks = []checks.Check{{Command: "sh check.sh"}}
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitInterrupted, "paused")
	u.wantLog("[PROTECT] iteration 1 put back check.sh")
	if data, _ := os.ReadFile(filepath.Join(u.cfg.Dir, "check.sh")); string(data) != original {
		t.Fatalf("check.sh after iteration 1: %q", data)
	}
	writeIn(t, u.cfg.Dir, "check.sh", "exit 0\n") // while paused: the agent runs on
	u.resume(contract.ExitLimit, "max_iterations")
	u.wantLog("[PROTECT] iteration 2 put back check.sh", `[CHECK] iteration 2 fail exit=1 duration=0s check="sh check.sh"`)
	if data, _ := os.ReadFile(filepath.Join(u.cfg.Dir, "check.sh")); string(data) != original {
		t.Errorf("check.sh after the resumed iteration: %q, want the person's %q", data, original)
	}
	if len(j.inputs(t)) != 0 {
		t.Error("the judge was asked: the edited check passed")
	}
}

// A resumed loop judges the work since its first start: iteration 1's
// commit, made before the pause, is in the diff the judge reads after the
// resume.
func TestUnitGoalAResumedLoopJudgesTheWorkSinceItsFirstStart(t *testing.T) {
	var u *unit
	u, j := goalUnit(t, `echo '{"met": true, "evidence": ["parser.go"]}'`, func(dir string, n int) {
		if n != 1 {
			return
		}
		writeIn(t, dir, "parser.go", "package p // parses CSV\n")
		for _, args := range [][]string{{"add", "parser.go"}, {"commit", "-q", "-m", "iteration 1"}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Errorf("git %v: %v\n%s", args, err, out)
			}
		}
		if err := u.store.Request(state.RequestPause); err != nil {
			t.Error(err)
		}
	})
	gitInit(t, u.cfg.Dir)
	u.cfg.Goal.Every = 2 // judged after iteration 2 only: the first judging is after the resume
	u.cfg.DonePattern = nil
	u.wantResult(u.run(), contract.ExitInterrupted, "paused")
	u.resume(contract.ExitDone, "goal_met")
	in := j.inputs(t)
	if len(in) != 1 || !strings.Contains(in[0], "+package p // parses CSV") {
		t.Errorf("the judge's inputs after the resume: %q", in)
	}
}

// An iteration a resumed loop takes up (its watcher gone while its agent ran, a
// check script edited) ends as any: the script put back to the person's
// bytes of the first start before the checks run, and, with
// --judge-every, judged: its weakened check fails, the judge not asked.
// (Found by the simulation, seed 250, with the snapshot taken anew at a
// resume; the judging was skipped for the iteration taken up.)
func TestUnitGoalAnIterationTakenUpAtResumeIsPutBackAndJudged(t *testing.T) {
	j := newJudge(t)
	var u *unit
	u = newUnit(t, "Do the work.\n", func(n int) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(term *tmuxfake.Term) { // it stays at its prompt
			writeIn(t, u.cfg.Dir, "check.sh", "exit 0\n")
			term.Write("working\n")
			if n == 1 { // the watcher goes while the agent works (as on SIGINT): the agent runs on
				u.mu.Lock()
				u.interrupt()
				u.mu.Unlock()
			}
		}}
	})
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 1
	u.cfg.InactivityTimeout = 10 * time.Second
	u.cfg.Goal.Goal, u.cfg.Goal.Every = "a parser", 1
	u.cfg.Goal.Judge.Command = j.command(`echo '{"met": true}'`)
	writeIn(t, u.cfg.Dir, "check.sh", "test -s parser.go\n")
	u.cfg.Checks = []checks.Check{{Command: "sh check.sh"}}
	u.wantResult(u.run(), contract.ExitInterrupted, "interrupted")
	if st := u.state(); st.CurrentIteration != 1 || st.LastIterationEnded != "" {
		t.Fatalf("interrupted at iteration %d (ended %q), want in iteration 1; output:\n%s", st.CurrentIteration, st.LastIterationEnded, u.out.String())
	}
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	u.wantLog("[RESUME]", "[PROTECT] iteration 1 put back check.sh", `[CHECK] iteration 1 fail exit=1 duration=0s check="sh check.sh"`,
		`[JUDGE] iteration 1 not met: check "sh check.sh" failed with exit code 1`)
	if data, _ := os.ReadFile(filepath.Join(u.cfg.Dir, "check.sh")); string(data) != "test -s parser.go\n" {
		t.Errorf("check.sh: %q", data)
	}
	if in := j.inputs(t); len(in) != 0 {
		t.Errorf("the judge was asked: %q", in)
	}
}

// What the judge found missing reaches the next iteration's prompt when
// the person paused the loop between the two: the resumed loop tells it.
// (Found by the simulation, seeds 9 and 170: it was lost with the watcher.)
func TestUnitGoalWhatTheJudgeFoundMissingReachesTheIterationAfterAPause(t *testing.T) {
	u, j := goalUnit(t, "", nil)
	// The judge answers not met; the person pauses the loop while the first runs.
	u.cfg.Goal.Judge.Command += `[ -e ` + j.dir + `/input-1 ] || printf pause > '` + u.store.Path(state.RequestFile) + `'; echo '{"met": false, "missing": ["the error message"]}'`
	u.cfg.MaxIterations = 2
	u.wantResult(u.run(), contract.ExitInterrupted, "paused")
	u.wantLog("[JUDGE] iteration 1 not met: the error message", "[PAUSE]")
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitLimit, "max_iterations")
	if p := u.typedPrompts(); len(p) != 2 || !strings.Contains(p[1], judge.MissingHeading+"\n\n- the error message") {
		t.Errorf("the prompts: %q", p)
	} else if strings.Count(p[1], "the error message") != 1 {
		t.Errorf("iteration 2 was told twice: %q", p[1])
	}
}
