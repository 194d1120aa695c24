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
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/doctor"
	"github.com/ralph-tmux/ralph.tmux/watch/fakeapi"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
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
		if res.Code != words.ExitDone || res.Reason != "done_pattern" {
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
	if res.Code != words.ExitLimit || res.Reason != "max_iterations" {
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

// agentRun is one loop of a real agent on a private server, against its
// own fake API.
type agentRun struct {
	t     *testing.T
	fx    agentFixture
	srv   *tmuxtest.Server
	api   *fakeapi.Server
	log   string // the fake API's request log
	setup doctor.Setup
	cfg   watch.Config
	out   tmuxtest.Buffer
	proj  string
	wake  <-chan os.Signal // the turn-end hook wakes the loop
	ev    events           // what the loop learned, for the timings logged
}

// holdRealAgentPlace waits for a place among the real agents that all the
// tests run at once (tmuxtest.HoldAgentPlaces): a test that starts several
// runs, one after another, holds one.
func holdRealAgentPlace(t *testing.T) { tmuxtest.HoldAgentPlaces(t, 1) }

// newAgentRun prepares a server whose panes start the agent with no dialog
// (as doctor prepares it) against a fake API that answers every turn with
// reply. The loop uses the agent's profile and types the prompt, two
// iterations, each ending when the agent's turn does (inactivity is set
// beyond any test's timeout).
func newAgentRun(t *testing.T, fx agentFixture, exe, prompt, reply string) *agentRun {
	t.Helper()
	holdRealAgentPlace(t)
	srv := tmuxtest.Start(t)
	r := &agentRun{t: t, fx: fx, srv: srv, proj: filepath.Join(srv.Dir, "proj"), log: filepath.Join(srv.Dir, "api.log")}
	api, err := fakeapi.Start(fakeapi.Options{Reply: reply, Log: r.log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Close() })
	r.api = api
	if err := os.MkdirAll(r.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.proj, "plan.md"), []byte("# Plan\n\n- [x] task 1\n- [x] task 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server runs with HOME=srv.Dir/home.
	if r.setup, err = doctor.Prepare(fx.name, filepath.Join(srv.Dir, "home"), r.proj, api.URL); err != nil {
		t.Fatal(err)
	}
	env := append([]string{"NO_PROXY=127.0.0.1,localhost", "TMPDIR=" + filepath.Join(srv.Dir, "tmp")}, r.setup.Env...)
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		srv.Must("set-environment", "-g", name, value)
	}
	for _, name := range r.setup.Unset {
		_, _ = srv.Tmux("set-environment", "-g", "-u", name)
	}
	// Without focus events Claude Code shows, then hides, a notice about them
	// 10 and 18 s after it starts; that would only make the idle iterations longer.
	srv.Must("set-option", "-g", "focus-events", "on")

	profile, ok := agent.Lookup(fx.name)
	if !ok {
		t.Fatalf("no %s profile", fx.name)
	}
	promptFile := filepath.Join(srv.Dir, "PROMPT.md")
	if err := os.WriteFile(promptFile, []byte(prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	pane := srv.NewPane()
	// An agent may outlive its pane (Gemini CLI does): end it before the server.
	t.Cleanup(func() {
		if pid, err := srv.Tmux("display-message", "-p", "-t", pane, "#{pane_pid}"); err == nil {
			var n int
			if _, err := fmt.Sscan(pid, &n); err != nil {
				t.Fatal(err)
			}
			agent.EndTree(n, 3*time.Second)
		}
	})
	r.cfg = watch.Config{
		Name:                fx.name,
		Pane:                pane,
		Dir:                 r.proj,
		Command:             append([]string{exe}, r.setup.Last...),
		Agent:               profile,
		ReadyPattern:        profile.Ready,
		PromptFile:          promptFile,
		PromptMode:          agent.ModeType,
		MaxIterations:       2,
		InactivityTimeout:   10 * time.Minute,
		PollInterval:        500 * time.Millisecond,
		ReadyTimeout:        90 * time.Second,
		Lines:               20,
		DonePattern:         regexp.MustCompile(`RALPH_DONE_[0-9]+`),
		CheckDoneContinuous: true,
		AgentHome:           filepath.Join(srv.Dir, "home"),
	}
	return r
}

// env is the NAME=value the agent runs with, from its setup.
func (r *agentRun) env(name string) string {
	for _, kv := range r.setup.Env {
		if strings.HasPrefix(kv, name+"=") {
			return kv
		}
	}
	r.t.Fatalf("%s runs without %s", r.fx.name, name)
	return ""
}

// withoutProfile makes the loop a generic one: ready when the screen is
// still, each turn ended by 12 s of inactivity.
func (r *agentRun) withoutProfile() {
	r.cfg.Agent = agent.Profile{}
	r.cfg.ReadyPattern = nil
	r.cfg.InactivityTimeout = 12 * time.Second
	r.cfg.ReadyTimeout = 60 * time.Second
}

// endTurns sets the loop up to learn of each turn's end as end says.
func (r *agentRun) endTurns(end turnEnd, wake <-chan os.Signal, token bool) {
	switch {
	case !end.profile && token:
		r.withoutProfile()
		r.cfg.InactivityTimeout = 30 * time.Second // a slow start is no reason to restart
	case !end.profile:
		r.withoutProfile()
	case end.hook:
		r.useTurnHook(wake)
	}
}

// turnHookWake wakes a loop when an agent's hook calls back: every call
// gets every SIGUSR1 of the process, so each loop needs its own.
func turnHookWake(t *testing.T) <-chan os.Signal {
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGUSR1)
	t.Cleanup(func() { signal.Stop(wake) })
	return wake
}

// useTurnHook makes the loop install the agent's own turn-end hook.
func (r *agentRun) useTurnHook(wake <-chan os.Signal) {
	r.cfg.TurnHook = true
	r.cfg.Executable = tmuxtest.Build(r.t, "cmd/ralph-watch")
	r.wake = wake
}

// run runs the loop to its end, failing the test if it takes over timeout.
func (r *agentRun) run(timeout time.Duration) watch.Result {
	r.t.Helper()
	return r.runUntil(timeout, "")
}

// runUntil runs the loop until it ends or, when stop is not empty, until
// its output shows stop (then it interrupts the loop), failing the test if
// neither happens within timeout.
func (r *agentRun) runUntil(timeout time.Duration, stop string) watch.Result {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	interrupt, stopped := context.WithCancel(ctx)
	defer stopped()
	if stop != "" {
		go func() {
			for interrupt.Err() == nil && !strings.Contains(r.out.String(), stop) {
				time.Sleep(200 * time.Millisecond)
			}
			stopped()
		}()
	}
	cfg := r.cfg
	cfg.Events = r.ev.add
	loop := &watch.Loop{Config: cfg, Tmux: r.srv.Client, Store: r.store(), Out: &r.out, Err: &r.out, Wake: r.wake}
	started := time.Now()
	res := loop.Run(interrupt)
	r.t.Logf("loop ended after %s: %+v\n%s", time.Since(started).Round(100*time.Millisecond), res, r.out.String())
	r.t.Logf("timings (since the agent's start):\n%s", r.ev.timings())
	if ctx.Err() != nil {
		r.t.Fatalf("loop still running after %s", timeout)
	}
	return res
}

// store is the loop's state folder.
func (r *agentRun) store() *state.Store {
	r.t.Helper()
	store, err := state.Open(filepath.Join(r.srv.Dir, "state"), r.cfg.Name)
	if err != nil {
		r.t.Fatal(err)
	}
	return store
}

// explain logs what the pane shows, for a failed test.
func (r *agentRun) explain() {
	if r.t.Failed() {
		r.t.Logf("pane:\n%s", r.srv.Capture(r.cfg.Pane))
		data, _ := os.ReadFile(r.log)
		r.t.Logf("api log:\n%s", data)
	}
}

// prompts returns what the agent's turns received, failing the test for a
// turn in another protocol than the agent's.
func (r *agentRun) prompts() []string {
	r.t.Helper()
	var got []string
	for _, req := range r.api.Requests() {
		if req.Tools > 0 && len(req.Texts) > 0 && !req.Result {
			if req.Provider != r.fx.protocol {
				r.t.Errorf("%s spoke %s to the fake API (%s), want %s", r.fx.title, req.Provider, req.Path, r.fx.protocol)
			}
			text := unwrapPaste(req.Texts[len(req.Texts)-1])
			if r.fx.unwrap != nil {
				text = r.fx.unwrap(text)
			}
			got = append(got, text)
		}
	}
	return got
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
		ready, readyVia, _ := r.ev.first(i, words.EventReady)
		turnEnd, endVia, _ := r.ev.first(i, words.EventTurnEnd)
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
