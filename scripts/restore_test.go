package scripts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// loop reads loop name's state.json; empty before its watcher wrote it.
func (p *plugin) loop(name string) *state.State {
	p.t.Helper()
	var st state.State
	data, err := os.ReadFile(filepath.Join(p.srv.Dir, "state", name, state.StateFile))
	if os.IsNotExist(err) {
		return &st
	}
	if err == nil {
		err = json.Unmarshal(data, &st)
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return &st
}

func (p *plugin) reason(name string) string {
	if st := p.loop(name); st.ExitReason != nil {
		return *st.ExitReason
	}
	return ""
}

// must runs the plugin's ralph-watch against the test's server and fails
// the test if it fails.
func (p *plugin) must(args ...string) string {
	p.t.Helper()
	out, err := p.ralphWatch(args...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("ralph-watch %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// startLoop starts a loop of four one-second iterations that hangs in the
// second, where the server is pulled away under it.
func (p *plugin) startLoop(name string) {
	p.t.Helper()
	dir, pane := p.project(name, "do the next task\n")
	p.must("run", "--detach", "-S", p.srv.Socket, "-t", pane, "--name", name, "--restart-delay", "0",
		"--prompt-file", filepath.Join(dir, "PROMPT.md"),
		"--prompt-mode", "arg", "--max-iterations", "4", "--",
		"sh", "-c", `if [ "$RALPH_ITERATION" = 2 ]; then sleep 120; fi; sleep 1`)
	tmuxtest.Eventually(p.t, 30*time.Second, name+" in iteration 2", func() bool {
		return p.loop(name).CurrentIteration == 2
	})
}

// restart kills the server mid-loop, waits until the watchers of gone have
// recorded it, and starts a new server on the same socket with config.
func (p *plugin) restart(config string, gone ...string) {
	p.t.Helper()
	p.srv.Kill()
	for _, name := range gone {
		tmuxtest.Eventually(p.t, 30*time.Second, name+": server_gone", func() bool { return p.reason(name) == "server_gone" })
	}
	conf := filepath.Join(p.srv.Dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte(config), 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.srv.Must("-f", conf, "new-session", "-d", "-s", "main", "-x", "120", "-y", "40")
}

// runPlugin is a tmux.conf line that runs the plugin as tpm does.
func (p *plugin) runPlugin() string {
	return "run-shell " + shQuote("cd / && "+shQuote(filepath.Join(p.dir, "ralph.tmux"))+" >/dev/null 2>&1") + "\n"
}

// wantResumed waits until loop name went on from iteration 3 to its end.
func (p *plugin) wantResumed(name string) {
	p.t.Helper()
	tmuxtest.Eventually(p.t, 60*time.Second, name+" to reach max_iterations", func() bool { return p.reason(name) == "max_iterations" })
	log, _ := os.ReadFile(filepath.Join(p.srv.Dir, "state", name, "iterations.log"))
	for _, line := range []string{"[START] iteration 1/4", "[START] iteration 2/4", "[RESTORE] recreated pane", "[START] iteration 3/4", "[START] iteration 4/4"} {
		if strings.Count(string(log), line) != 1 {
			p.t.Errorf("%s: log should have %q once:\n%s", name, line, log)
		}
	}
}

// With @ralph-restore on, a server started after the last one was killed
// mid-loop re-arms that loop as the plugin loads, and the first client to
// attach is told; the loop the person stopped stays stopped, and sourcing
// the plugin again re-arms nothing twice.
func TestPluginReArmsTheLoopsOfAKilledServerWhenItStartsAgain(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	p.startLoop("phoenix")
	p.startLoop("ash")
	p.must("stop", "ash")

	p.restart("set -g @ralph-restore on\n"+p.runPlugin(), "phoenix")
	tmuxtest.Eventually(t, 30*time.Second, "the message to wait for a client", func() bool {
		hooks, _ := srv.Tmux("show-hooks", "-g", "client-attached")
		return strings.Contains(hooks, "re-armed 1 loop: phoenix")
	})
	p.attach()
	p.waitMessage("[ralph] re-armed 1 loop: phoenix")
	tmuxtest.Eventually(t, 10*time.Second, "the client to show the message", func() bool {
		return strings.Contains(p.screen.String(), "re-armed 1 loop: phoenix")
	})
	if hooks, _ := srv.Tmux("show-hooks", "-g", "client-attached"); strings.Contains(hooks, "re-armed") {
		t.Errorf("the message stays in a client-attached hook:\n%s", hooks)
	}
	p.wantResumed("phoenix")
	if st := p.loop("ash"); st.Status != state.Stopped {
		t.Errorf("the stopped loop is %s", st.Status)
	}

	p.source()
	time.Sleep(time.Second) // a second restore would run in the background
	if n := strings.Count(p.messages(), " message: [ralph] re-armed"); n != 1 {
		t.Errorf("the plugin re-armed loops %d times:\n%s", n, p.messages())
	}
	if strings.Contains(p.messages(), "can't find") { // the old server's pane ids, asked of the new one
		t.Errorf("the restore left errors in the server's messages:\n%s", p.messages())
	}
}

// With @ralph-restore off (the default) nothing is re-armed.
func TestPluginLeavesLoopsAloneWithoutRalphRestore(t *testing.T) {
	t.Parallel()
	_, p := installTPM(t)
	p.startLoop("phoenix")
	p.restart(p.runPlugin(), "phoenix")
	p.source() // the plugin has surely loaded, and anything it ran in the background had time
	time.Sleep(2 * time.Second)
	if r := p.reason("phoenix"); r != "server_gone" {
		t.Errorf("the loop was re-armed (%s) without @ralph-restore", r)
	}
}

// With tmux-resurrect installed the plugin waits for resurrect's restore:
// it chains onto @resurrect-hook-post-restore-all, after the person's own
// command, once however often it is sourced; the hook, run as resurrect
// runs it, runs both and re-arms the loop.
func TestPluginReArmsAfterTmuxResurrectsRestore(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	plugins := filepath.Join(srv.Dir, "home", ".tmux", "plugins")
	p := install(t, srv, filepath.Join(plugins, "ralph.tmux"), true)
	if err := os.MkdirAll(filepath.Join(plugins, "tmux-resurrect"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plugins, "tmux-resurrect", "resurrect.tmux"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.startLoop("phoenix")
	theirs := filepath.Join(srv.Dir, "their-hook-ran")
	p.restart("set -g @ralph-restore on\nset -g @resurrect-hook-post-restore-all "+shQuote("touch "+theirs)+"\n"+p.runPlugin(), "phoenix")
	p.source()
	hook := strings.TrimSpace(srv.Must("show-options", "-gqv", "@resurrect-hook-post-restore-all"))
	if !strings.HasPrefix(hook, "touch "+theirs+"; tmux run-shell -b ") || strings.Count(hook, "restore.sh") != 1 {
		t.Fatalf("@resurrect-hook-post-restore-all is %q", hook)
	}
	time.Sleep(time.Second)
	if r := p.reason("phoenix"); r != "server_gone" {
		t.Fatalf("the loop was re-armed (%s) before resurrect's restore", r)
	}

	p.attach()
	srv.Must("run-shell", "bash -c "+shQuote(`hook="$(tmux show-options -gqv @resurrect-hook-post-restore-all)"; eval "$hook "`))
	p.waitMessage("[ralph] re-armed 1 loop: phoenix")
	p.wantResumed("phoenix")
	if _, err := os.Stat(theirs); err != nil {
		t.Errorf("the person's own hook did not run: %v", err)
	}
}
