package watch_test

// Integration tests against the real agents (Claude Code, Codex, Gemini
// CLI), run offline: each agent's model API is watch/fakeapi on loopback,
// which answers every turn with a canned reply and records the prompt each
// request carried. Each agent is described once, by its fixture
// (agents_claude_test.go, agents_codex_test.go, agents_gemini_test.go), and
// set up as `ralph-watch doctor` sets it up (doctor.Prepare). A test is
// skipped unless its tier runs real agents (make test-agents) and the
// agent's executable is found (tmuxtest.Agent: $RALPH_TEST_<AGENT>, else its
// program on PATH); testdata/agents/install fetches the pinned releases.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// loopPrompt is the prompt of the loops; its own text holds the done token.
const loopPrompt = "Read the plan. When every task is finished, print RALPH_DONE_42 on a line of its own.\n"

// agentFixture is what the tests know of one real agent.
type agentFixture struct {
	name     string        // its profile, its program and its doctor setup: claude, codex, gemini
	title    string        // as people call it
	protocol string        // the fake API's protocol it speaks (fakeapi.Request.Provider)
	ends     []turnEnd     // the ways its turns end that the table test tries
	timeout  time.Duration // bound of a loop of two iterations
	// newline: it sends the pasted prompt with its trailing newline
	newline bool
	unwrap  func(string) string // what it adds around the prompt, taken off; nil: nothing
	// receipts: each iteration's receipt must hold the model's tokens,
	// "always" or only with the turn "hook" (OpenCode's plugin writes them);
	// "": not checked
	receipts string
	// doneReceipt: with its hook, the iteration the reply's token ends has
	// a receipt that counts its turn, though the agent writes the turn to
	// its transcript a moment after the hook (Claude Code does)
	doneReceipt bool
	// settings: the person's settings file (under HOME) that a loop
	// installing the agent's hooks must leave as it was ("": not checked)
	settings string
}

// turnEnd is one way a loop learns that the agent's turn is over.
type turnEnd struct {
	name    string   // in the subtest's name
	profile bool     // the loop uses the agent's profile; without it only inactivity ends a turn
	hook    bool     // the loop installs the agent's turn-end hook
	via     string   // how the turn end must be known ("": not checked)
	ready   []string // how readiness may be known (none: not checked)
}

// byHookOrScreen are the two ways the table test ends an agent's turns
// where its profile is all it needs: by the agent's turn-end hook, and by
// its screen with the hook off.
var byHookOrScreen = []turnEnd{
	{name: "turn hook true", profile: true, hook: true, via: contract.ViaHook},
	{name: "turn hook false", profile: true, via: contract.ViaScreen},
}

// find returns the agent's executable or skips the test (tmuxtest.Agent).
func (fx agentFixture) find(t *testing.T) string {
	t.Helper()
	return tmuxtest.Agent(t, fx.name)
}

// The same two cases for every agent and every way its turns end: a reply
// with the token stops the loop; a reply without it runs both iterations,
// each ended as the way says, and the prompt, which shows the token too,
// never stops the loop.
func TestRealAgentsEndEachTurnAndStopOnlyOnTheRepliedToken(t *testing.T) {
	t.Parallel()
	for _, fx := range []agentFixture{claudeCode, codexCLI, geminiCLI, openCode, copilotCLI} {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel() // the agents side by side: holdRealAgentPlace bounds how many run at once
			exe := fx.find(t)
			tmuxtest.Build(t, "cmd/ralph-watch") // once, before the parallel runs
			for _, end := range fx.ends {
				for _, token := range []bool{false, true} {
					name := map[bool]string{false: ", no token", true: ", token"}[token]
					t.Run(end.name+name, func(t *testing.T) {
						t.Parallel()
						reply := map[bool]string{false: "Still working on it.", true: "All tasks complete.\nRALPH_DONE_42"}[token]
						r := newAgentRun(t, fx, exe, loopPrompt, reply)
						defer r.explain()
						settings := r.personsSettings()
						r.endTurns(end, turnHookWake(t), token) // a wake of its own: a shared one wakes one loop of many
						r.wantRepliedTokenOnly(r.run(fx.timeout), end, token)
						if end.hook {
							r.wantSettingsUnchanged(settings)
						}
					})
				}
			}
		})
	}
}

// wantRepliedTokenOnly checks a loop of two iterations: the token stopped it
// in the first, or it ran both, each ended as end says, and the prompt,
// which shows the token too, never stopped it.
func (r *agentRun) wantRepliedTokenOnly(res watch.Result, end turnEnd, token bool) {
	r.t.Helper()
	out := r.out.String()
	if token {
		if res.Code != contract.ExitDone || res.Reason != "done_pattern" {
			r.t.Errorf("result %+v, want exit 0 done_pattern", res)
		}
		if !strings.Contains(out, "done pattern matched, stopping loop") {
			r.t.Errorf("output lacks the done line")
		}
		r.wantPrompts(1, strings.TrimRight(loopPrompt, "\n"))
		if end.hook && r.fx.doneReceipt {
			r.wantDoneReceipt()
		}
		return
	}
	if res.Code != contract.ExitLimit || res.Reason != "max_iterations" {
		r.t.Errorf("result %+v, want exit 3 max_iterations", res)
	}
	ended := "completed (turn ended"
	if !end.profile {
		ended = "inactivity timeout (12s), restarting"
	}
	if n := strings.Count(out, ended); n != 2 {
		r.t.Errorf("%d iterations ended by %q, want 2", n, ended)
	}
	if strings.Contains(out, "done pattern matched") {
		r.t.Errorf("the echoed prompt stopped the loop")
	}
	// Each agent sends a pasted prompt trimmed of its trailing newline.
	r.wantPrompts(2, strings.TrimRight(loopPrompt, "\n"))
	if end.hook {
		r.wantHookEnded(2)
	}
	if r.fx.receipts == "always" || r.fx.receipts == "hook" && end.hook {
		r.wantReceipts(2)
	}
	r.wantVia(2, end)
}

// wantReceipts checks that each of n iterations left a receipt with the
// model's tokens, as the agent reported them.
func (r *agentRun) wantReceipts(n int) {
	r.t.Helper()
	rs, err := receipt.Load(r.store().Path(state.ReceiptsFile))
	if err != nil || len(rs) != n {
		r.t.Fatalf("%d receipts (%v), want %d", len(rs), err, n)
	}
	for _, rc := range rs {
		if rc.Usage.Turns < 1 || rc.Usage.Input < 1 || rc.Usage.Output < 1 {
			r.t.Errorf("iteration %d's receipt has no model turn: %+v (from %q)", rc.Iteration, rc.Usage, rc.Source)
		}
	}
}

// wantDoneReceipt checks that the iteration the token ended has a receipt
// with its turn's tokens (the fake API bills 100 tokens in per request).
func (r *agentRun) wantDoneReceipt() {
	r.t.Helper()
	rs, err := receipt.Load(r.store().Path(state.ReceiptsFile))
	if err != nil {
		r.t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Source == "" || rs[0].Usage.Input+rs[0].Usage.CacheRead+rs[0].Usage.CacheWrite < 100 || rs[0].Usage.Output == 0 {
		r.t.Errorf("receipts = %+v, want iteration 1 with its turn's tokens", rs)
	}
}

// personsSettings reads the person's settings file of the agent (its
// fixture's settings), as it is before the loop.
func (r *agentRun) personsSettings() []byte {
	if r.fx.settings == "" {
		return nil
	}
	before, _ := os.ReadFile(filepath.Join(r.srv.Dir, "home", r.fx.settings))
	return before
}

// wantSettingsUnchanged checks that the loop, which gave the agent its
// hooks, left the person's settings file as it was.
func (r *agentRun) wantSettingsUnchanged(before []byte) {
	r.t.Helper()
	if r.fx.settings == "" {
		return
	}
	path := filepath.Join(r.srv.Dir, "home", r.fx.settings)
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		r.t.Errorf("the person's %s changed:\n%s\nto\n%s", path, before, after)
	}
}

// wantPrompts checks that n turns reached the API, each with want, once.
func (r *agentRun) wantPrompts(n int, want string) {
	r.t.Helper()
	got := r.prompts()
	if r.fx.newline {
		want += "\n"
	}
	if len(got) != n {
		r.t.Errorf("%s sent %d turns to the API, want %d: %q", r.fx.title, len(got), n, got)
	}
	for i, p := range got {
		if p != want {
			r.t.Errorf("turn %d received %q, want %q", i+1, p, want)
		}
	}
}

// wantHookEnded checks that the agent's hook reported the end of iteration n.
func (r *agentRun) wantHookEnded(n int) {
	r.t.Helper()
	if rec, ok := agent.ReadHook(r.store(), agent.HookTurnEnd); !ok || rec.Iteration != n {
		r.t.Errorf("the turn-end hook last reported %+v (%v), want iteration %d", rec, ok, n)
	}
}

// wantVia checks how the first n iterations were known ready and ended.
func (r *agentRun) wantVia(n int, end turnEnd) {
	r.t.Helper()
	for i := 1; i <= n; i++ {
		ready, readyVia, _ := r.ev.first(i, contract.EventReady)
		turnEnd, endVia, _ := r.ev.first(i, contract.EventTurnEnd)
		r.t.Logf("iteration %d: ready at %s (%s), turn end at %s (%s)",
			i, ready.Round(time.Millisecond), readyVia, turnEnd.Round(time.Millisecond), endVia)
		if len(end.ready) > 0 && !slices.Contains(end.ready, readyVia) {
			r.t.Errorf("iteration %d ready by %q, want one of %q", i, readyVia, end.ready)
		}
		if end.via != "" && endVia != end.via {
			r.t.Errorf("iteration %d: turn ended by %q, want %q", i, endVia, end.via)
		}
	}
}
