package watch_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// simulateGoal is the scenario "a goal loop" (--goal): a goal drawn from
// the seed, checks that pass or fail as the work stands, agents that do
// the work or not, print the done token or leave the done file early,
// edit a protected check script, .ralph/ or a --protect glob's files; a
// judge (a shell script, its answers written beforehand by the test, one
// per call) that answers met, not met, prose, invalid JSON, exits 1,
// hangs past --judge-timeout, or says met with missing items; drawn
// --judge-every, --judge-patience and --no-protect; the person's pause and
// resume. The judge keeps each input it is given and the protected and
// checked files as it found them. Invariants: the loop ends goal_met only
// after a met verdict whose input showed every check passing; at every
// judge call each protected path's bytes are the person's; the ending is
// one of the loop's with its exit code (a goal's loop is done only when
// goal_met); a failing check is a verdict with no judge asked; each
// verdict is what its judge answered; a stalemate is patience verdicts the
// same on the same work; every agent is given the goal, and the iteration
// after a verdict what it found missing (a pause between the two too).
//
// Cost: the judge and the checks are programs (sh), a few per iteration,
// so one seed in 8 runs it (sim_test.go); -sim.only goal runs it alone.
func simulateGoal(t *testing.T, seed int64) {
	g := newSimGoal(t, seed)
	res := g.u.run()
	for resumes := 0; res.Reason == contract.ReasonPaused && resumes < 3; resumes++ { // the person resumes
		g.u.cfg.Resume = true
		res = g.u.run()
	}
	g.check(res.Reason, res.Code)
}

// simGoalFiles are the person's files in the work, as the person wrote them.
var simGoalFiles = map[string]string{
	"check.sh":       "test -e feature\n",
	".ralph/config":  "# the person's settings\n",
	"spec/cases.txt": "the person's cases\n",
}

// simGoalPaths are every path an agent may touch, as the judge dumps them.
var simGoalPaths = []string{"feature", "broken", "check.sh", ".ralph/config", ".ralph/agent.txt", "spec/cases.txt", "spec/new.txt"}

// simGoalAnswers are the judge's answers: its shell code, and the verdict
// the loop must read from it (met, or the reason a not-met verdict gives).
var simGoalAnswers = map[string]struct {
	code string
	met  bool
	why  string
}{
	"met":         {`echo '{"met": true, "missing": [], "evidence": ["feature exists"]}'`, true, ""},
	"met-fenced":  {"echo 'The verdict:'; echo '```json'; echo '{\"met\": true, \"evidence\": [\"the check passes\"]}'; echo '```'", true, ""},
	"not-met":     {`echo '{"met": false, "missing": ["the tests"]}'`, false, "the tests"},
	"not-met-cap": {`echo '{"met": false, "missing": ["The  Tests"], "evidence": []}'`, false, "The  Tests"},
	"not-met-doc": {`echo 'Not yet.'; echo '{"met": false, "missing": ["the docs", "the tests"]}'`, false, "the docs; the tests"},
	"prose":       {`echo 'Looks done to me.'`, false, judge.ReasonNoJSON},
	"empty":       {`:`, false, judge.ReasonNoJSON},
	"invalid":     {`echo '{"met": tru}'`, false, judge.ReasonInvalidJSON},
	"exit1":       {`echo '{"met": true, "missing": []}'; exit 1`, false, "exit 1"},
	"hang":        {`sleep 5`, false, judge.ReasonTimeout},
	"met-missing": {`echo '{"met": true, "missing": ["edge cases"]}'`, false, judge.ReasonMetMissing + ": edge cases"},
}

// simGoalAgent is what one start of the agent does, drawn from the seed.
type simGoalAgent struct {
	Iteration int
	Acts      []string
	Token     bool // it prints the done token
	DoneFile  bool // it leaves the done file
	Exit      int  // its exit status; -1 it stays at its prompt
}

type simGoal struct {
	t      *testing.T
	seed   int64
	rng    *rand.Rand
	u      *unit
	ctl    string // the judge's folder
	git    bool
	checks []string
	glob   string // --protect ("": none)

	answers []string // the judge's answer at each call, by name

	mu      sync.Mutex
	agents  []simGoalAgent
	model   map[string]string // the tracked files as the agents left them ("" absent)
	work    map[int]string    // iteration: the unprotected work as its agent left it
	prompts map[int][]string  // iteration: the prompts its agents were given
	acted   []string          // what the person did, at which tick
}

func newSimGoal(t *testing.T, seed int64) *simGoal {
	g := &simGoal{t: t, seed: seed, rng: rand.New(rand.NewPCG(uint64(seed), 0x90a1)), ctl: memDir(t),
		model: map[string]string{}, work: map[int]string{}, prompts: map[int][]string{}}
	prompt := "Work toward the goal. Print RALPH_DONE_42 when it is done.\n"
	switch g.rng.IntN(3) {
	case 0:
		prompt = "The goal: {{goal}}\n{{judge}}\nPrint RALPH_DONE_42 when it is done.\n"
	case 1:
		prompt = "Work toward this: {{goal}}\nPrint RALPH_DONE_42 when it is done.\n"
	}
	g.u = newUnit(t, prompt, g.agent)
	u := g.u
	dir := u.cfg.Dir
	for rel, data := range simGoalFiles {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		g.model[rel] = data
	}
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.MaxIterations = 4
	u.cfg.InactivityTimeout = 10 * time.Second
	u.cfg.DonePattern = regexp.MustCompile(`^RALPH_DONE_42$`)
	u.cfg.CheckDoneContinuous = g.rng.IntN(3) == 0
	u.cfg.CheckTimeout, u.cfg.CheckOutputChars = 10*time.Second, 200
	if g.rng.IntN(3) == 0 {
		u.cfg.DoneFile = filepath.Join(g.ctl, "DONE")
	}
	for _, c := range []string{"sh check.sh", "test ! -e broken"} {
		if g.rng.IntN(2) == 0 {
			g.checks = append(g.checks, c)
			u.cfg.Checks = append(u.cfg.Checks, checks.Check{Command: c})
		}
	}
	goal := []string{"a feature file", "the feature, with its tests", "nothing broken, and the feature"}[g.rng.IntN(3)]
	if g.rng.IntN(4) == 0 {
		u.cfg.Goal.GoalFile = filepath.Join(g.ctl, "goal.md")
		if err := os.WriteFile(u.cfg.Goal.GoalFile, []byte(goal+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		u.cfg.Goal.Goal = goal
	}
	u.cfg.Goal.Every = []int{0, 0, 1, 2}[g.rng.IntN(4)]
	u.cfg.Goal.Patience = 1 + g.rng.IntN(3)
	u.cfg.Goal.NoProtect = g.rng.IntN(6) == 0
	g.glob = []string{"", "", "spec/**", "spec/*.txt"}[g.rng.IntN(4)]
	if g.glob != "" {
		u.cfg.Goal.Protect = []string{g.glob}
	}

	// The judge: its answers drawn, one per call; one that hangs is given
	// a short --judge-timeout (real time: the judge is a real program).
	kinds := []string{"met", "met", "met-fenced", "not-met", "not-met", "not-met-cap", "not-met-doc", "prose", "empty", "invalid", "exit1", "met-missing"}
	hangs := g.rng.IntN(8) == 0
	for i := 0; i < 12; i++ {
		a := kinds[g.rng.IntN(len(kinds))]
		if hangs && g.rng.IntN(3) == 0 {
			a = "hang"
		}
		g.answers = append(g.answers, a)
		if err := os.WriteFile(filepath.Join(g.ctl, fmt.Sprintf("answer-%d", i)), []byte(simGoalAnswers[a].code+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(g.ctl, "answer-last"), []byte(simGoalAnswers["not-met"].code+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if hangs {
		u.cfg.Goal.Judge.Timeout = 100 * time.Millisecond
	}
	script := filepath.Join(g.ctl, "judge.sh")
	if err := os.WriteFile(script, []byte(simJudgeScript(g.ctl)), 0o644); err != nil {
		t.Fatal(err)
	}
	u.cfg.Goal.Judge.Command = "sh " + script
	if g.rng.IntN(2) == 0 {
		u.cfg.Goal.Judge.Mode = judge.ModeArg
	}
	if g.seed%64 == 10 { // a git work tree, where the work's fingerprint makes a stalemate (git is slow: one seed in 64)
		g.git = true
		gitInit(t, dir)
	}

	// The person pauses at a tick drawn from the seed, some twice, or stops.
	action := []string{"none", "none", "pause", "pause", "pause-twice", "stop"}[g.rng.IntN(6)]
	actAt, ticks, pauses := 3+g.rng.IntN(60), 0, 0
	wake := make(chan os.Signal, 1)
	u.wake = wake
	u.tmux.Before = func(string) tmuxfake.Fault {
		if ticks++; ticks != actAt || action == "none" {
			return tmuxfake.NoFault
		}
		request := state.RequestPause
		if action == "stop" {
			request = state.RequestStop
		}
		_ = u.store.Request(request)
		g.acted = append(g.acted, fmt.Sprintf("%s at tick %d", request, ticks))
		if pauses++; action == "pause-twice" && pauses < 2 {
			actAt += 5 + g.rng.IntN(40)
		}
		select {
		case wake <- syscall.SIGUSR1:
		default:
		}
		return tmuxfake.NoFault
	}
	return g
}

// simJudgeScript is the judge: it keeps its input (input-N), the tracked
// files as it finds them (tree-N: "=path" and its lines, or "!path" for
// none), then gives the answer the test wrote for call N. Only the input's
// copy runs a program besides the shell (cat, and not in arg mode).
func simJudgeScript(ctl string) string {
	return `D='` + ctl + `'
n=0
while [ -e "$D/input-$n" ]; do n=$((n+1)); done
if [ $# -gt 0 ]; then printf '%s' "$1" > "$D/input-$n"; else cat > "$D/input-$n"; fi
for f in ` + strings.Join(simGoalPaths, " ") + `; do
	if [ -f "$f" ]; then
		printf '=%s\n' "$f"
		while IFS= read -r l || [ -n "$l" ]; do printf '%s\n' "$l"; done < "$f"
	else
		printf '!%s\n' "$f"
	fi
done > "$D/tree-$n"
echo '#end' >> "$D/tree-$n"
if [ -e "$D/answer-$n" ]; then . "$D/answer-$n"; else . "$D/answer-last"; fi
`
}

// agent is the agent's nth start: it does what is drawn, in the work, at
// once, and prints the token, leaves the done file, exits or stays.
func (g *simGoal) agent(n int) *tmuxfake.Program {
	return &tmuxfake.Program{Start: func(term *tmuxfake.Term) {
		g.mu.Lock()
		defer g.mu.Unlock()
		a := simGoalAgent{Iteration: iterationOf(term), Exit: []int{0, 0, 0, 1, -1}[g.rng.IntN(5)]}
		acts := []string{"work", "work", "work", "nothing", "nothing", "nothing", "break", "fix", "cheat", "cheat", "ralph", "ralph-new", "spec", "spec-new"}
		for i, k := 0, 1+g.rng.IntN(2); i < k; i++ {
			a.Acts = append(a.Acts, acts[g.rng.IntN(len(acts))])
		}
		a.Token, a.DoneFile = g.rng.IntN(2) == 0, g.rng.IntN(5) == 0
		g.agents = append(g.agents, a)
		if len(term.Argv) > 0 {
			g.prompts[a.Iteration] = append(g.prompts[a.Iteration], term.Argv[len(term.Argv)-1])
		}
		for _, act := range a.Acts {
			switch act {
			case "work":
				g.write("feature", fmt.Sprintf("feature v%d\n", g.rng.IntN(2)))
			case "break":
				g.write("broken", "broken\n")
			case "fix":
				g.write("broken", "")
			case "cheat": // the check script made to pass
				g.write("check.sh", "exit 0\n")
			case "ralph":
				g.write(".ralph/config", "# the agent's settings\n")
			case "ralph-new":
				g.write(".ralph/agent.txt", "the agent was here\n")
			case "spec":
				g.write("spec/cases.txt", "fewer cases\n")
			case "spec-new":
				g.write("spec/new.txt", "a case that always passes\n")
			}
		}
		g.work[a.Iteration] = g.unprotectedWork()
		term.Write("working on the goal\n")
		if a.DoneFile && g.u.cfg.DoneFile != "" {
			_ = os.WriteFile(g.u.cfg.DoneFile, nil, 0o644)
		}
		if a.Token {
			term.Write("all done\nRALPH_DONE_42\n")
		}
		if a.Exit >= 0 {
			term.Exit(a.Exit)
		} else {
			term.Write("> ")
		}
	}}
}

// answerAt names the judge's answer at call k (answer-last past the drawn ones).
func (g *simGoal) answerAt(k int) string {
	if k < len(g.answers) {
		return g.answers[k]
	}
	return "not-met"
}

// write makes the work's file rel hold data ("": none), and notes it.
func (g *simGoal) write(rel, data string) {
	full := filepath.Join(g.u.cfg.Dir, rel)
	if data == "" {
		_ = os.Remove(full)
	} else {
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		_ = os.WriteFile(full, []byte(data), 0o644)
	}
	g.model[rel] = data
}

// protected reports whether rel is one of the paths the loop must keep as
// the person left them (the test's own reading of the rules, not the loop's).
func (g *simGoal) protected(rel string) bool {
	cfg := g.u.cfg.Goal
	if !cfg.NoProtect && (strings.HasPrefix(rel, ".ralph/") || rel == "check.sh" && slices.Contains(g.checks, "sh check.sh")) {
		return true
	}
	switch g.glob {
	case "spec/**":
		return strings.HasPrefix(rel, "spec/")
	case "spec/*.txt":
		return strings.HasPrefix(rel, "spec/") && strings.HasSuffix(rel, ".txt") && !strings.Contains(rel[len("spec/"):], "/")
	}
	return false
}

// unprotectedWork is the work the loop leaves as the agents made it.
func (g *simGoal) unprotectedWork() string {
	var b strings.Builder
	for _, rel := range simGoalPaths {
		if !g.protected(rel) {
			fmt.Fprintf(&b, "%s=%q ", rel, g.model[rel])
		}
	}
	return b.String()
}

// parseTree reads a judge's dump of the tracked files: path → data, absent
// paths left out.
func parseTree(dump string) map[string]string {
	files := map[string]string{}
	cur := ""
	for _, line := range strings.SplitAfter(dump, "\n") {
		if line == "" {
			continue
		}
		body := strings.TrimSuffix(line, "\n")
		if len(body) > 1 && (body[0] == '=' || body[0] == '!') && slices.Contains(simGoalPaths, body[1:]) {
			cur = ""
			if body[0] == '=' {
				cur = body[1:]
				files[cur] = ""
			}
			continue
		}
		if cur != "" {
			files[cur] += line
		}
	}
	return files
}

// checksPass reports whether the checks pass on the tracked files as tree
// holds them, by what each check tests; and which fail.
func (g *simGoal) checksPass(tree map[string]string) (failing []string) {
	for _, c := range g.checks {
		switch c {
		case "sh check.sh":
			script, ok := tree["check.sh"]
			_, feature := tree["feature"]
			if !ok || script == "test -e feature\n" && !feature || script != "test -e feature\n" && script != "exit 0\n" {
				failing = append(failing, c)
			}
		case "test ! -e broken":
			if _, ok := tree["broken"]; ok {
				failing = append(failing, c)
			}
		}
	}
	return failing
}

// inputShowsChecksPassing reports whether a judge's input shows every
// check of the loop run and passing.
func (g *simGoal) inputShowsChecksPassing(input string) bool {
	_, section, ok := strings.Cut(input, "## The checks\n\n")
	if !ok {
		return false
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	if len(g.checks) == 0 {
		return strings.HasPrefix(section, "No checks are set.")
	}
	if strings.Contains(section, ", failed") || strings.Contains(section, "timed out") {
		return false
	}
	for _, c := range g.checks {
		if !strings.Contains(section, "### `"+c+"`: exit 0, passed") {
			return false
		}
	}
	return true
}

// The ends of a goal loop and their exit codes: done only when goal_met.
var simGoalEndings = map[contract.Reason][]int{
	contract.ReasonGoalMet: {contract.ExitDone}, contract.ReasonGoalStalemate: {contract.ExitLimit},
	contract.ReasonMaxIterations: {contract.ExitLimit, contract.ExitFailed},
	contract.ReasonPaused:        {contract.ExitInterrupted}, contract.ReasonStopped: {contract.ExitInterrupted},
	contract.ReasonConsecutiveFailures: {contract.ExitFailed},
}

func (g *simGoal) check(reason contract.Reason, code int) {
	t, u := g.t, g.u
	var inputs, trees []string
	for k := 0; ; k++ {
		in, err := os.ReadFile(filepath.Join(g.ctl, fmt.Sprintf("input-%d", k)))
		if err != nil {
			break
		}
		tree, _ := os.ReadFile(filepath.Join(g.ctl, fmt.Sprintf("tree-%d", k)))
		inputs, trees = append(inputs, string(in)), append(trees, string(tree))
	}
	st := u.state()
	describe := func() string {
		log, _ := os.ReadFile(u.store.Path(state.LogFile))
		g.mu.Lock()
		defer g.mu.Unlock()
		var b strings.Builder
		fmt.Fprintf(&b, "seed %d: checks %q, goal %+v, git %v, done file %q, continuous %v; the person: %v\n", g.seed, g.checks, u.cfg.Goal, g.git, u.cfg.DoneFile, u.cfg.CheckDoneContinuous, g.acted)
		fmt.Fprintf(&b, "judge answers %v; asked %d times\n", g.answers, len(inputs))
		for i, a := range g.agents {
			fmt.Fprintf(&b, "  agent %d: %+v\n", i+1, a)
		}
		fmt.Fprintf(&b, "verdicts: %+v\nlog:\n%s\noutput:\n%s", st.Verdicts, log, u.out.String())
		for k, in := range inputs {
			fmt.Fprintf(&b, "judge input %d:\n%s\ntree %d:\n%s", k, in, k, trees[k])
		}
		fmt.Fprintf(&b, "replay: go test ./watch -run TestSimulatedLoops -sim.only goal -sim.seed %d -v", g.seed)
		return b.String()
	}

	// (c) The ending is one of the loop's, with its exit code.
	if codes, ok := simGoalEndings[reason]; !ok || !slices.Contains(codes, code) {
		t.Errorf("goal loop ended %q with code %d: not an ending of a goal loop's\n%s", reason, code, describe())
	}
	// Each verdict is its judge's answer, or a failing check's with no judge
	// asked (d): the judge's calls are the verdicts not given by a check.
	// A judge timed out on a busy machine may be stopped before it keeps
	// its input: then the calls are fewer, and which verdict each
	// answered is not known (each call is checked on its own, below).
	asked, timeouts := 0, 0
	for _, v := range st.Verdicts {
		if !strings.HasPrefix(v.Reason, `check "`) {
			asked++
		}
		if v.Reason == judge.ReasonTimeout {
			timeouts++
		}
	}
	paired := asked == len(inputs)
	asked = 0
	for i, v := range st.Verdicts {
		if strings.HasPrefix(v.Reason, `check "`) {
			if v.Met {
				t.Errorf("verdict %d met with a failing check\n%s", i, describe())
			}
			continue
		}
		k := asked
		asked++
		if !paired {
			continue
		}
		want := simGoalAnswers[g.answerAt(k)]
		if v.Reason != judge.ReasonTimeout && (v.Met != want.met || v.Reason != want.why) { // a busy machine may time any judge out
			t.Errorf("verdict %d (judge call %d, iteration %d) met=%v %q; the judge answered met=%v %q\n%s", i, k, v.Iteration, v.Met, v.Reason, want.met, want.why, describe())
		}
		if v.Met && i != len(st.Verdicts)-1 {
			t.Errorf("verdict %d met, and the loop went on\n%s", i, describe())
		}
	}
	if asked != len(inputs) && (asked < len(inputs) || asked-len(inputs) > timeouts) {
		t.Errorf("%d verdicts asked the judge, it was called %d times\n%s", asked, len(inputs), describe())
	}
	for k := range inputs {
		if !strings.HasSuffix(trees[k], "#end\n") {
			if u.cfg.Goal.Judge.Timeout == 0 {
				t.Errorf("judge call %d did not finish its look at the work, with no timeout\n%s", k, describe())
			}
			continue // stopped by its timeout, on a busy machine, before it was done looking
		}
		tree := parseTree(strings.TrimSuffix(trees[k], "#end\n"))
		// (d) The judge is asked only when every check passes: its input says
		// so, and the files it finds make them pass.
		if !g.inputShowsChecksPassing(inputs[k]) {
			t.Errorf("judge call %d: its input does not show every check passing\n%s", k, describe())
		}
		if failing := g.checksPass(tree); len(failing) > 0 {
			t.Errorf("judge call %d: the checks %q fail on the work it was shown\n%s", k, failing, describe())
		}
		// (b) Every protected path holds the person's bytes at each call.
		for _, rel := range simGoalPaths {
			if !g.protected(rel) {
				continue
			}
			want, had := simGoalFiles[rel]
			got, has := tree[rel]
			if has != had || got != want {
				t.Errorf("judge call %d: protected %s holds %q (there: %v), the person's %q (there: %v)\n%s", k, rel, got, has, want, had, describe())
			}
		}
		goal := u.cfg.Goal.Goal
		if goal == "" {
			data, _ := os.ReadFile(u.cfg.Goal.GoalFile)
			goal = strings.TrimSpace(string(data))
		}
		if !strings.Contains(inputs[k], goal) {
			t.Errorf("judge call %d: the goal %q is not in its input\n%s", k, goal, describe())
		}
	}
	// (a) goal_met only after a met verdict, the judge's, whose input held
	// every check passing.
	if reason == contract.ReasonGoalMet {
		n := len(st.Verdicts)
		switch {
		case n == 0 || !st.Verdicts[n-1].Met:
			t.Errorf("goal_met with no met verdict last\n%s", describe())
		case len(inputs) == 0 || asked != len(inputs):
			t.Errorf("goal_met with no judge call to answer it\n%s", describe())
		case !simGoalAnswers[g.answerAt(len(inputs)-1)].met:
			t.Errorf("goal_met, the last judge call answered %s\n%s", g.answerAt(len(inputs)-1), describe())
		case !g.inputShowsChecksPassing(inputs[len(inputs)-1]):
			t.Errorf("goal_met on a judge input without every check passing\n%s", describe())
		}
	}
	// A stalemate is patience verdicts in a row, not met, naming the same,
	// the work unchanged; it needs git, which fingerprints the work.
	if reason == contract.ReasonGoalStalemate {
		p := u.cfg.Goal.Patience
		last := st.Verdicts[max(0, len(st.Verdicts)-p):]
		g.mu.Lock()
		for _, v := range last {
			switch {
			case !g.git:
				t.Errorf("goal_stalemate with no git to tell the work unchanged")
			case len(last) < p || v.Met || folded(v) != folded(last[0]):
				t.Errorf("goal_stalemate on verdicts %+v (patience %d)", last, p)
			case g.work[v.Iteration] != g.work[last[0].Iteration]:
				t.Errorf("goal_stalemate with the work changed: after iteration %d %s, after %d %s", last[0].Iteration, g.work[last[0].Iteration], v.Iteration, g.work[v.Iteration])
			}
		}
		g.mu.Unlock()
		if t.Failed() {
			t.Log(describe())
		}
	}
	// Every agent was given the goal, and the next iteration what the
	// judge (or a check) found missing.
	g.mu.Lock()
	for _, v := range st.Verdicts {
		next, ok := g.prompts[v.Iteration+1]
		if v.Met || !ok {
			continue
		}
		items := v.Missing
		if len(items) == 0 {
			items = []string{"the judge gave no verdict (" + v.Reason + ")"}
		}
		for _, item := range items {
			if !strings.Contains(next[0], "- "+strings.Join(strings.Fields(item), " ")) {
				t.Errorf("iteration %d was not told what iteration %d's verdict found missing, %q: %q", v.Iteration+1, v.Iteration, item, next[0])
			}
		}
	}
	var its []int
	for it := range g.prompts {
		its = append(its, it)
	}
	sort.Ints(its)
	for _, it := range its {
		for _, p := range g.prompts[it] {
			if goal := strings.TrimSpace(u.cfg.Goal.Goal); goal != "" && !strings.Contains(p, goal) {
				t.Errorf("the agent of iteration %d was not given the goal: %q", it, p)
			}
		}
	}
	g.mu.Unlock()
}

// folded is a verdict's missing parts (else its reason), case and spaces aside.
func folded(v state.Verdict) string {
	items := v.Missing
	if len(items) == 0 {
		items = []string{v.Reason}
	}
	var out []string
	for _, s := range items {
		out = append(out, strings.ToLower(strings.Join(strings.Fields(s), "")))
	}
	sort.Strings(out)
	return strings.Join(out, "\x00")
}
