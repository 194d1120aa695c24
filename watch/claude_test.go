package watch_test

// Integration tests against a real Claude Code, run offline: its API is
// testdata/fakeapi on loopback, which streams a canned reply and logs the
// prompt each request carried. They are skipped unless a claude executable is
// found ($RALPH_TEST_CLAUDE, else claude on PATH).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
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

// claudePrompt is the prompt of the ralph loop; its own text holds the token.
const claudePrompt = "Read the plan. When every task is finished, print RALPH_DONE_42 on a line of its own.\n"

// claudeKey is a fake API key; Claude Code approves a key by its last 20 characters.
const claudeKey = "sk-ant-test-ralph-watch-0123456789abcdefghij"

// claudeExecutable finds Claude Code or skips the test.
func claudeExecutable(t *testing.T) string {
	t.Helper()
	return realAgent(t, "Claude Code", "RALPH_TEST_CLAUDE", "claude")
}

// realAgent finds a real agent ($variable, else program on PATH) or skips the test.
func realAgent(t *testing.T, what, variable, program string) string {
	t.Helper()
	if testing.Short() {
		t.Skip(what + " test skipped in -short mode")
	}
	if p := os.Getenv(variable); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", variable, err)
		}
		return p
	}
	p, err := exec.LookPath(program)
	if err != nil {
		t.Skipf("no %s executable (set %s=/path/to/%s)", program, variable, program)
	}
	return p
}

// claudeAPI is a running testdata/fakeapi (it speaks each agent's API).
type claudeAPI struct {
	URL string
	log string
}

// startClaudeAPI starts testdata/fakeapi replying reply, logging to dir.
func startClaudeAPI(t *testing.T, dir, reply string) *claudeAPI {
	t.Helper()
	return startFakeAPI(t, dir, "-reply", reply)
}

// startFakeAPI starts testdata/fakeapi with args, logging to dir.
func startFakeAPI(t *testing.T, dir string, args ...string) *claudeAPI {
	t.Helper()
	bin := tmuxtest.Build(t, "testdata/fakeapi")
	api := &claudeAPI{log: filepath.Join(dir, "api.log")}
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0", "-log", api.log}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		first <- strings.TrimSpace(line)
		io.Copy(io.Discard, out)
	}()
	select {
	case api.URL = <-first:
	case <-time.After(20 * time.Second):
		t.Fatal("fake API did not start")
	}
	if !strings.HasPrefix(api.URL, "http://127.0.0.1:") {
		t.Fatalf("fake API printed %q, want its URL", api.URL)
	}
	return api
}

// claudeRequest is one logged /v1/messages request.
type claudeRequest struct {
	N     int      `json:"n"`
	Tools int      `json:"tools"`
	Texts []string `json:"texts"`
}

// prompts returns what the agent's turns received: the last text block of the
// last user message of each request that offered tools (the main loop, not
// the side requests Claude Code makes, such as the session title).
func (a *claudeAPI) prompts(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(a.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r claudeRequest
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("api log: %v: %q", err, line)
		}
		if r.Tools > 0 && len(r.Texts) > 0 {
			got = append(got, unwrapPaste(r.Texts[len(r.Texts)-1]))
		}
	}
	return got
}

// pastedContent is how Claude Code 2.1.330 sends a long paste: the text,
// byte for byte, between tags.
var pastedContent = regexp.MustCompile(`(?s)^\n*<pasted_content id="([^"]+)">\n(.*)</pasted_content id="([^"]+)">\n$`)

// unwrapPaste returns the pasted text of a turn, without the tags.
func unwrapPaste(text string) string {
	if m := pastedContent.FindStringSubmatch(text); m != nil && m[1] == m[3] {
		return m[2]
	}
	return text
}

// claudeRun is one loop of Claude Code on a private server.
type claudeRun struct {
	t    *testing.T
	srv  *tmuxtest.Server
	api  *claudeAPI
	cfg  watch.Config
	out  tmuxtest.Buffer
	proj string
	wake <-chan os.Signal // the turn-end hook wakes the loop
	ev   events           // what the loop learned, for the timings logged
}

// newClaudeRun prepares a server whose panes start Claude Code with no
// dialog (onboarding done, folder trusted, key approved) against a fake API
// that answers every turn with reply.
func newClaudeRun(t *testing.T, claude, prompt, reply string) *claudeRun {
	t.Helper()
	srv := tmuxtest.Start(t)
	r := &claudeRun{t: t, srv: srv, proj: filepath.Join(srv.Dir, "proj")}
	r.api = startClaudeAPI(t, srv.Dir, reply)
	if err := os.MkdirAll(r.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.proj, "plan.md"), []byte("# Plan\n\n- [x] task 1\n- [x] task 2\n"), 0o644)

	projects := map[string]any{r.proj: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}
	if real, err := filepath.EvalSymlinks(r.proj); err == nil {
		projects[real] = projects[r.proj]
	}
	config, _ := json.MarshalIndent(map[string]any{
		"hasCompletedOnboarding": true,
		"theme":                  "dark",
		"customApiKeyResponses":  map[string]any{"approved": []string{claudeKey[len(claudeKey)-20:]}, "rejected": []string{}},
		"projects":               projects,
	}, "", "  ")
	// The server was started with HOME=srv.Dir/home.
	if err := os.WriteFile(filepath.Join(srv.Dir, "home", ".claude.json"), config, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{"ANTHROPIC_API_KEY", claudeKey},
		{"ANTHROPIC_BASE_URL", r.api.URL},
		{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"},
		{"DISABLE_AUTOUPDATER", "1"},
		{"DISABLE_TELEMETRY", "1"},
		{"NO_PROXY", "127.0.0.1,localhost"},
	} {
		srv.Must("set-environment", "-g", kv[0], kv[1])
	}
	// Whatever of the developer's own setup could send Claude elsewhere.
	for _, name := range []string{"ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CONFIG_DIR",
		"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "ANTHROPIC_MODEL", "HTTP_PROXY", "HTTPS_PROXY",
		"http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"} {
		srv.Tmux("set-environment", "-g", "-u", name)
	}
	// Without focus events Claude Code shows, then hides, a notice about them
	// 10 and 18 s after it starts; that would only make the idle iterations longer.
	srv.Must("set-option", "-g", "focus-events", "on")
	pane := srv.NewPane()

	promptFile := filepath.Join(srv.Dir, "PROMPT.md")
	if err := os.WriteFile(promptFile, []byte(prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	r.cfg = watch.Config{
		Name:                "claude",
		Pane:                pane,
		Dir:                 r.proj,
		Command:             []string{claude},
		PromptFile:          promptFile,
		PromptMode:          agent.ModeType,
		MaxIterations:       2,
		InactivityTimeout:   12 * time.Second,
		PollInterval:        500 * time.Millisecond,
		ReadyTimeout:        60 * time.Second,
		Lines:               20,
		DonePattern:         regexp.MustCompile(`RALPH_DONE_[0-9]+`),
		CheckDoneContinuous: true,
	}
	return r
}

// run runs the loop to its end, failing the test if it takes over timeout.
func (r *claudeRun) run(timeout time.Duration) watch.Result {
	r.t.Helper()
	return r.runUntil(timeout, "")
}

// runUntil runs the loop until it ends or, when stop is not empty, until
// its output shows stop (then it interrupts the loop), failing the test if
// neither happens within timeout.
func (r *claudeRun) runUntil(timeout time.Duration, stop string) watch.Result {
	r.t.Helper()
	store, err := state.Open(filepath.Join(r.srv.Dir, "state"), r.cfg.Name)
	if err != nil {
		r.t.Fatal(err)
	}
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
	loop := &watch.Loop{Config: cfg, Tmux: r.srv.Client, Store: store, Out: &r.out, Err: &r.out, Wake: r.wake}
	started := time.Now()
	res := loop.Run(interrupt)
	r.t.Logf("loop ended after %s: %+v\n%s", time.Since(started).Round(100*time.Millisecond), res, r.out.String())
	r.t.Logf("timings (since the agent's start):\n%s", r.ev.timings())
	if ctx.Err() != nil {
		r.t.Fatalf("loop still running after %s", timeout)
	}
	return res
}

// explain logs what the pane shows, for a failed test.
func (r *claudeRun) explain() {
	if r.t.Failed() {
		r.t.Logf("pane:\n%s", r.srv.Capture(r.cfg.Pane))
		data, _ := os.ReadFile(r.api.log)
		r.t.Logf("api log:\n%s", data)
	}
}

// wantPrompts checks that n turns reached the API, each with want, once.
func (r *claudeRun) wantPrompts(n int, want string) {
	r.t.Helper()
	got := r.api.prompts(r.t)
	if len(got) != n {
		r.t.Errorf("Claude sent %d turns to the API, want %d: %q", len(got), n, got)
	}
	for i, p := range got {
		if p != want {
			r.t.Errorf("turn %d received %q, want %q", i+1, p, want)
		}
	}
}

func TestClaudeCodeDoneTokenCountsFromTheReplyNotFromTheEchoedPrompt(t *testing.T) {
	claude := claudeExecutable(t)
	tmuxtest.Require(t)
	tmuxtest.Build(t, "testdata/fakeapi") // once, before the parallel runs
	// Claude Code sends a short pasted prompt (at most 2 newlines and 800
	// characters) trimmed of trailing white space, tabs as 4 spaces.
	short := strings.TrimRight(claudePrompt, "\n")

	t.Run("reply with the token stops the loop", func(t *testing.T) {
		t.Parallel()
		r := newClaudeRun(t, claude, claudePrompt, "All tasks complete.\nRALPH_DONE_42")
		defer r.explain()
		r.cfg.InactivityTimeout = 30 * time.Second // a slow start is no reason to restart
		res := r.run(100 * time.Second)
		if res.Code != watch.ExitDone || res.Reason != "done_pattern" {
			t.Errorf("result %+v, want exit 0 done_pattern", res)
		}
		if !strings.Contains(r.out.String(), "done pattern matched, stopping loop") {
			t.Errorf("output lacks the done line")
		}
		r.wantPrompts(1, short)
	})

	t.Run("reply without the token does not stop on the echo", func(t *testing.T) {
		t.Parallel()
		r := newClaudeRun(t, claude, claudePrompt, "Still working on it.")
		defer r.explain()
		res := r.run(110 * time.Second)
		if res.Code != watch.ExitLimit || res.Reason != "max_iterations" {
			t.Errorf("result %+v, want exit 3 max_iterations", res)
		}
		out := r.out.String()
		if strings.Contains(out, "done pattern matched") {
			t.Errorf("the echoed prompt stopped the loop")
		}
		if n := strings.Count(out, "inactivity timeout (12s), restarting"); n != 2 {
			t.Errorf("%d iterations ended by inactivity, want 2", n)
		}
		r.wantPrompts(2, short)
	})

	// A paste of more than 2 newlines shows as "[Pasted text #1 +30 lines]"
	// in the input box, then in full in the transcript, and reaches the API
	// byte for byte.
	t.Run("long prompt, reply without the token", func(t *testing.T) {
		t.Parallel()
		var lines []string
		for i := 1; i <= 30; i++ {
			line := fmt.Sprintf("Step %d: read section %d of the plan and do what it says, then check the result.", i, i)
			if i == 15 {
				line = "When every task is finished, print RALPH_DONE_42 on a line of its own."
			}
			lines = append(lines, line)
		}
		long := strings.Join(lines, "\n") + "\n"
		r := newClaudeRun(t, claude, long, "Still working on it.")
		defer r.explain()
		r.cfg.MaxIterations = 1
		res := r.run(100 * time.Second)
		if res.Code != watch.ExitLimit || res.Reason != "max_iterations" {
			t.Errorf("result %+v, want exit 3 max_iterations", res)
		}
		r.wantPrompts(1, long)
	})
}

// TestClaudeCodeSlowStart: after respawn-pane the pane's previous screen is
// kept as history. A ready check that counted it took the old screen for a
// ready agent 0.7 s after the respawn, and an agent slower to start (Claude
// Code takes 10+ s on a loaded machine) got the prompt in a cooked tty, where
// it sat unsent. The check now waits for the new agent's own output.
func TestClaudeCodeSlowStart(t *testing.T) {
	claude := claudeExecutable(t)
	r := newClaudeRun(t, claude, claudePrompt, "All tasks complete.\nRALPH_DONE_42")
	defer r.explain()
	r.cfg.Command = []string{"/bin/sh", "-c", `sleep 3; exec "$0"`, claude}
	r.cfg.MaxIterations = 1
	res := r.run(90 * time.Second)
	if res.Code != watch.ExitDone || res.Reason != "done_pattern" {
		t.Errorf("result %+v, want exit 0 done_pattern", res)
	}
	r.wantPrompts(1, strings.TrimRight(claudePrompt, "\n"))
}

// With the claude profile a turn ends when Claude Code is done with it: by
// its Stop hook, or by its idle screen (the input box, no "esc to
// interrupt") when the hook is off; never by the inactivity timeout. With
// hooks it is ready by its SessionStart hook. Checked with Claude Code
// 2.1.197 and 2.1.330.
func TestClaudeCodeProfileEndsEachTurnWhenClaudeIsDone(t *testing.T) {
	claude := claudeExecutable(t)
	tmuxtest.Require(t)
	tmuxtest.Build(t, "testdata/fakeapi")
	for _, hook := range []bool{true, false} {
		t.Run(fmt.Sprintf("turn hook %v", hook), func(t *testing.T) {
			t.Parallel()
			wake := make(chan os.Signal, 1) // each loop its own: a woken loop takes the signal
			signal.Notify(wake, syscall.SIGUSR1)
			defer signal.Stop(wake)
			r := newClaudeRun(t, claude, claudePrompt, "Still working on it.")
			defer r.explain()
			r.cfg.Agent, _ = agent.Lookup("claude")
			r.cfg.ReadyPattern = r.cfg.Agent.Ready
			r.cfg.TurnHook = hook
			r.cfg.Executable = tmuxtest.Build(t, "cmd/ralph-watch")
			r.cfg.InactivityTimeout = 90 * time.Second // beyond the test: only the turn's end may end it
			r.wake = wake
			res := r.run(150 * time.Second)
			if res.Code != watch.ExitLimit || res.Reason != "max_iterations" {
				t.Errorf("result %+v, want exit 3 max_iterations", res)
			}
			if n := strings.Count(r.out.String(), "completed (turn ended"); n != 2 {
				t.Errorf("%d turns ended, want 2", n)
			}
			r.wantPrompts(2, strings.TrimRight(claudePrompt, "\n"))
			via := map[bool]string{true: watch.ViaHook, false: watch.ViaScreen}[hook]
			for i := 1; i <= 2; i++ {
				output, _, _ := r.ev.first(i, watch.EventOutput)
				if on, _, ok := r.ev.first(i, watch.EventPasteOn); ok && on < output {
					output = on // its first output, a mode switch with no text
				}
				ready, readyVia, _ := r.ev.first(i, watch.EventReady)
				end, endVia, _ := r.ev.first(i, watch.EventTurnEnd)
				t.Logf("iteration %d: first output to ready %s (%s), turn end at %s (%s)",
					i, (ready - output).Round(time.Millisecond), readyVia, end.Round(time.Millisecond), endVia)
				if readyVia != watch.ViaHook && readyVia != watch.ViaPattern { // whichever comes first
					t.Errorf("iteration %d ready by %s", i, readyVia)
				}
				if endVia != via {
					t.Errorf("iteration %d: turn ended by %s, want %s", i, endVia, via)
				}
			}
		})
	}
}

// A rate-limited turn: Claude Code's StopFailure hook says rate_limit (and
// its screen shows "API Error: … (429)"); the loop waits for the limit
// instead of counting a failure. Checked with 2.1.197 and 2.1.330.
func TestClaudeCodeRateLimitedTurnWaitsForTheLimit(t *testing.T) {
	claude := claudeExecutable(t)
	tmuxtest.Require(t)
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGUSR1)
	defer signal.Stop(wake)
	r := newClaudeRun(t, claude, claudePrompt, "!limit 3600")
	defer r.explain()
	r.cfg.Agent, _ = agent.Lookup("claude")
	r.cfg.ReadyPattern = r.cfg.Agent.Ready
	r.cfg.TurnHook = true
	r.cfg.Executable = tmuxtest.Build(t, "cmd/ralph-watch")
	r.cfg.InactivityTimeout = 90 * time.Second
	r.cfg.LimitWait = time.Hour
	r.wake = wake
	r.runUntil(120*time.Second, "waiting for limit reset")
	if !strings.Contains(r.out.String(), "usage limit reached (") {
		t.Errorf("the limit was not recognised:\n%s", r.out.String())
	}
	at, via, ok := r.ev.first(1, watch.EventLimit)
	t.Logf("limit known at %s by %s", at.Round(time.Millisecond), via)
	if !ok || via != watch.ViaHook && via != watch.ViaScreen {
		t.Errorf("no limit event by hook or screen: %s", r.ev.String())
	}
	if strings.Contains(r.out.String(), "failed (") {
		t.Errorf("a rate limit counted as a failure:\n%s", r.out.String())
	}
}

// A release whose footer and finished line no profile string matches (a
// profile made for another release, hooks off): the agent-agnostic signals
// (bracketed paste on, a still screen and cursor, Claude's processes idle in
// /proc) tell that it is ready and that its turn is over, long before any
// timeout.
func TestClaudeCodeWithStringsNoProfileMatchesIsReadAndEndedByTheIdleSignals(t *testing.T) {
	claude := claudeExecutable(t)
	tmuxtest.Require(t)
	r := newClaudeRun(t, claude, claudePrompt, "Still working on it.")
	defer r.explain()
	r.cfg.Agent, _ = agent.Lookup("claude")
	r.cfg.Agent.Ready = regexp.MustCompile(`a footer no release has drawn`)
	r.cfg.Agent.Finished = nil
	r.cfg.ReadyPattern = r.cfg.Agent.Ready
	r.cfg.InactivityTimeout = 90 * time.Second // beyond the test
	r.cfg.ReadyTimeout = 90 * time.Second
	res := r.run(150 * time.Second)
	if res.Code != watch.ExitLimit || res.Reason != "max_iterations" {
		t.Errorf("result %+v, want exit 3 max_iterations", res)
	}
	for i := 1; i <= 2; i++ {
		ready, readyVia, _ := r.ev.first(i, watch.EventReady)
		end, endVia, _ := r.ev.first(i, watch.EventTurnEnd)
		t.Logf("iteration %d: ready at %s (%s), turn end at %s (%s)", i, ready.Round(time.Millisecond), readyVia, end.Round(time.Millisecond), endVia)
		if readyVia != watch.ViaIdle || endVia != watch.ViaIdle {
			t.Errorf("iteration %d: ready by %q, turn end by %q; want both by the idle signals", i, readyVia, endVia)
		}
	}
	r.wantPrompts(2, strings.TrimRight(claudePrompt, "\n"))
}
