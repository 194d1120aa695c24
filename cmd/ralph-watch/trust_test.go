package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// A cloned repository's .ralph/config names a check and a hook: nothing of
// it runs until the person trusts the file, byte for byte.
func TestAnUntrustedConfigRunsNothingUntilTrusted(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	file := filepath.Join(c.srv.Dir, ".ralph", "config")
	c.config("check touch checked\non-done touch hooked\nprompt-mode arg\nrestart-delay 0\n")
	marker := func(name string) bool {
		_, err := os.Stat(filepath.Join(c.srv.Dir, name))
		return err == nil
	}
	refused := "ralph-watch: error: " + file + " would run commands: check 'touch checked', on-done 'touch hooked'; trust it with: ralph-watch trust " + c.srv.Dir + "\n"
	pane := c.pane(c.srv.Dir) // where the check and hook run
	args := []string{"run", "-S", c.srv.Socket, "-t", pane, "--name", "cloned", "--max-iterations", "1", "--", "true"}
	refuse := func(why, refused string) {
		t.Helper()
		before, options := c.panes(), c.srv.Must("show-options", "-p", "-t", pane)
		code, stdout, stderr := c.run(nil, args...)
		if code != 2 || stdout != "" || stderr != refused {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", why, code, stdout, stderr, refused)
		}
		if after := c.panes(); after != before {
			t.Errorf("%s: panes changed:\n%s\n%s", why, before, after)
		}
		if marker("checked") || marker("hooked") {
			t.Fatalf("%s: the config file's command ran", why)
		}
		if after := c.srv.Must("show-options", "-p", "-t", pane); after != options {
			t.Errorf("%s: the pane's options changed:\n%s\n%s", why, options, after)
		}
	}
	refuse("never trusted", refused)
	c.want([]string{"trust", "--check"}, 1, "check 'touch checked'\non-done 'touch hooked'\n", "")

	c.want([]string{"trust"}, 0, "trusted "+file+": run may run check 'touch checked', on-done 'touch hooked'\n", "")
	c.want([]string{"trust", "--check", c.srv.Dir}, 0, "", "")
	for _, f := range []string{filepath.Join(c.srv.Dir, "state"), filepath.Join(c.srv.Dir, "state", state.TrustFile)} {
		info, err := os.Stat(f)
		if err != nil || info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: %v, mode %v: open to others", f, err, info.Mode().Perm())
		}
	}
	c.want(args, 0, "", "")
	if !marker("checked") || !marker("hooked") {
		t.Fatal("the trusted config file's check and hook did not run")
	}
	c.want([]string{"status", "cloned"}, 0, "Commands:\n  check 'touch checked' (from config file "+file+")\n  on-done 'touch hooked' (from config file "+file+")\n", "")
	c.want([]string{"status", "--json", "cloned"}, 0, `"from": "config file",`, "")
	_ = os.Remove(filepath.Join(c.srv.Dir, "checked"))
	_ = os.Remove(filepath.Join(c.srv.Dir, "hooked"))

	c.config("check touch checked\non-done touch hooked\nprompt-mode arg\nrestart-delay 0\n# one more line\n")
	refuse("edited after trust", strings.Replace(refused, "config would", "config (changed since it was trusted) would", 1))
	c.want([]string{"trust", "--list"}, 0, file+"  trusted ", "")
	c.want([]string{"trust", "--list"}, 0, "changed since trusted: its commands are refused\n", "")

	// A link to the folder is the same file: trusting through it is one entry.
	link := filepath.Join(c.srv.Dir, "link")
	if err := os.Symlink(c.srv.Dir, link); err != nil {
		t.Fatal(err)
	}
	c.want([]string{"trust", link}, 0, "trusted "+filepath.Join(link, ".ralph", "config"), "")
	if list := c.want([]string{"trust", "--list"}, 0, file+"  trusted ", ""); strings.Count(list, "\n") != 1 || !strings.Contains(list, "unchanged") {
		t.Errorf("trust --list:\n%s", list)
	}
	c.want([]string{"trust", "--revoke"}, 0, "revoked trust in "+file+": run refuses its commands again\n", "")
	refuse("revoked", refused)
	c.want([]string{"trust", "--revoke"}, 0, file+" was not trusted\n", "")
	c.want([]string{"trust", "--list"}, 0, "", "")

	// The same commands typed, or set in the environment, need no trust.
	c.config("prompt-mode arg\nrestart-delay 0\n")
	code, stdout, stderr := c.run([]string{"RALPH_ON_DONE=touch hooked"}, append(append([]string(nil), args[:len(args)-2]...), "--replace", "--check", "touch checked", "--", "true")...)
	if code != 0 || !marker("checked") || !marker("hooked") {
		t.Errorf("typed commands: exit %d, ran check %v hook %v\n%s%s", code, marker("checked"), marker("hooked"), stdout, stderr)
	}
	c.want([]string{"status", "cloned"}, 0, "Commands:\n  check 'touch checked' (from flag)\n  on-done 'touch hooked' (from environment)\n", "")

	c.want([]string{"trust", filepath.Join(c.srv.Dir, "nowhere")}, 2, "", "ralph-watch: error: no config file: "+filepath.Join(c.srv.Dir, "nowhere", ".ralph", "config")+"\n")
	c.want([]string{"trust", "a", "b"}, 2, "", "ralph-watch: error: trust takes one folder")
}

// A loop started from a trusted file keeps what was trusted when it is
// resumed (from the background or after a pause), whatever became of the
// trust since; what the file gained since needs trust like a new run.
func TestAResumedLoopKeepsWhatWasTrustedAndRefusesWhatWasAdded(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	file := filepath.Join(c.srv.Dir, ".ralph", "config")
	c.config("check touch checked\nprompt-mode arg\nrestart-delay 0\n")
	prepare := []string{"run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "later", "--no-run", "--max-iterations", "1", "--", "true"}
	c.want(prepare, 2, "", "would run commands: check 'touch checked'") // a prepared loop is no way around trust
	if _, err := os.Stat(filepath.Join(c.srv.Dir, "state", "later")); err == nil {
		t.Fatal("a refused --no-run left state to resume")
	}
	c.want([]string{"trust"}, 0, "trusted ", "")
	c.want(prepare, 0, "", "")
	c.want([]string{"trust", "--revoke"}, 0, "revoked", "")

	c.config("check touch checked\nprompt-mode arg\nrestart-delay 0\non-fail touch added\n")
	c.want([]string{"resume", "later"}, 2, "", "ralph-watch: error: "+file+" would run commands: on-fail 'touch added'; trust it with: ralph-watch trust "+c.srv.Dir+"\n")
	if st := c.state("later"); st.WatcherPID != 0 || st.CurrentIteration != 0 {
		t.Errorf("a refused resume started the loop: %+v", st)
	}

	c.config("check touch checked\nprompt-mode arg\nrestart-delay 0\n")
	c.want([]string{"resume", "later"}, 0, "resumed ralph loop for later", "")
	c.until("later", "the loop to end", func(st *state.State) bool { return st.Status == state.Stopped })
	if _, err := os.Stat(filepath.Join(c.srv.Dir, "checked")); err != nil {
		t.Errorf("the check trusted at start did not run after resume")
	}
	c.want([]string{"status", "later"}, 0, "  check 'touch checked' (from config file "+file+")\n", "")

	// A background watcher knows where its commands came from too.
	c.want([]string{"trust"}, 0, "trusted ", "")
	c.want([]string{"run", "--detach", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "bg", "--max-iterations", "1", "--", "true"}, 0, "in the background", "")
	c.until("bg", "the loop to end", func(st *state.State) bool { return st.Status == state.Stopped })
	c.want([]string{"status", "bg"}, 0, "  check 'touch checked' (from config file "+file+")\n", "")
}
