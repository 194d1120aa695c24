package scripts_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/doctor"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// OpenCode and Copilot CLI started by hand at a shell prompt, offline as
// doctor sets them up (the model API on a closed port: nothing is asked of
// it): the loop key loops each with its arguments, as its own profile.
// OpenCode's launcher leaves its native binary in the foreground, by the
// name it was started with; Copilot CLI's is node running the package's
// npm-loader.js, which is copilot.
func TestLoopKeyLoopsARunningOpenCodeOrCopilotCLI(t *testing.T) {
	for _, c := range []struct{ agent, ready string }{
		{"opencode", "ctrl+p commands"},
		{"copilot", "/ commands"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			exe := tmuxtest.Agent(t, c.agent)
			t.Parallel()
			tmuxtest.HoldAgentPlaces(t, 1)
			srv := tmuxtest.Start(t)
			// The agents (and the loop's, in a process group of its own)
			// outlive their panes: end each pane's process tree first.
			t.Cleanup(func() {
				out, _ := srv.Tmux("list-panes", "-a", "-F", "#{pane_pid}")
				for _, f := range strings.Fields(out) {
					if pid, err := strconv.Atoi(f); err == nil {
						agent.EndTree(pid, 3*time.Second)
					}
				}
			})
			p := install(t, srv, filepath.Join(srv.Dir, "home", ".tmux", "plugins", "ralph.tmux"), true)
			dir := filepath.Join(srv.Dir, "project")
			setup, err := doctor.Prepare(c.agent, filepath.Join(srv.Dir, "home"), dir, "http://127.0.0.1:9")
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range setup.Env {
				name, value, _ := strings.Cut(kv, "=")
				srv.Must("set-environment", "-g", name, value)
			}
			p.load(map[string]string{"@ralph-command": "false"})
			_, pane := p.project("project", "say hello\n")
			p.atPrompt(pane)
			args := []string{"--model", "fake/gpt-5.2-codex"}
			if c.agent == "copilot" {
				args = []string{"--model", "gpt-5.2-codex"}
			}
			srv.Must("send-keys", "-t", pane, "-l", command(append([]string{exe}, args...)))
			srv.Must("send-keys", "-t", pane, "Enter")
			for deadline := time.Now().Add(90 * time.Second); !strings.Contains(srv.Capture(pane), c.ready); time.Sleep(200 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("no input box of %s after 90s:\n%s", c.agent, srv.Capture(pane))
				}
			}
			p.press("A")
			p.choose("Loop what runs here", "y")
			p.waitOptionWithin(2*time.Minute, pane, "@ralph-state", "running") // the agent started anew
			name := srv.Option(pane, "@ralph-name")
			defer func() { _ = p.ralphWatch("stop", "--kill", name).Run() }()
			st := loopState(t, srv, name)
			if got := agent.Guess(st.Command); got != c.agent || !slices.Equal(st.Command[len(st.Command)-len(args):], args) {
				t.Errorf("looped command %q (profile %s), want %s with %q", st.Command, got, c.agent, args)
			}
		})
	}
}

// Claude Code itself, started by hand at a shell prompt with arguments,
// keeps its command line in /proc (measured: 2.1.197 and 2.1.330 do not
// rewrite their process title): the loop key loops it word for word.
// Offline: onboarding done, the folder trusted, the API on a closed port.
func TestLoopKeyLoopsARunningClaudeCodeAsItWasStarted(t *testing.T) {
	t.Parallel()
	claude := tmuxtest.Agent(t, "claude")
	tmuxtest.HoldAgentPlaces(t, 1)
	srv, p := installTPM(t)
	dir := filepath.Join(srv.Dir, "project")
	key := "sk-ant-api03-" + strings.Repeat("x", 40)
	config := fmt.Sprintf(`{"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": {"approved": [%q], "rejected": []},
		"projects": {%q: {"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}}`, key[len(key)-20:], dir)
	if err := os.WriteFile(filepath.Join(srv.Dir, "home", ".claude.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"ANTHROPIC_API_KEY", key}, {"ANTHROPIC_BASE_URL", "http://127.0.0.1:9"},
		{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"}, {"DISABLE_AUTOUPDATER", "1"}, {"DISABLE_TELEMETRY", "1"}} {
		srv.Must("set-environment", "-g", kv[0], kv[1])
	}
	p.load(map[string]string{"@ralph-command": "false"})
	_, pane := p.project("project", "say hello\n")
	p.atPrompt(pane)
	argv := []string{claude, "--model", "opus", "--append-system-prompt", "it's a test; #{pane_id}"}
	srv.Must("send-keys", "-t", pane, "-l", command(argv))
	srv.Must("send-keys", "-t", pane, "Enter")
	tmuxtest.Eventually(t, 60*time.Second, "Claude Code's input box", func() bool {
		return strings.Contains(srv.Capture(pane), "❯")
	})
	p.press("A")
	p.choose("Loop what runs here", "y")
	p.waitOptionWithin(2*time.Minute, pane, "@ralph-state", "running") // the agent started anew
	name := srv.Option(pane, "@ralph-name")
	defer func() { _ = p.ralphWatch("stop", "--kill", name).Run() }()
	if st := loopState(t, srv, name); !slices.Equal(st.Command, argv) {
		t.Errorf("looped command %q, want %q", st.Command, argv)
	}
}
