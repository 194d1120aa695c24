package watch_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/doctor"
	"github.com/ralph-tmux/ralph.tmux/watch/fakeapi"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The harness of the real agents' tests: one loop of a real agent on a
// private server, against its own fake API (watch/fakeapi).

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

// waitsForItsLimit runs the loop until it waits for the agent's usage
// limit to reset (then interrupts it), checks that the iteration was not
// counted, and returns the state.
func (r *agentRun) waitsForItsLimit(timeout time.Duration) *state.State {
	r.t.Helper()
	res := r.runUntil(timeout, "waiting for limit reset")
	if res.Reason != "interrupted" {
		r.t.Errorf("result %+v, want the loop interrupted while it waits", res)
	}
	if out := r.out.String(); !strings.Contains(out, "usage limit reached (") {
		r.t.Errorf("output lacks the limit line")
	}
	st, err := r.store().Load()
	if err != nil {
		r.t.Fatal(err)
	}
	if st.CurrentIteration != 0 || st.ConsecutiveFailures != 0 {
		r.t.Errorf("state after the limit: iteration %d, failures %d; want 0 and 0", st.CurrentIteration, st.ConsecutiveFailures)
	}
	return st
}
