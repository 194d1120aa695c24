package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The loop key in a pane at a shell prompt offers @ralph-command and a
// Cancel line; in a pane that runs an agent it loops that agent, its exact
// command line read from the pane's foreground process; when a program
// rewrote its process title the menu says so and offers @ralph-command.
func TestLoopKeyLoopsWhatRunsInThePane(t *testing.T) {
	t.Parallel()
	// Each case on its own server, side by side: one after another they took a minute.
	setup := func(t *testing.T) (*tmuxtest.Server, *plugin, []string) {
		t.Parallel()
		srv, p := installTPM(t)
		agent := srv.FakeAgent("agent", "print waiting for you\nready\nread\necho\nprint working on it\nsleep 120s\nexit 0\n")
		p.load(map[string]string{"@ralph-command": command(agent) + " --from-ralph-command"})
		return srv, p, agent
	}

	t.Run("a shell prompt gets @ralph-command", func(t *testing.T) {
		srv, p, _ := setup(t)
		_, pane := p.project("shell", "go\n")
		p.atPrompt(pane)
		p.press("A")
		p.choose("Cancel", "q")
		for _, line := range []string{"@ralph-command ", "--from-ralph-command", "the pane is respawned", "Start the loop"} {
			if !strings.Contains(p.shown(), line) {
				t.Errorf("the menu lacks %q", line)
			}
		}
		if strings.Contains(p.shown(), "Loop what runs here") {
			t.Errorf("the menu offers to loop the shell")
		}
		time.Sleep(time.Second)
		if name := srv.Option(pane, "@ralph-name"); name != "" {
			t.Errorf("Cancel started loop %s", name)
		}
	})

	t.Run("a dead pane gets @ralph-command in its session's folder", func(t *testing.T) {
		srv, p, agent := setup(t)
		dir := filepath.Join(srv.Dir, "dead")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "PROMPT.md"), []byte("go\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		srv.Must("new-session", "-d", "-s", "dead", "-c", dir)
		pane := strings.TrimSpace(srv.Must("new-window", "-P", "-F", "#{pane_id}", "-t", "dead:", "-c", dir, "sleep 1; exit 3"))
		srv.Must("set-option", "-p", "-t", pane, "remain-on-exit", "on")
		tmuxtest.Eventually(t, 10*time.Second, "the pane to die", func() bool {
			// tmux may see the exit only when another child exits; -b: not
			// waited for, as tmux can miss this child's exit too (a make test
			// hung 10 minutes on it under load).
			_, _ = srv.Tmux("run-shell", "-b", "true")
			out, _ := srv.Tmux("display-message", "-p", "-t", pane, "#{pane_dead_status}")
			return strings.TrimSpace(out) == "3"
		})
		srv.Must("switch-client", "-t", pane)
		tmuxtest.Eventually(t, 10*time.Second, "the client on the dead pane", func() bool {
			out, _ := srv.Tmux("list-clients", "-F", "#{pane_id}")
			return strings.TrimSpace(out) == pane
		})
		p.startWithLoopKey(pane)
		want := []string{"/bin/sh", "-c", "exec " + command(agent) + " --from-ralph-command"}
		st := loopState(t, srv, srv.Option(pane, "@ralph-name"))
		if !slices.Equal(st.Command, want) && !slices.Equal(st.Command, want[2:]) {
			t.Errorf("looped command %q, want @ralph-command", st.Command)
		}
		if st.WatcherDir != dir {
			t.Errorf("looped in %q, want the session's folder %q", st.WatcherDir, dir)
		}
		srv.Must("switch-client", "-t", "main:")
	})

	t.Run("a running agent is looped as it was started", func(t *testing.T) {
		srv, p, agent := setup(t)
		dir, pane := p.project("agent's #{pane_id} $(touch pwned) ;", "do the next task\n")
		p.atPrompt(pane)
		argv := append(slices.Clone(agent), "--model", `it's "opus" #{pane_id} $(touch pwned) ; \`)
		srv.Must("send-keys", "-t", pane, "-l", command(argv))
		srv.Must("send-keys", "-t", pane, "Enter")
		tmuxtest.Eventually(t, 10*time.Second, "the agent to start", func() bool {
			return strings.Contains(srv.Capture(pane), "waiting for you")
		})
		p.press("A")
		tmuxtest.Eventually(t, 30*time.Second, "the menu's every line", func() bool { // the client may have read only part of the menu's drawing
			for _, line := range []string{"Loop what runs here", "Loop @ralph-command instead", "this program and any half-typed input end", "Cancel"} {
				if !strings.Contains(p.shown(), line) {
					return false
				}
			}
			return true
		})
		p.choose("Loop what runs here", "y")
		p.waitOption(pane, "@ralph-state", "running")
		st := loopState(t, srv, srv.Option(pane, "@ralph-name"))
		if !slices.Equal(st.Command, argv) {
			t.Errorf("looped command %q, want %q", st.Command, argv)
		}
		tmuxtest.Eventually(t, 30*time.Second, "the looped agent to take the prompt", func() bool {
			return strings.Contains(srv.Capture(pane), "working on it")
		})
		for _, d := range []string{"/", dir, srv.Dir, p.dir} {
			if _, err := os.Stat(filepath.Join(d, "pwned")); err == nil {
				t.Errorf("a $(…) in the command line ran: %s/pwned exists", d)
			}
		}
	})

	t.Run("a node agent is looped by its name on the PATH", func(t *testing.T) {
		srv, p, _ := setup(t)
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("node not installed")
		}
		// As npm installs an agent: node_modules/.bin/NAME links to the package's script.
		modules := filepath.Join(srv.Dir, "npm", "node_modules")
		script := filepath.Join(modules, "nodeagent", "bin", "cli.js")
		if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(modules, ".bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		js := "#!/usr/bin/env node\nconsole.log('node agent ready'); process.stdin.resume();\n"
		if err := os.WriteFile(script, []byte(js), 0o755); err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(modules, ".bin", "nodeagent")
		if err := os.Symlink("../nodeagent/bin/cli.js", bin); err != nil {
			t.Fatal(err)
		}
		_, pane := p.project("node", "go\n")
		p.atPrompt(pane)
		srv.Must("send-keys", "-t", pane, "-l", "PATH="+shQuote(filepath.Dir(bin))+":$PATH nodeagent --model 'big one'")
		srv.Must("send-keys", "-t", pane, "Enter")
		tmuxtest.Eventually(t, 10*time.Second, "the node agent to start", func() bool {
			return strings.Contains(srv.Capture(pane), "node agent ready")
		})
		p.press("A")
		p.choose("Loop what runs here", "y")
		p.waitOption(pane, "@ralph-state", "running")
		want := []string{bin, "--model", "big one"}
		if st := loopState(t, srv, srv.Option(pane, "@ralph-name")); !slices.Equal(st.Command, want) {
			t.Errorf("looped command %q, want %q", st.Command, want)
		}
	})

	t.Run("an agent left running by a stopped loop is looped again as it was", func(t *testing.T) {
		srv, p, _ := setup(t)
		for _, mode := range []string{"type", "arg"} {
			srv.Must("set-option", "-g", "@ralph-prompt-mode", mode)
			_, pane := p.project("again-"+mode, "do the next task\n")
			p.startWithLoopKey(pane)
			name := srv.Option(pane, "@ralph-name")
			first := loopState(t, srv, name).Command
			tmuxtest.Eventually(t, 30*time.Second, "the agent to start", func() bool {
				return strings.Contains(srv.Capture(pane), "waiting for you")
			})
			if out, err := p.ralphWatch("stop", name).CombinedOutput(); err != nil {
				t.Fatalf("stop %s: %v: %s", name, err, out)
			}
			p.waitOption(pane, "@ralph-state", "stopped")
			p.press("A")
			p.choose("Loop what runs here", "y")
			tmuxtest.Eventually(t, 30*time.Second, "the loop to start again", func() bool {
				return strings.Contains(p.messages(), "[ralph] "+name+": looping pane "+pane) &&
					srv.Option(pane, "@ralph-state") == "running"
			})
			if st := loopState(t, srv, name); !slices.Equal(st.Command, first) {
				t.Errorf("prompt mode %s: looped again %q, want %q as the first time", mode, st.Command, first)
			}
		}
		srv.Must("set-option", "-gu", "@ralph-prompt-mode")
	})

	t.Run("a script run by its interpreter is looped as that program", func(t *testing.T) {
		srv, p, agent := setup(t)
		bin := filepath.Join(srv.Dir, "wrappers")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		// As people wrap an agent: set things up, then run the real one (no exec).
		wrapper := "#!/bin/bash\nexport WRAPPED=1\n" + command(agent) + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(wrapper), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, "plain.sh"), []byte(command(agent)+" \"$@\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, "agent.py"), []byte("import subprocess, sys\nsys.exit(subprocess.call(sys.argv[1:]))\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, line string
			want       []string
		}{
			{"bash-wrapper", shQuote(filepath.Join(bin, "claude")) + " --flavour x9", []string{filepath.Join(bin, "claude"), "--flavour", "x9"}},
			{"sh-file", "sh " + shQuote(filepath.Join(bin, "plain.sh")) + " --flavour x9", []string{"sh", filepath.Join(bin, "plain.sh"), "--flavour", "x9"}},
			{"python-file", "python3 " + shQuote(filepath.Join(bin, "agent.py")) + " " + command(agent), append([]string{"python3", filepath.Join(bin, "agent.py")}, agent...)},
		} {
			if tc.name == "python-file" {
				if _, err := exec.LookPath("python3"); err != nil {
					continue
				}
			}
			_, pane := p.project("script-"+tc.name, "go\n")
			p.atPrompt(pane)
			srv.Must("send-keys", "-t", pane, "-l", tc.line)
			srv.Must("send-keys", "-t", pane, "Enter")
			tmuxtest.Eventually(t, 10*time.Second, tc.name+" to start", func() bool {
				return strings.Contains(srv.Capture(pane), "waiting for you")
			})
			p.press("A")
			p.choose("Loop what runs here", "y")
			p.waitOption(pane, "@ralph-state", "running")
			if st := loopState(t, srv, srv.Option(pane, "@ralph-name")); !slices.Equal(st.Command, tc.want) {
				t.Errorf("%s: looped command %q, want %q", tc.name, st.Command, tc.want)
			}
		}
	})

	t.Run("the loop's own hook arguments are never read as what runs", func(t *testing.T) {
		srv, p, _ := setup(t)
		claude := srv.FakeAgentAs("claude", "claude", "print waiting for you\nready\nread\necho\nprint working on it\nsleep 120s\nexit 0\n")
		_, pane := p.project("hooked", "do the next task\n")
		p.atPrompt(pane)
		srv.Must("send-keys", "-t", pane, "-l", command(claude))
		srv.Must("send-keys", "-t", pane, "Enter")
		tmuxtest.Eventually(t, 10*time.Second, "claude to start", func() bool {
			return strings.Contains(srv.Capture(pane), "waiting for you")
		})
		p.press("A")
		p.choose("Loop what runs here", "y")
		p.waitOption(pane, "@ralph-state", "running")
		tmuxtest.Eventually(t, 30*time.Second, "the looped agent to work", func() bool {
			return strings.Contains(srv.Capture(pane), "working on it")
		})
		// The loop runs claude with its own --settings; what runs here, as
		// the loop key reads it, is the person's command.
		read := exec.Command("bash", "-c", `source ./foreground.sh; foreground "$1"; printf '%s\n' "$FG_KIND" "${FG_ARGV[@]}"`, "bash", pane)
		read.Env = append(append([]string(nil), srv.Env...), "TMUX="+srv.Socket+",0,0")
		out, err := read.CombinedOutput()
		if want := "program\n" + strings.Join(claude, "\n") + "\n"; err != nil || string(out) != want {
			t.Errorf("foreground read %q (%v), want %q", out, err, want)
		}
	})

	t.Run("a wrapper's environment is carried, its secrets in memory only, the shell's own never", func(t *testing.T) {
		srv, p, _ := setup(t)
		claude := srv.FakeAgentAs("claude", "claude", "print key {{set:ANTHROPIC_API_KEY}}\nprint waiting for you\nready\nread\necho\nprint working on it\nsleep 120s\nexit 0\n")
		home := filepath.Join(srv.Dir, "agent-home")
		wrapper := filepath.Join(srv.Dir, "wrappers", "myclaude")
		if err := os.MkdirAll(filepath.Dir(wrapper), 0o755); err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\nexport HOME=" + shQuote(home) + " ANTHROPIC_BASE_URL=http://127.0.0.1:9 ANTHROPIC_API_KEY=sk-not-on-disk PS1='$ ' PROMPT_COMMAND=true\nexec " + command(claude) + " \"$@\"\n"
		if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		_, pane := p.project("wrapped-env", "do the next task\n")
		p.atPrompt(pane)
		srv.Must("send-keys", "-t", pane, "-l", shQuote(wrapper)+" --model big")
		srv.Must("send-keys", "-t", pane, "Enter")
		tmuxtest.Eventually(t, 10*time.Second, "the wrapped agent to start", func() bool {
			return strings.Contains(srv.Capture(pane), "waiting for you")
		})
		p.press("A")
		p.choose("Loop what runs here", "y")
		if shown := p.shown(); !strings.Contains(shown, "carried in memory, never written") || strings.Contains(shown, "sk-not-on-disk") || strings.Contains(shown, "PS1") {
			t.Errorf("the menu does not say the key is carried, or shows it or the shell's own:\n%q", shown)
		}
		p.waitOption(pane, "@ralph-state", "running")
		name := srv.Option(pane, "@ralph-name")
		want := append([]string{"env", "HOME=" + home, "ANTHROPIC_BASE_URL=http://127.0.0.1:9", "ANTHROPIC_API_KEY=…"}, append(slices.Clone(claude), "--model", "big")...)
		if st := loopState(t, srv, name); !slices.Equal(st.Command, want) {
			t.Errorf("looped %q, want %q", st.Command, want)
		}
		tmuxtest.Eventually(t, 30*time.Second, "the looped agent to work", func() bool {
			return strings.Contains(srv.Capture(pane), "working on it")
		})
		if screen := srv.Capture(pane); !strings.Contains(screen, "key set") {
			t.Errorf("the looped agent was not given the key:\n%s", screen)
		}
		// The loop's agent, read by the loop key, is what was looped: the key
		// hidden again, its value (never printed here) from the agent's environment.
		read := exec.Command("bash", "-c", `source ./foreground.sh; foreground "$1"; printf '%s\n' "${FG_ARGV[@]}"; `+
			`for kv in "${FG_SECRETS[@]}"; do printf 'secret %s, %d chars\n' "${kv%%=*}" "${#kv}"; done`, "bash", pane)
		read.Env = append(append([]string(nil), srv.Env...), "TMUX="+srv.Socket+",0,0")
		out, err := read.CombinedOutput()
		if want := strings.Join(want, "\n") + "\nsecret ANTHROPIC_API_KEY, 32 chars\n"; err != nil || string(out) != want {
			t.Errorf("foreground read %q (%v), want %q", out, err, want)
		}
		files, _ := filepath.Glob(filepath.Join(srv.Dir, "state", name, "*"))
		for _, f := range files {
			if info, err := os.Lstat(f); err != nil || !info.Mode().IsRegular() {
				continue // the output FIFO would block a read
			}
			if b, _ := os.ReadFile(f); strings.Contains(string(b), "sk-not-on-disk") {
				t.Errorf("the secret was written to %s", f)
			}
		}
	})

	t.Run("a rewritten process title is said, @ralph-command offered", func(t *testing.T) {
		srv, p, _ := setup(t)
		_, pane := p.project("retitled", "go\n")
		p.atPrompt(pane)
		srv.Must("send-keys", "-t", pane, "-l", `perl -e '$0 = "claude"; sleep 600'`)
		srv.Must("send-keys", "-t", pane, "Enter")
		tmuxtest.Eventually(t, 10*time.Second, "perl to rename itself", func() bool {
			out, _ := srv.Tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")
			return strings.TrimSpace(out) == "claude"
		})
		p.press("A")
		p.choose("Loop @ralph-command instead", "q")
		if !strings.Contains(p.shown(), "claude: its command line cannot be read") {
			t.Errorf("the menu does not say the command line is lost")
		}
	})
}

// The loop key's menu is open when another loop takes the pane: its start
// is then refused, naming that loop, which loops on alone.
func TestLoopKeyRefusesAPaneAnotherLoopTookMeanwhile(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	agent := srv.FakeAgent("agent", "ready\nread\nprint working on it\nsleep 120s\nexit 0\n")
	p.load(map[string]string{"@ralph-command": command(agent)})
	dir, pane := p.project("taken", "go\n")
	p.atPrompt(pane)
	p.press("A")
	tmuxtest.Eventually(t, 30*time.Second, "the loop key's menu", func() bool { return strings.Contains(p.shown(), "Start the loop") })

	other := exec.Command(filepath.Join(p.dir, "bin", "ralph-watch"), append([]string{"run", "--detach", "-S", srv.Socket, "-t", pane,
		"--name", "other", "--prompt-file", filepath.Join(dir, "PROMPT.md"), "--"}, agent...)...)
	other.Dir, other.Env = dir, srv.Env
	if out, err := other.CombinedOutput(); err != nil {
		t.Fatalf("the other loop: %v\n%s", err, out)
	}
	p.waitOption(pane, "@ralph-name", "other")
	p.waitOption(pane, "@ralph-state", "running") // its agent has its prompt: the pane is in the project's folder again
	p.choose("Start the loop", "y")
	p.waitMessage(`pane ` + pane + ` is looped by "other" (ralph-watch stop other, or --replace to take it over)`)
	time.Sleep(time.Second)
	if name := srv.Option(pane, "@ralph-name"); name != "other" {
		t.Errorf("the pane is looped by %q, want other alone", name)
	}
}
