package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An agent that exits while the loop waits to type its prompt: on tmux 3.3a
// the paste into the dead pane crashed the whole server. The write is now
// refused inside tmux and the iteration ends as the agent's exit, a failure
// (it did no work) with the usual backoff; the checks run after it.
func TestAnAgentThatExitsBeforeItsPromptNeverTakesTheServerDown(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.config("check echo checked\nrestart-delay 0\n")
	c.want([]string{"trust"}, 0, "trusted "+filepath.Join(c.srv.Dir, ".ralph", "config"), "")
	code, stdout, stderr := c.run(nil, "run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "p1",
		"--max-iterations", "3", "--", "sh", "-c", "echo hi; sleep 1")
	if out, err := c.srv.Tmux("list-sessions"); err != nil {
		t.Fatalf("the tmux server is gone: %v %s\nstdout:\n%s\nstderr:\n%s", err, out, stdout, stderr)
	}
	if code != 0 || strings.Contains(stderr, "server is gone") {
		t.Errorf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	log, _ := os.ReadFile(filepath.Join(c.srv.Dir, "state", "p1", "iterations.log"))
	if n := strings.Count(string(log), "[START]"); n != 3 {
		t.Errorf("%d iterations started, want 3:\n%s", n, log)
	}
	if n := strings.Count(string(log), "exit=0 before_prompt"); n != 3 {
		t.Errorf("%d iterations failed for an agent that exited before it took the prompt, want 3:\n%s", n, log)
	}
	if n := strings.Count(string(log), "[CHECK]"); n < 3 {
		t.Errorf("the checks ran %d times, want after each of 3 iterations:\n%s", n, log)
	}
}

// The setup the README and the template recommend, the done token named in
// the prompt, runs without a warning: the prompt's echo never counts.
func TestTheRecommendedDoneTokenInThePromptGivesNoWarning(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "PROMPT.md"), []byte("do the next task; when all are done print RALPH_DONE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := c.run(nil, "run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--prompt-mode", "arg",
		"--max-iterations", "1", "--done-pattern", "RALPH_DONE", "--", "true")
	if code != 3 || strings.Contains(stderr, "warning") {
		t.Errorf("exit %d, want 3 and no warning\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// A failure's sentence shows where the person looks, not only its code
// word: status says what went wrong.
func TestStatusOfAFailedLoopSaysWhy(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, stderr := c.run(nil, "run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "typo", "--prompt-mode", "arg",
		"--max-iterations", "2", "--", "claud-no-such-program")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	c.want([]string{"status", "typo"}, 0, "Exit reason: fatal_exit\nError: command not found: claud-no-such-program (exit 127)\n", "")
}
