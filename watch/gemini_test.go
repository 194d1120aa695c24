package watch_test

// Integration tests against a real Gemini CLI, run offline like the Claude
// Code ones (claude_test.go): its API is testdata/fakeapi on loopback. They
// are skipped unless a gemini executable is found ($RALPH_TEST_GEMINI, else
// gemini on PATH). Checked with Gemini CLI 0.61.0.

import (
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// geminiExecutable finds Gemini CLI or skips the test.
func geminiExecutable(t *testing.T) string {
	t.Helper()
	return realAgent(t, "Gemini CLI", "RALPH_TEST_GEMINI", "gemini")
}

// newGeminiRun prepares a server whose panes start Gemini CLI with no
// dialog (API key auth chosen, folder trusted) against a fake API answering
// every turn with reply. The loop uses the gemini profile and types the prompt.
func newGeminiRun(t *testing.T, gemini, prompt, reply string) *claudeRun {
	t.Helper()
	srv := tmuxtest.Start(t)
	r := &claudeRun{t: t, srv: srv, proj: filepath.Join(srv.Dir, "proj")}
	r.api = startClaudeAPI(t, srv.Dir, reply)
	if err := os.MkdirAll(r.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.proj, "plan.md"), []byte("# Plan\n\n- [x] task 1\n- [x] task 2\n"), 0o644)
	trusted := map[string]string{r.proj: "TRUST_FOLDER"}
	if real, err := filepath.EvalSymlinks(r.proj); err == nil {
		trusted[real] = "TRUST_FOLDER"
	}
	dir := filepath.Join(srv.Dir, "home", ".gemini") // the server runs with HOME=srv.Dir/home
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{
		"settings.json":       map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}},
		"trustedFolders.json": trusted,
	} {
		b, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range [][2]string{
		{"GEMINI_API_KEY", "test-ralph-watch-key"},
		{"GOOGLE_GEMINI_BASE_URL", r.api.URL},
		{"TMPDIR", filepath.Join(srv.Dir, "tmp")}, // its error reports go there
		{"NO_PROXY", "127.0.0.1,localhost"},
	} {
		srv.Must("set-environment", "-g", kv[0], kv[1])
	}
	// Whatever of the developer's own setup could send Gemini CLI elsewhere.
	for _, name := range []string{"GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_GENAI_USE_VERTEXAI",
		"GOOGLE_GENAI_USE_GCA", "GOOGLE_APPLICATION_CREDENTIALS", "GEMINI_MODEL", "GEMINI_CLI_HOME",
		"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"} {
		srv.Tmux("set-environment", "-g", "-u", name)
	}
	srv.Must("set-option", "-g", "focus-events", "on")
	r.cfg = agentConfig(t, srv, "gemini", prompt, []string{gemini})
	return r
}

// With the gemini profile each turn ends when Gemini CLI is done with it,
// as its screen tells (the Thinking line gone, the input box back); never
// by inactivity. A reply with the token stops the loop; the prompt, which
// shows the token too, never does.
func TestGeminiRunsTwoIterationsEndingEachAtTheTurnsEnd(t *testing.T) {
	gemini := geminiExecutable(t)
	tmuxtest.Require(t)
	tmuxtest.Build(t, "testdata/fakeapi") // once, before the parallel runs
	// Gemini CLI sends a pasted prompt trimmed of its trailing newline.
	sent := strings.TrimRight(claudePrompt, "\n")

	t.Run("no token", func(t *testing.T) {
		t.Parallel()
		r := newGeminiRun(t, gemini, claudePrompt, "Still working on it.")
		defer r.explain()
		res := r.run(300 * time.Second)
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
	})
	t.Run("token", func(t *testing.T) {
		t.Parallel()
		r := newGeminiRun(t, gemini, claudePrompt, "All tasks complete.\nRALPH_DONE_42")
		defer r.explain()
		res := r.run(240 * time.Second)
		if res.Code != watch.ExitDone || res.Reason != "done_pattern" {
			t.Errorf("result %+v, want exit 0 done_pattern", res)
		}
		if !strings.Contains(r.out.String(), "done pattern matched, stopping loop") {
			t.Errorf("output lacks the done line")
		}
		r.wantPrompts(1, sent)
	})
}

// Gemini CLI's hooks cannot be added for one run (see NOTES.md), but a
// person can configure them once: `ralph-watch hook NAME` with no --state
// finds the loop by the RALPH_NAME and RALPH_STATE_DIR every looped agent
// has. Then each turn ends by its AfterAgent hook, not its screen.
func TestGeminiHooksConfiguredByHandEndEachTurn(t *testing.T) {
	gemini := geminiExecutable(t)
	tmuxtest.Require(t)
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGUSR1)
	defer signal.Stop(wake)
	r := newGeminiRun(t, gemini, claudePrompt, "Still working on it.")
	defer r.explain()
	exe := tmuxtest.Build(t, "cmd/ralph-watch")
	hooks := map[string]any{}
	for event, name := range map[string]string{"SessionStart": agent.HookSessionStart, "BeforeAgent": agent.HookPromptSubmit,
		"AfterAgent": agent.HookTurnEnd, "Notification": agent.HookNeedsInput} {
		hooks[event] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": exe + " hook " + name}}}}
	}
	settings, _ := json.Marshal(map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"hooks":    hooks,
	})
	if err := os.WriteFile(filepath.Join(r.srv.Dir, "home", ".gemini", "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	r.wake = wake
	res := r.run(300 * time.Second)
	if res.Code != watch.ExitLimit || res.Reason != "max_iterations" {
		t.Errorf("result %+v, want exit 3 max_iterations", res)
	}
	for i := 1; i <= 2; i++ {
		end, via, _ := r.ev.first(i, watch.EventTurnEnd)
		ready, readyVia, _ := r.ev.first(i, watch.EventReady)
		t.Logf("iteration %d: ready at %s (%s), turn end at %s (%s)", i, ready.Round(time.Millisecond), readyVia, end.Round(time.Millisecond), via)
		if via != watch.ViaHook {
			t.Errorf("iteration %d: turn ended by %q, want by its hook", i, via)
		}
	}
	r.wantPrompts(2, strings.TrimRight(claudePrompt, "\n"))
}
