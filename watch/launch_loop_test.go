package watch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// hookedAgent draws no idle marker after its turn: only its Stop hook (from
// the --settings file it was started with) can end the turn early.
const hookedAgent = "print   ? for shortcuts\nready\nread\necho\nspinner 500ms\nprint ● Done.\nstop-hook\nquiet\n"

// agentNamed is a fake agent whose program is named like a real one
// (bin/claude), so that the loop knows it as that agent's own program.
func (h *harness) agentNamed(name, script string) []string {
	h.t.Helper()
	return h.srv.FakeAgentAs(name, "agent", script)
}

// script writes an executable shell script into the test's bin folder.
func (h *harness) script(name, text string) string {
	h.t.Helper()
	path := filepath.Join(h.srv.Dir, "bin", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := tmuxtest.WriteExecutable(path, []byte("#!/bin/sh\n"+text), 0o755); err != nil {
		h.t.Fatal(err)
	}
	return path
}

// Each way people start an agent gets the agent's turn hook, after the
// agent's own program word, and each turn ends by that hook: never by the
// screen (the agent shows no idle marker) nor by inactivity.
func TestEveryLaunchFormGetsTheTurnHook(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	tmuxtest.Build(t, "testdata/fakeagent")
	exe := tmuxtest.Build(t, "cmd/ralph-watch")
	forms := []struct {
		name    string
		command func(h *harness, claude, script string) []string
	}{
		{"absolute path", func(h *harness, claude, script string) []string { return []string{claude, script} }},
		{"env VAR=value", func(h *harness, claude, script string) []string {
			return []string{"env", "HOME=" + h.srv.Dir, "ANTHROPIC_BASE_URL=http://127.0.0.1:9", claude, script}
		}},
		{"env -u", func(h *harness, claude, script string) []string {
			return []string{"env", "-u", "LANG", "--unset=LC_ALL", "-C", h.srv.Dir, claude, script}
		}},
		{"exec in a shell line", func(h *harness, claude, script string) []string {
			return []string{"/bin/sh", "-c", "exec " + claude + " " + script}
		}},
		{"command", func(h *harness, claude, script string) []string { return []string{"command", claude, script} }},
		{"nice -n", func(h *harness, claude, script string) []string { return []string{"nice", "-n", "5", claude, script} }},
		{"timeout", func(h *harness, claude, script string) []string {
			return []string{"timeout", "--foreground", "-k", "5", "3600", claude, script}
		}},
		{"npx -y package", func(h *harness, claude, script string) []string {
			// npx as far as the test needs: options, then the package, whose program runs with the rest.
			npx := h.script("npx", `while [ "${1#-}" != "$1" ]; do shift; done
pkg=$1; shift
case $pkg in @anthropic-ai/claude-code|@anthropic-ai/claude-code@*) exec `+claude+` "$@";; esac
echo "npx: no package $pkg" >&2; exit 1
`)
			return []string{npx, "-y", "@anthropic-ai/claude-code@latest", script}
		}},
		{"one-line shell command", func(h *harness, claude, script string) []string {
			return []string{"/bin/sh", "-c", "ANTHROPIC_MODEL=opus exec nice '" + claude + "' " + script}
		}},
	}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			t.Parallel()
			endsByTheHook(t, exe, turnHookWake(t), form.command) // a wake of its own: a shared one wakes one loop of many
		})
	}
}

// A bare program name is found on the PATH of the watcher (tmux gives a
// pane it spawns its client's PATH).
func TestABareProgramOnThePathGetsTheTurnHook(t *testing.T) {
	tmuxtest.Require(t)
	endsByTheHook(t, tmuxtest.Build(t, "cmd/ralph-watch"), turnHookWake(t), func(h *harness, claude, script string) []string {
		t.Setenv("PATH", filepath.Dir(claude)+string(os.PathListSeparator)+os.Getenv("PATH"))
		return []string{"claude", script}
	})
}

// endsByTheHook loops a fake Claude started by command for two iterations
// and checks that its Stop hook ended each turn.
func endsByTheHook(t *testing.T, exe string, wake <-chan os.Signal, command func(h *harness, claude, script string) []string) {
	h := newHarness(t, "do the work", nil)
	claude := h.agentNamed("claude", hookedAgent)
	h.cfg.Command = command(h, claude[0], claude[1])
	h.asAgent("claude")
	h.cfg.Agent.IdleGrace = 0
	h.cfg.TurnHook, h.cfg.Executable = true, exe
	h.cfg.InactivityTimeout = 5 * time.Minute
	h.cfg.PollInterval = 10 * time.Second // the hook's signal, not a look at the screen, must end it
	h.cfg.MaxIterations = 2
	res := h.runWoken(wake, 90*time.Second)
	h.wantResult(res, contract.ExitDone, "max_iterations")
	h.wantOutput("iteration 1 completed (turn ended", "iteration 2 completed (turn ended")
	if strings.Contains(h.out.String(), "warning") {
		t.Errorf("a warning for %q:\n%s", h.cfg.Command, h.out.String())
	}
	if r, ok := agent.ReadHook(h.store, agent.HookTurnEnd); !ok || r.Iteration != 2 {
		t.Errorf("the hook last reported iteration %d (%v), want 2", r.Iteration, ok)
	}
}

// env -i clears RALPH_ITERATION from the agent's environment: its hooks,
// given the loop's state folder, read the iteration there and still report.
func TestEnvDashIStillGetsItsHooks(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	endsByTheHook(t, tmuxtest.Build(t, "cmd/ralph-watch"), turnHookWake(t), func(h *harness, claude, script string) []string {
		return []string{"env", "-i", "PATH=/usr/bin:/bin", claude, script}
	})
}

// Claude Code started through env with its key and API address in front
// (tried as a new user would: exit 125 every iteration, env given
// --settings) and through a one-line shell command: the Stop hook lands
// after claude and ends each turn.
func TestClaudeCodeThroughEnvAndAShellLineGetsItsStopHook(t *testing.T) {
	t.Parallel()
	claude := claudeCode.find(t)
	tmuxtest.Require(t)
	exe := tmuxtest.Build(t, "cmd/ralph-watch")
	forms := map[string]func(r *agentRun) []string{
		"env": func(r *agentRun) []string {
			return []string{"env", "HOME=" + filepath.Join(r.srv.Dir, "home"), r.env("ANTHROPIC_API_KEY"),
				"ANTHROPIC_BASE_URL=" + r.api.URL, claude}
		},
		"shell line": func(r *agentRun) []string {
			return []string{"/bin/sh", "-c", "ANTHROPIC_BASE_URL=" + r.api.URL + " exec '" + claude + "'"}
		},
	}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newAgentRun(t, claudeCode, claude, loopPrompt, "Still working on it.")
			defer r.explain()
			r.cfg.Command = form(r)
			r.cfg.Agent, _ = agent.Lookup("claude")
			r.cfg.ReadyPattern = r.cfg.Agent.Ready
			r.cfg.InactivityTimeout = 5 * time.Minute // beyond the test: only the turn's end may end it
			// A wake of its own: a shared one wakes one loop of many.
			r.useTurnHook(turnHookWake(t))
			r.cfg.Executable = exe
			res := r.run(240 * time.Second)
			if res.Code != contract.ExitLimit || res.Reason != "max_iterations" {
				t.Errorf("result %+v, want exit 3 max_iterations", res)
			}
			if n := strings.Count(r.out.String(), "completed (turn ended"); n != 2 {
				t.Errorf("%d turns ended, want 2", n)
			}
			if strings.Contains(r.out.String(), "failed") || strings.Contains(r.out.String(), "warning: cannot add") {
				t.Errorf("output:\n%s", r.out.String())
			}
			r.wantHookEnded(2)
			r.wantPrompts(2, strings.TrimRight(loopPrompt, "\n"))
		})
	}
}

// Codex started through env (tried as a new user would: exit 125 every
// iteration, env given -c notify=[…]) gets its notify program after codex.
func TestCodexThroughEnvGetsItsNotifyHook(t *testing.T) {
	t.Parallel()
	codex := codexCLI.find(t)
	tmuxtest.Require(t)
	r := newAgentRun(t, codexCLI, codex, loopPrompt, "Still working on it.")
	defer r.explain()
	r.cfg.Command = []string{"env", "NO_PROXY=127.0.0.1,localhost", codex, "--no-daemon"}
	r.useTurnHook(turnHookWake(t))
	res := r.run(240 * time.Second)
	if res.Code != contract.ExitLimit || res.Reason != "max_iterations" {
		t.Errorf("result %+v, want exit 3 max_iterations", res)
	}
	if n := strings.Count(r.out.String(), "completed (turn ended"); n != 2 {
		t.Errorf("%d turns ended, want 2", n)
	}
	r.wantHookEnded(2)
}
