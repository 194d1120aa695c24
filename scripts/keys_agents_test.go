package scripts_test

import (
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
			p.configure(map[string]string{"@ralph-command": "false"})
			p.source()
			p.attach()
			_, pane := p.project("project", "say hello\n")
			tmuxtest.Eventually(t, 10*time.Second, "a shell prompt", func() bool { return strings.TrimSpace(srv.Capture(pane)) != "" })
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
