package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestBadInputIsRefusedWithOneLineAndExit2BeforeAnythingIsSpawned(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.srv.NewPane()
	if err := os.Mkdir(filepath.Join(c.srv.Dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(c.srv.Dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "huge.md"), bytes.Repeat([]byte("x"), 50<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "binary.md"), []byte("\x7fELF\x02\x01\x01\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "latin1.md"), []byte("do \377\376 task"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := []string{"run", "-S", c.srv.Socket, "-t", pane}
	outside := []string{"run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir)}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing prompt file", append(ok, "--prompt-file", "nope.md", "--", "sh"), "ralph-watch: error: prompt file not found: " + filepath.Join(c.srv.Dir, "nope.md")},
		{"prompt file is a directory", append(ok, "--prompt-file", "adir", "--", "sh"), "ralph-watch: error: cannot read prompt file: " + filepath.Join(c.srv.Dir, "adir") + " (is a directory)"},
		{"bad regex", append(ok, "--done-pattern", "(", "--", "sh"), "ralph-watch: error: invalid --done-pattern: error parsing regexp"},
		{"bad ready regex", append(ok, "--ready-pattern", "[", "--", "sh"), "ralph-watch: error: invalid --ready-pattern"},
		{"name with a slash", append(ok, "--name", "a/b", "--", "sh"), `ralph-watch: error: invalid loop name "a/b"`},
		{"name dot dot", append(ok, "--name", "..", "--", "sh"), `ralph-watch: error: invalid loop name ".."`},
		{"name too long", append(ok, "--name", strings.Repeat("n", 65), "--", "sh"), "ralph-watch: error: invalid loop name"},
		{"name with command substitution", append(ok, "--name", "$(touch x)", "--", "sh"), "ralph-watch: error: invalid loop name"},
		{"name with a space", append(ok, "--name", "a b", "--", "sh"), `ralph-watch: error: invalid loop name "a b"`},
		{"name with quotes", append(ok, "--name", `it's"`, "--", "sh"), "ralph-watch: error: invalid loop name"},
		{"name with a newline", append(ok, "--name", "a\nb", "--", "sh"), `ralph-watch: error: invalid loop name "a\nb"`},
		{"name dot", append(ok, "--name", ".", "--", "sh"), `ralph-watch: error: invalid loop name "."`},
		{"name with a tmux format", append(ok, "--name", "#{pane_id}", "--", "sh"), "ralph-watch: error: invalid loop name"},
		{"prompt file is a FIFO", append(ok, "--prompt-file", "fifo", "--", "sh"), "ralph-watch: error: cannot read prompt file: " + filepath.Join(c.srv.Dir, "fifo") + " (not a regular file)"},
		{"prompt file of 50 MB", append(ok, "--prompt-file", "huge.md", "--", "sh"), "ralph-watch: error: cannot read prompt file: " + filepath.Join(c.srv.Dir, "huge.md") + " (larger than 8 MiB)"},
		{"binary prompt file", append(ok, "--prompt-file", "binary.md", "--", "sh"), "ralph-watch: error: cannot read prompt file: " + filepath.Join(c.srv.Dir, "binary.md") + " (binary: holds NUL bytes)"},
		{"prompt file not UTF-8", append(ok, "--prompt-file", "latin1.md", "--", "sh"), "ralph-watch: error: prompt file " + filepath.Join(c.srv.Dir, "latin1.md") + " is not valid UTF-8 at byte 3"},
		{"target is a window that does not exist", []string{"run", "-S", c.srv.Socket, "-t", "main:99", "--", "sh"}, "ralph-watch: error: no such pane: main:99"},
		{"target is nonsense", []string{"run", "-S", c.srv.Socket, "-t", "$(touch x)", "--", "sh"}, "ralph-watch: error: no such pane: $(touch x)"},
		{"negative max time", append(ok, "--max-time", "-1h", "--", "sh"), "negative duration"},
		{"nonsense restart delay", append(ok, "--restart-delay", "1x", "--", "sh"), `invalid duration "1x"`},
		{"no such pane", []string{"run", "-S", c.srv.Socket, "-t", "%999", "--", "sh"}, "ralph-watch: error: no such pane: %999"},
		{"no server", []string{"run", "-S", filepath.Join(c.srv.Dir, "none"), "-t", "%0", "--", "sh"}, "ralph-watch: error: no tmux server running"},
		{"both -L and -S", []string{"run", "-L", "x", "-S", c.srv.Socket, "--", "sh"}, "ralph-watch: error: give -L or -S, not both"},
		{"bad prompt mode", append(ok, "--prompt-mode", "shout", "--", "sh"), `ralph-watch: error: invalid --prompt-mode "shout"`},
		{"max context for an agent that does not tell it", append(ok, "--max-context", "60", "--", "aider"), "ralph-watch: error: --max-context: aider does not tell how full its context window is"},
		{"max context past 85", append(ok, "--max-context", "90", "--agent", "claude", "--", "claude"), "ralph-watch: error: --max-context 90: give a share of the context window from 1 to 85"},
		{"negative duration", append(ok, "--inactivity-timeout", "-5", "--", "sh"), `ralph-watch: error: invalid value "-5" for flag --inactivity-timeout: negative duration`},
		{"nonsense duration", append(ok, "--poll-interval", "soon", "--", "sh"), `invalid duration "soon"`},
		{"zero poll interval", append(ok, "--poll-interval", "0", "--", "sh"), "--poll-interval must be more than 0"},
		{"negative max iterations", append(ok, "--max-iterations", "-1", "--", "sh"), "--max-iterations must not be negative"},
		{"no command", ok, "ralph-watch: error: no command provided (use -- command...)"},
		{"unknown flag", append(ok, "--bogus", "--", "sh"), "ralph-watch: error: flag provided but not defined: --bogus"},
		{"unknown agent", append(ok, "--agent", "hal", "--", "sh"), `ralph-watch: error: unknown --agent "hal": use aider, amp, claude, codex, copilot, gemini, generic, opencode`},
		{"mode the agent lacks", append(ok, "--agent", "aider", "--prompt-mode", "stdin", "--", "aider"), "ralph-watch: error: aider does not take prompts in stdin mode"},
		{"arg mode through a wrapper", append(ok, "--agent", "claude", "--prompt-mode", "arg", "--", "mywrap"), "ralph-watch: error: --prompt-mode arg needs claude … -p, and that cannot be added to 'mywrap' (not claude's own program)"},
		{"stdin mode in a complex shell line", append(ok, "--agent", "codex", "--prompt-mode", "stdin", "--", "cd sub && codex"), "cannot be added to the shell line 'cd sub && codex' (it uses '&')"},
		{"bad busy regex", append(ok, "--busy-pattern", "(", "--", "sh"), "ralph-watch: error: invalid --busy-pattern"},
		{"bad limit regex", append(ok, "--agent", "claude", "--limit-pattern", "*", "--", "claude"), "ralph-watch: error: invalid --limit-pattern"},
		{"zero limit wait", append(ok, "--limit-wait", "0", "--", "sh"), "--limit-wait must be more than 0"},
		{"unknown fail action", append(ok, "--check-fail-action", "ignore", "--", "sh"), `ralph-watch: error: invalid --check-fail-action "ignore": use append, prepend or replace`},
		{"negative output chars", append(ok, "--check-output-chars", "-1", "--", "sh"), "--check-output-chars must not be negative"},
		{"negative stall limit", append(ok, "--stall-limit", "-2", "--", "sh"), "--stall-limit must not be negative"},
		{"zero check timeout", append(ok, "--check-timeout", "0", "--", "sh"), "--check-timeout must be more than 0"},
		{"negative token budget", append(ok, "--max-tokens", "-1", "--", "sh"), "--max-tokens must not be negative"},
		{"negative cost budget", append(ok, "--max-cost", "-0.5", "--", "sh"), "--max-cost must be a number of US dollars, not negative"},
		{"no prices file", append(ok, "--prices", "/nonexistent/prices.json", "--", "sh"), "ralph-watch: error: --prices: open /nonexistent/prices.json"},
		{"negative check timeout", append(ok, "--check-timeout", "-1s", "--", "sh"), "negative duration"},
		{"empty check", append(ok, "--check", " ", "--", "sh"), "empty check command"},
		{"hint without a check", append(ok, "--check-hint", "h", "--", "sh"), "a hint must follow the --check it explains"},
		{"two hints for a check", append(ok, "--check", "true", "--check-hint", "a", "--check-hint", "b", "--", "sh"), "a hint must follow the --check it explains"},
		{"worktree outside git", append(outside, "--worktree", "--", "sh"), "ralph-watch: error: --worktree needs a git repository: " + c.srv.Dir + " is not in one"},
		{"stall limit outside git", append(outside, "--stall-limit", "3", "--", "sh"), "ralph-watch: error: --stall-limit needs a git repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := c.panes()
			code, stdout, stderr := c.run(nil, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr: %s", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
				t.Errorf("stderr has %d lines, want one: %q", n+1, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if after := c.panes(); after != before {
				t.Errorf("panes changed:\nbefore %s\nafter  %s", before, after)
			}
			if _, err := os.Stat(filepath.Join(c.srv.Dir, "state")); err == nil {
				t.Errorf("state was written")
			}
			if _, err := os.Stat(filepath.Join(c.srv.Dir, "x")); err == nil {
				t.Errorf("a name reached a shell")
			}
		})
	}
}

// A state folder that cannot be written is a setting to fix: exit 2 with
// one line naming it, before anything is spawned (the pane runs on as it was).
func TestAStateFolderThatCannotBeWrittenIsRefusedWithExit2(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.srv.NewPane()
	roots := []string{"/sys/kernel/ralph-state"} // read-only for every user, root too
	if os.Geteuid() != 0 {                       // root writes through a folder's mode
		locked := filepath.Join(c.srv.Dir, "locked")
		if err := os.Mkdir(locked, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(locked, 0o700) })
		roots = append(roots, locked)
	}
	for _, root := range roots {
		before := c.panes()
		code, stdout, stderr := c.run([]string{"RALPH_STATE_DIR=" + root}, "run", "-S", c.srv.Socket, "-t", pane, "--name", "ro", "--", "sh")
		// The pane's claim is made there first, else the loop's folder.
		if code != 2 || !strings.HasPrefix(stderr, "ralph-watch: error: cannot write the state folder "+root) ||
			strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("state in %s: exit %d\nstdout %q\nstderr %q", root, code, stdout, stderr)
		}
		if after := c.panes(); after != before {
			t.Errorf("state in %s: the panes changed:\n%s\nto\n%s", root, before, after)
		}
	}
}
