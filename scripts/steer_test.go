package scripts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The popup steers the chosen loop: + gives it ten more iterations from the
// next one, n opens a tmux prompt whose text (quotes, $, ;, # and all) goes
// into the next iteration's prompt as typed, x skips the running iteration
// and r retries it.
func TestPopupKeysGiveALoopTenMoreIterationsANoteASkipAndARetry(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	p := install(t, srv, filepath.Join(srv.Dir, "home", ".tmux", "plugins", "ralph.tmux"), true)
	agent := srv.FakeAgent("agent", "ready\nread\nprint working on {{iteration}}\nsleep 5s\nexit 0\n")
	p.configure(map[string]string{"@ralph-command": command(agent)})
	p.source()
	p.attach()
	_, pane := p.project("steered", "do the next task\n")
	p.press("A")
	p.choose("Start the loop", "y")
	p.waitOption(pane, "@ralph-state", "running")
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
	if !strings.Contains(p.shown(), "max-iterations 30 at the next iteration") {
		t.Errorf("the popup did not say what + did:\n%s", p.shown())
	}

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
