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
// (it did no work) with the usual backoff; the checks run after it. Every
// iteration failed: the loop ends failed, not done.
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
	if code != 1 || strings.Contains(stderr, "server is gone") || !strings.Contains(stderr, "max iterations (3) reached and all 3 iterations failed") {
		t.Errorf("exit %d, want 1, every iteration failed\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
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

// A loop started from a shell whose PATH finds the agent (a wrapper's
// folder) runs the same agent when resumed from a shell whose PATH does not.
func TestAResumeFromAnotherShellKeepsThePathTheLoopStartedWith(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	bin := filepath.Join(c.srv.Dir, "wrappers")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "myagent"), []byte("#!/bin/sh\necho \"agent ran $RALPH_ITERATION\"\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var path string
	for _, kv := range c.srv.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	code, stdout, stderr := c.run([]string{"PATH=" + bin + ":" + path}, "run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "wrapped",
		"--no-run", "--prompt-mode", "arg", "--max-iterations", "2", "--restart-delay", "0", "--", "myagent")
	if code != 0 {
		t.Fatalf("run --no-run: exit %d\n%s%s", code, stdout, stderr)
	}
	st := c.resumeToEnd("wrapped", 2, "[END] iteration 1 exit=0", "[END] iteration 2 exit=0")
	if st.TotalFailures != 0 {
		t.Errorf("%d failures: the resumed loop did not find its agent\n%s", st.TotalFailures, c.log("wrapped"))
	}
}

// A new loop of an ended loop's name (the loop key on the same pane and
// folder) has its own history: the ended run's log, receipts and casts are
// kept apart, and status says so.
func TestANewLoopOfAnEndedLoopsNameStartsItsOwnHistory(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.srv.NewPane()
	loop := func() string {
		code, stdout, stderr := c.run(nil, "run", "-S", c.srv.Socket, "-t", pane, "--name", "proj-0", "--prompt-mode", "arg",
			"--max-iterations", "3", "--restart-delay", "0", "--", "true")
		if code != 0 {
			t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
		}
		return stdout
	}
	loop()
	if out := loop(); !strings.Contains(out, "kept the ended run of proj-0 in ") {
		t.Errorf("the second run does not say where the first went:\n%s", out)
	}
	dir := filepath.Join(c.srv.Dir, "state", "proj-0")
	log, _ := os.ReadFile(filepath.Join(dir, "iterations.log"))
	if n := strings.Count(string(log), "[START]"); n != 3 {
		t.Errorf("the new run's log has %d iterations, want its own 3:\n%s", n, log)
	}
	if receipts, _ := os.ReadFile(filepath.Join(dir, "receipts.jsonl")); strings.Count(string(receipts), "\n") != 3 {
		t.Errorf("the new run has %d receipts, want 3", strings.Count(string(receipts), "\n"))
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "iterations.log"))
	if len(runs) != 1 {
		t.Fatalf("earlier runs kept: %q, want one", runs)
	}
	if old, _ := os.ReadFile(runs[0]); strings.Count(string(old), "[START]") != 3 {
		t.Errorf("the ended run's log was not kept whole:\n%s", old)
	}
	c.want([]string{"status", "proj-0"}, 0, "Spent: no usage reported over 3 iterations\n", "")
	c.want([]string{"status", "proj-0"}, 0, "Earlier runs: 1, kept apart in "+filepath.Join(dir, "runs")+"\n", "")
}
