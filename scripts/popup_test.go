package scripts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The popup lists every loop of the server with where it runs, and acts on
// the one chosen: pause, resume, stop (the agent too), and attach, which
// takes the client to the loop's pane and closes the popup.
func TestPopupListsEveryLoopAndActsOnTheChosenOne(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	agent := srv.FakeAgent("agent", slowAgent)
	p.load(map[string]string{"@ralph-command": command(agent)})
	var panes, names []string
	for _, project := range []string{"alpha", "beta"} {
		_, pane := p.project(project, "do the next task\n")
		p.startWithLoopKey(pane)
		panes, names = append(panes, pane), append(names, srv.Option(pane, "@ralph-name"))
	}
	wantLive(t, srv, panes[0])

	p.press("W")
	tmuxtest.Eventually(t, 10*time.Second, "the popup to list both loops", func() bool {
		s := p.shown()
		return strings.Contains(s, names[0]) && strings.Contains(s, names[1]) && strings.Contains(s, "q: close")
	})
	if s := p.shown(); !strings.Contains(s, "> 2  main:2.0") {
		t.Errorf("the popup did not start on the pane's own loop (main:2.0):\n%s", s)
	}
	p.typeKeys("1p")
	p.waitOption(panes[0], "@ralph-state", "paused")
	tmuxtest.Eventually(t, 10*time.Second, "the popup to say so", func() bool {
		return strings.Contains(p.shown(), "paused ralph loop for "+names[0])
	})
	p.typeKeys("p")
	p.waitOption(panes[0], "@ralph-state", "running")
	if got := srv.Option(panes[1], "@ralph-state"); got != "running" {
		t.Errorf("the other loop is %s", got)
	}

	p.typeKeys("2s")
	tmuxtest.Eventually(t, 10*time.Second, "the stop question", func() bool {
		return strings.Contains(p.shown(), "stop "+names[1]+"?")
	})
	p.typeKeys("y")
	p.waitOption(panes[1], "@ralph-state", "stopped")

	p.typeKeys("1a")
	client := strings.TrimSpace(srv.Must("list-clients", "-F", "#{client_name}"))
	tmuxtest.Eventually(t, 10*time.Second, "the client on the first loop's pane", func() bool {
		return strings.TrimSpace(srv.Must("display-message", "-p", "-c", client, "#{pane_id}")) == panes[0]
	})
}

// The stop key's "end the agent too" leaves the pane at a shell in its
// folder, never dead; @ralph-end-command, when set, is what it runs.
func TestStopKeyEndingTheAgentLeavesAShell(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	agent := srv.FakeAgent("agent", slowAgent)
	p.load(map[string]string{"@ralph-command": command(agent)})
	for _, endCommand := range []string{"", "sh -c 'echo back from the loop; exec sleep 600'"} {
		srv.Must("set-option", "-g", "@ralph-end-command", endCommand)
		dir, pane := p.project("project"+endCommand[:min(2, len(endCommand))], "do the next task\n")
		p.startWithLoopKey(pane)
		wantLive(t, srv, pane)
		p.press("Q")
		p.choose("Stop the loop and end the agent (back to a shell)", "k")
		p.waitOption(pane, "@ralph-state", "stopped")
		tmuxtest.Eventually(t, 30*time.Second, "a shell in the pane", func() bool {
			out := srv.Must("display-message", "-p", "-t", pane, "#{pane_dead} #{pane_current_command} #{pane_current_path}")
			if endCommand != "" {
				return strings.HasPrefix(out, "0 sleep ") && strings.Contains(srv.Capture(pane), "back from the loop")
			}
			return strings.HasPrefix(out, "0 ") && !strings.Contains(out, "fakeagent") && strings.TrimSpace(strings.SplitN(out, " ", 3)[2]) == dir
		})
	}
}

// typeKeys types keys on the client, not after the prefix (into a popup).
func (p *plugin) typeKeys(keys string) {
	p.t.Helper()
	p.seen = len(p.screen.String())
	for _, k := range keys {
		if _, err := p.tty.Write([]byte(string(k))); err != nil {
			p.t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // the popup reads one key at a time
	}
}

// The popup offers ralph-watch doctor only when the installed ralph-watch
// has that subcommand (it came later than the popup), and runs it on d.
func TestPopupOffersDoctorOnlyWhenTheBinaryHasIt(t *testing.T) {
	t.Parallel()
	_, p := installTPM(t)
	p.source()
	p.attach()
	hasDoctor := p.ralphWatch("doctor", "--help").Run() == nil
	p.press("W")
	tmuxtest.Eventually(t, 10*time.Second, "the popup", func() bool {
		return strings.Contains(p.shown(), "q: close") && strings.Contains(p.shown(), "no loops; the loop key starts one")
	})
	if offered := strings.Contains(p.shown(), "d doctor"); offered != hasDoctor {
		t.Fatalf("ralph-watch has doctor: %v; the popup offers it: %v", hasDoctor, offered)
	}
	if hasDoctor {
		p.typeKeys("d")
		tmuxtest.Eventually(t, 60*time.Second, "doctor's report", func() bool {
			return strings.Contains(p.shown(), "(any key: back)")
		})
		p.typeKeys("x")
	}
	p.typeKeys("q")
}

// The popup steers the chosen loop: + gives it ten more iterations from the
// next one, n asks in the popup for a note whose text (quotes, $, ;, # and
// all) goes into the next iteration's prompt as typed, x skips the running iteration
// and r retries it.
func TestPopupKeysGiveALoopTenMoreIterationsANoteASkipAndARetry(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	agent := srv.FakeAgent("agent", "ready\nread\nprint working on {{iteration}}\nsleep 5s\nexit 0\n")
	p.load(map[string]string{"@ralph-command": command(agent)})
	_, pane := p.project("steered", "do the next task\n")
	p.startWithLoopKey(pane)
	name := srv.Option(pane, "@ralph-name")
	if got := srv.Option(pane, "@ralph-max"); got != "20" {
		t.Fatalf("@ralph-max = %q, want the plugin's default 20", got)
	}

	p.press("W")
	tmuxtest.Eventually(t, 30*time.Second, "the popup to offer the keys", func() bool {
		return strings.Contains(p.shown(), "n note · + 10 more")
	})
	p.typeKeys("+")
	p.waitOption(pane, "@ralph-max", "30")
	tmuxtest.Eventually(t, 10*time.Second, "the popup to say what + did", func() bool { // the pane shows the limit at once, the popup at its redraw
		return strings.Contains(p.shown(), "max-iterations 30 at the next iteration")
	})

	note := `mind $HOME; "quoted" #{pane_id} ~ \n`
	p.typeKeys("n")
	tmuxtest.Eventually(t, 10*time.Second, "the note prompt", func() bool {
		return strings.Contains(p.shown(), "note for "+name+":")
	})
	if _, err := p.tty.Write([]byte(note + "\r")); err != nil {
		t.Fatal(err)
	}
	want := `[NOTE] iteration `
	tmuxtest.Eventually(t, 30*time.Second, "the note in the next iteration", func() bool {
		log, _ := os.ReadFile(filepath.Join(srv.Dir, "state", name, "iterations.log"))
		return strings.Contains(string(log), want)
	})
	log, _ := os.ReadFile(filepath.Join(srv.Dir, "state", name, "iterations.log"))
	if !strings.Contains(string(log), `: "mind $HOME; \"quoted\" #{pane_id} ~ \\n"`) {
		t.Errorf("the note was not sent as typed:\n%s", log)
	}

	logged := func(what string) bool {
		log, _ := os.ReadFile(filepath.Join(srv.Dir, "state", name, "iterations.log"))
		return strings.Contains(string(log), what)
	}
	started := func() int {
		log, _ := os.ReadFile(filepath.Join(srv.Dir, "state", name, "iterations.log"))
		return strings.Count(string(log), "[START]")
	}
	p.typeKeys("q")
	p.press("W")
	for _, k := range []struct{ key, said, ended string }{{"x", "skipped iteration", "skipped"}, {"r", "starts again in a fresh agent", "retried"}} {
		n := started()
		tmuxtest.Eventually(t, 30*time.Second, "an iteration that runs a while", func() bool {
			return started() > n && srv.Option(pane, "@ralph-state") == "running"
		})
		p.typeKeys(k.key)
		tmuxtest.Eventually(t, 30*time.Second, "the popup to say what "+k.key+" did", func() bool { return strings.Contains(p.shown(), k.said) })
		if !logged(" " + k.ended + " duration=") {
			t.Errorf("iterations.log has no iteration %s", k.ended)
		}
	}
}
