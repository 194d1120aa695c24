package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// secret is a key the person gives their agent; it must reach the agent
// and nothing else.
const secret = "sk-ant-SECRET-4242"

// keyAgent writes a program that says, one line per run into got, whether
// ANTHROPIC_API_KEY reached it (its length, never its value).
func keyAgent(t *testing.T, dir, got string) string {
	t.Helper()
	path := filepath.Join(dir, "key-agent.sh")
	script := "#!/bin/sh\nif [ -n \"$ANTHROPIC_API_KEY\" ]; then echo \"key set, ${#ANTHROPIC_API_KEY} chars\"; else echo 'key unset'; fi >> '" + got + "'\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// noSecretUnder fails the test for every file under dir that holds the secret.
func noSecretUnder(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() { // not the watcher's lifeline FIFO: a read of it waits for a writer
			if data, _ := os.ReadFile(path); strings.Contains(string(data), secret) {
				t.Errorf("%s holds the secret:\n%s", path, data)
			}
		}
		return nil
	})
}

func TestASecretInTheCommandReachesEveryIterationAndIsNeverWrittenOrShown(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	got := filepath.Join(c.srv.Dir, "got")
	agent := keyAgent(t, c.srv.Dir, got)
	var outputs []string
	run := func(env []string, code int, args ...string) string {
		t.Helper()
		gotCode, stdout, stderr := c.run(env, args...)
		if gotCode != code {
			t.Errorf("ralph-watch %v: exit %d, want %d\n%s%s", args, gotCode, code, stdout, stderr)
		}
		outputs = append(outputs, stdout+stderr)
		return stdout + stderr
	}
	ended := func(st *state.State) bool { return st.ExitReason != nil }
	checked := filepath.Join(c.srv.Dir, "checked")
	run(nil, 0, "run", "--detach", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "sec", "--prompt-mode", "arg",
		"--max-iterations", "2", "--restart-delay", "0", "--check", `echo "key ${ANTHROPIC_API_KEY:+set}" >> `+checked,
		"--", "env", "ANTHROPIC_API_KEY="+secret, agent)
	c.until("sec", "ended", ended)
	if data, _ := os.ReadFile(got); string(data) != strings.Repeat("key set, 18 chars\n", 2) {
		t.Errorf("the agent saw %q, want the key in both iterations", data)
	}
	if data, _ := os.ReadFile(checked); string(data) != "key \nkey \n" {
		t.Errorf("the checks saw %q, want no key: it is the agent's alone", data)
	}
	if st := c.state("sec"); !strings.Contains(strings.Join(st.Command, " "), "ANTHROPIC_API_KEY=…") {
		t.Errorf("state command %q, want the key's name with its value hidden", st.Command)
	}
	report := filepath.Join(c.srv.Dir, "report.html")
	for _, args := range [][]string{{"status", "sec"}, {"status", "--json", "sec"}, {"list"}, {"list", "--json"},
		{"logs", "sec"}, {"report", "sec", "-o", report}} {
		run(nil, 0, args...)
	}

	// Prepared, then resumed: the value is given by the environment, else refused naming it.
	_ = os.Remove(got)
	run(nil, 0, "run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "held", "--no-run", "--prompt-mode", "arg",
		"--max-iterations", "1", "--restart-delay", "0", "--", "env", "ANTHROPIC_API_KEY="+secret, agent)
	if out := run(nil, 2, "resume", "held"); !strings.Contains(out, "needs ANTHROPIC_API_KEY") || !strings.Contains(out, "export ANTHROPIC_API_KEY=…") {
		t.Errorf("resume without the key: %q, want the missing name and how to give it", out)
	}
	run([]string{"ANTHROPIC_API_KEY=" + secret}, 0, "resume", "held")
	c.until("held", "ended", ended)
	if data, _ := os.ReadFile(got); string(data) != "key set, 18 chars\n" {
		t.Errorf("the resumed agent saw %q, want the key exported before resume", data)
	}
	// A hidden value in a command typed by hand comes from the environment too.
	run(nil, 2, "run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "typed", "--no-run", "--", "env", "ANTHROPIC_API_KEY=…", agent)

	for _, out := range outputs {
		if strings.Contains(out, secret) {
			t.Errorf("an output shows the secret:\n%s", out)
		}
	}
	noSecretUnder(t, filepath.Join(c.srv.Dir, "state"))
	noSecretUnder(t, report)
}

func TestDoctorDoesNotShowTheKeyInTheCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, out, errOut := c.run(nil, "doctor", "--agent", "claude", "--", "env", "ANTHROPIC_API_KEY="+secret, fakeClaude(t, fakeClaudeRuns))
	if code != 0 || !strings.Contains(out, "env ANTHROPIC_API_KEY=… ") {
		t.Errorf("doctor: exit %d, want 0 and the command with the key hidden\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, secret) {
		t.Errorf("doctor shows the secret:\n%s%s", out, errOut)
	}
}

// After a reboot no watcher holds the key: restore says which key is
// missing and how to give it, before any iteration; given it, the loop
// goes on and its agents get it.
func TestRestoreAfterARebootNamesTheMissingKeyThenCarriesIt(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	got := filepath.Join(c.srv.Dir, "got")
	agent := keyAgent(t, c.srv.Dir, got)
	stuck := `"$0"; if [ "$RALPH_ITERATION" = 2 ]; then sleep 120; fi`
	c.detach("keyed", "--prompt-mode", "arg", "--max-iterations", "3", "--", "env", "ANTHROPIC_API_KEY="+secret, "sh", "-c", stuck, agent)
	c.until("keyed", "iteration 2", func(st *state.State) bool { return st.CurrentIteration == 2 })
	tmuxtest.Eventually(t, 30*time.Second, "iteration 2's agent to start", func() bool { // a busy machine starts it late
		data, _ := os.ReadFile(got)
		return strings.Count(string(data), "\n") == 2
	})
	c.killServer("keyed")
	c.newServer()
	if out := c.want([]string{"restore", "-S", c.srv.Socket}, 1, "", "cannot re-arm keyed: the agent's command needs ANTHROPIC_API_KEY"); strings.Contains(out, secret) {
		t.Errorf("restore shows the key:\n%s", out)
	}
	if log := c.log("keyed"); strings.Contains(log, "[START] iteration 3") {
		t.Errorf("an iteration started without the key:\n%s", log)
	}
	c.wantEnv([]string{"ANTHROPIC_API_KEY=" + secret}, []string{"restore", "-S", c.srv.Socket}, 0, "re-armed keyed", "")
	c.until("keyed", "the loop to end", func(st *state.State) bool { return st.ExitReason != nil && *st.ExitReason != "server_gone" })
	if data, _ := os.ReadFile(got); string(data) != strings.Repeat("key set, 18 chars\n", 3) {
		t.Errorf("the agents saw %q, want the key in each of the 3 iterations", data)
	}
	noSecretUnder(t, filepath.Join(c.srv.Dir, "state"))
}

// An agent starts with the tmux server's environment, not the shell's where
// run was typed: a secret exported there after tmux started never reaches
// it. run says so, on its output and in the loop's log (the pane's screen
// is wiped by the first iteration), and says how to carry it; a command
// that carries it itself gets no such word.
func TestRunSaysWhenASecretOfItsShellWillNotReachTheAgent(t *testing.T) {
	c := newCLI(t)
	agent := `echo "token=[$FAKE_SERVICE_TOKEN]"; exit 0`
	want := "ralph-watch: warning: FAKE_SERVICE_TOKEN is set here but not in the environment of the tmux server, which each iteration's agent starts with: the agent will not have it; carry it with -- env FAKE_SERVICE_TOKEN=… COMMAND (its value is taken from here, kept in memory, never written)"
	_, _, stderr := c.run([]string{"FAKE_SERVICE_TOKEN=t0k"}, "run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "envw", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "1", "--", "sh", "-c", agent)
	if !strings.Contains(stderr, want) {
		t.Errorf("run's stderr = %q, want %q", stderr, want)
	}
	c.want([]string{"logs", "envw"}, 0, "[ENV] FAKE_SERVICE_TOKEN is set here but not in the environment of the tmux server", "")
	_, _, stderr = c.run([]string{"FAKE_SERVICE_TOKEN=t0k"}, "run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "envc", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "1", "--", "env", "FAKE_SERVICE_TOKEN=…", "sh", "-c", agent)
	if strings.Contains(stderr, "FAKE_SERVICE_TOKEN is set here") {
		t.Errorf("a command that carries the secret is warned: %q", stderr)
	}
}
