package watch_test

// Integration tests against a real Codex CLI, run offline like the Claude
// Code ones (claude_test.go): its model provider is testdata/fakeapi on
// loopback. They are skipped unless a codex executable is found
// ($RALPH_TEST_CODEX, else codex on PATH). Checked with Codex 0.169.0.

import (
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
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// codexExecutable finds Codex or skips the test.
func codexExecutable(t *testing.T) string {
	t.Helper()
	return realAgent(t, "Codex", "RALPH_TEST_CODEX", "codex")
}

// newCodexRun prepares a server whose panes start Codex with no dialog (a
// trusted folder, a model provider needing no login, no daemon) against a
// fake API; args start it (-reply TEXT or -reply-file FILE). The loop uses
// the codex profile and types the prompt.
func newCodexRun(t *testing.T, codex, prompt string, args ...string) *claudeRun {
	t.Helper()
	srv := tmuxtest.Start(t)
	r := &claudeRun{t: t, srv: srv, proj: filepath.Join(srv.Dir, "proj")}
	r.api = startFakeAPI(t, srv.Dir, args...)
	if err := os.MkdirAll(r.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.proj, "plan.md"), []byte("# Plan\n\n- [x] task 1\n- [x] task 2\n"), 0o644)
	config := fmt.Sprintf(`model = "gpt-5.2-codex"
model_provider = "fake"

[model_providers.fake]
name = "Fake"
base_url = "%s/v1"
env_key = "FAKE_OPENAI_API_KEY"
wire_api = "responses"

[projects.%q]
trust_level = "trusted"
`, r.api.URL, r.proj)
	codexHome := filepath.Join(srv.Dir, "home", ".codex") // the server runs with HOME=srv.Dir/home
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.Must("set-environment", "-g", "FAKE_OPENAI_API_KEY", "sk-test-ralph-watch")
	srv.Must("set-environment", "-g", "NO_PROXY", "127.0.0.1,localhost")
	// Whatever of the developer's own setup could send Codex elsewhere.
	for _, name := range []string{"CODEX_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL", "HTTP_PROXY", "HTTPS_PROXY",
		"http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"} {
		srv.Tmux("set-environment", "-g", "-u", name)
	}
	srv.Must("set-option", "-g", "focus-events", "on")
	r.cfg = agentConfig(t, srv, "codex", prompt, []string{codex, "--no-daemon"}) // a daemon would outlive the pane
	return r
}

// agentConfig is the loop of a real agent under its own profile: the prompt
// typed, two iterations, each ending when the agent's turn does (inactivity
// is set beyond any test's timeout).
func agentConfig(t *testing.T, srv *tmuxtest.Server, name, prompt string, command []string) watch.Config {
	t.Helper()
	profile, ok := agent.Lookup(name)
	if !ok {
		t.Fatalf("no %s profile", name)
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
			fmt.Sscan(pid, &n)
			agent.EndTree(n, 3*time.Second)
		}
	})
	return watch.Config{
		Name:                name,
		Pane:                pane,
		Dir:                 filepath.Join(srv.Dir, "proj"),
		Command:             command,
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
	}
}

// turnHookWake wakes the loops of a test when an agent's hook calls back.
func turnHookWake(t *testing.T) <-chan os.Signal {
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGUSR1)
	t.Cleanup(func() { signal.Stop(wake) })
	return wake
}

// useTurnHook makes the loop install the agent's own turn-end hook.
func (r *claudeRun) useTurnHook(wake <-chan os.Signal) {
	r.cfg.TurnHook = true
	r.cfg.Executable = tmuxtest.Build(r.t, "cmd/ralph-watch")
	r.wake = wake
}

// wantHookEnded checks that the agent's hook reported the end of iteration n.
func (r *claudeRun) wantHookEnded(n int) {
	r.t.Helper()
	store, err := state.Open(filepath.Join(r.srv.Dir, "state"), r.cfg.Name)
	if err != nil {
		r.t.Fatal(err)
	}
	if rec, ok := agent.ReadHook(store, agent.HookTurnEnd); !ok || rec.Iteration != n {
		r.t.Errorf("the turn-end hook last reported %+v (%v), want iteration %d", rec, ok, n)
	}
}

// With the codex profile each turn ends when Codex is done with it: by its
// notify program (which also fires for its title side thread: that one must
// not end the turn), or by its "Worked for" line when the hook is off; never
// by inactivity. A reply with the token stops the loop; the prompt, which
// shows the token too, never does.
func TestCodexRunsTwoIterationsEndingEachAtTheTurnsEnd(t *testing.T) {
	codex := codexExecutable(t)
	tmuxtest.Require(t)
	tmuxtest.Build(t, "testdata/fakeapi") // once, before the parallel runs
	tmuxtest.Build(t, "cmd/ralph-watch")
	wake := turnHookWake(t)
	// Codex sends a pasted prompt trimmed of its trailing newline.
	sent := strings.TrimRight(claudePrompt, "\n")
	for _, hook := range []bool{true, false} {
		t.Run(fmt.Sprintf("no token, turn hook %v", hook), func(t *testing.T) {
			t.Parallel()
			r := newCodexRun(t, codex, claudePrompt, "-reply", "Still working on it.")
			defer r.explain()
			if hook {
				r.useTurnHook(wake)
			}
			res := r.run(240 * time.Second)
			if res.Code != watch.ExitLimit || res.Reason != "max_iterations" {
				t.Errorf("result %+v, want exit 3 max_iterations", res)
			}
			out := r.out.String()
			if n := strings.Count(out, "completed (turn ended"); n != 2 {
				t.Errorf("%d turns ended, want 2", n)
			}
			if strings.Contains(out, "done pattern matched") {
				t.Errorf("the echoed prompt stopped the loop")
			}
			r.wantPrompts(2, sent)
			if hook {
				r.wantHookEnded(2)
			}
		})
		t.Run(fmt.Sprintf("token, turn hook %v", hook), func(t *testing.T) {
			t.Parallel()
			r := newCodexRun(t, codex, claudePrompt, "-reply", "All tasks complete.\nRALPH_DONE_42")
			defer r.explain()
			if hook {
				r.useTurnHook(wake)
			}
			res := r.run(180 * time.Second)
			if res.Code != watch.ExitDone || res.Reason != "done_pattern" {
				t.Errorf("result %+v, want exit 0 done_pattern", res)
			}
			if !strings.Contains(r.out.String(), "done pattern matched, stopping loop") {
				t.Errorf("output lacks the done line")
			}
			r.wantPrompts(1, sent)
		})
	}
}

// At a usage limit Codex says "You’ve hit your usage limit. … try again at
// 9:47 AM." (and opens a dialog offering another model): the loop waits for
// that time, the iteration not counted, and types nothing into the dialog.
func TestCodexUsageLimitWaitsForTheResetTimeItShows(t *testing.T) {
	codex := codexExecutable(t)
	t.Parallel()
	reset := time.Now().Add(20 * time.Minute)
	r := newCodexRun(t, codex, claudePrompt, "-reply", "!limit 1200")
	defer r.explain()
	res := r.runUntil(180*time.Second, "waiting for limit reset")
	if res.Reason != "interrupted" {
		t.Errorf("result %+v, want the loop interrupted while it waits", res)
	}
	out := r.out.String()
	if !strings.Contains(out, "usage limit reached (") {
		t.Errorf("output lacks the limit line")
	}
	// Codex shows the reset to the minute (the fake sets it as the request
	// comes, a little after reset); the loop waits until then.
	shown := regexp.MustCompile(`waiting for limit reset \((\d\d:\d\d)\)`).FindStringSubmatch(out)
	near := false
	for d := -time.Minute; d <= 3*time.Minute && shown != nil; d += time.Minute {
		near = near || shown[1] == reset.Add(d).Format("15:04")
	}
	if !near {
		t.Errorf("loop waits until %v, want about %s (the reset Codex shows)", shown, reset.Format("15:04"))
	}
	store, err := state.Open(filepath.Join(r.srv.Dir, "state"), r.cfg.Name)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if st.CurrentIteration != 0 || st.ConsecutiveFailures != 0 || st.WaitingUntil == "" {
		t.Errorf("state after the limit: iteration %d, failures %d, waiting until %q; want 0, 0 and the reset",
			st.CurrentIteration, st.ConsecutiveFailures, st.WaitingUntil)
	}
	log, _ := os.ReadFile(store.Path("iterations.log"))
	if !strings.Contains(string(log), "LIMIT") {
		t.Errorf("iterations.log lacks the LIMIT line:\n%s", log)
	}
	if got := r.api.prompts(t); len(got) != 1 {
		t.Errorf("Codex sent %d turns, want 1 (nothing typed into its limit dialog): %q", len(got), got)
	}
}
