package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// runIn runs ralph-watch to its end in folder dir, as a person would from
// there, with env added.
func (c *cli) runIn(dir string, env []string, args ...string) (int, string, string) {
	c.t.Helper()
	cmd := c.command(env, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			c.t.Fatal(err)
		}
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		c.t.Fatalf("ralph-watch %v still running after 90s:\n%s%s", args, stdout.String(), stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// wantIn is runIn, failing the test on another exit code.
func (c *cli) wantIn(dir string, env []string, code int, args ...string) string {
	c.t.Helper()
	got, stdout, stderr := c.runIn(dir, env, args...)
	if got != code {
		c.t.Errorf("ralph-watch %v in %s: exit %d, want %d\n%s%s", args, dir, got, code, stdout, stderr)
	}
	return stdout
}

// newWatcher waits until a watcher other than old holds loop name and has
// recorded its settings, and returns its state.
func (c *cli) newWatcher(name string, old int) *state.State {
	c.t.Helper()
	return c.until(name, "a new watcher", func(st *state.State) bool {
		return st.WatcherPID != old && st.WatcherPID != 0 && alive(st.WatcherPID) && st.Status == state.Running && st.Settings != nil
	})
}

// notSettings are run's flags that say how this command runs, not how the
// loop does: where it loops (resume and restore may move it) and how the
// name is claimed.
var notSettings = map[string]string{
	"t": "the pane", "target": "the pane", "L": "the server", "socket-name": "the server", "S": "the server", "socket-path": "the server",
	"detach": "how run returns", "replace": "how the name is claimed", "clean-state": "how the name is claimed",
	"no-run": "whether it starts now", "tmux": "does nothing",
}

// oneOf are run's flags that another flag the test gives stands for: a
// loop takes one of the two, and both fill the same setting.
var oneOf = map[string]string{"goal": "goal-file"}

// perWatcher are the settings each watcher has of its own: that it resumes,
// the arguments it was started with (the pane in them), and the pane, which
// restore gives anew.
var perWatcher = map[string]bool{"Resume": true, "WatcherArgs": true, "Pane": true}

// wantSameSettings fails the test for each of the loop's settings (each
// field of watch.Config) that is not as at its first start.
func wantSameSettings(t *testing.T, when string, first, now map[string]string) {
	t.Helper()
	typ := reflect.TypeOf(watch.Config{})
	for i := 0; i < typ.NumField(); i++ {
		name := typ.Field(i).Name
		if perWatcher[name] {
			continue
		}
		was, ok1 := first[name]
		is, ok2 := now[name]
		if !ok1 || !ok2 {
			t.Errorf("%s: the setting %s is not recorded (first %v, now %v)", when, name, ok1, ok2)
			continue
		}
		if was != is {
			t.Errorf("%s: %s is %q, was %q", when, name, is, was)
		}
	}
}

// A loop resumed is the loop it was: started with every setting other than
// its default, in a worktree with a plan, then paused and resumed from
// another folder while its agent works, resumed after its watcher was
// killed (kill -9), and brought back by restore after its tmux server was
// killed, each watcher runs it with the same settings, field by field, and
// reads the worktree's plan.
func TestALoopResumedOrRestoredAfterKillServerHasEverySettingItStartedWith(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"PLAN.md": "- [ ] One\n- [ ] Two\n"})
	for name, text := range map[string]string{
		"prompts/LOOP.md": "TASK=[{{task}}]\n",
		"prices.json":     `{"fake-model": {"input": 1, "output": 2}}`,
		"windows.json":    `{"fake-model": 100000}`,
		"GOAL.md":         "Both tasks done\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hold := filepath.Join(c.srv.Dir, "hold")
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// It works until the test lets it go, as a long turn does.
	agent := filepath.Join(c.srv.Dir, "claude")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\ntouch \"working-$RALPH_ITERATION\"; while [ -f "+hold+" ]; do sleep 0.2; done; exit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	given := map[string]string{
		"name": "every", "prompt-file": "prompts/LOOP.md", "prompt-mode": "arg", "max-iterations": "12",
		"inactivity-timeout": "170s", "poll-interval": "1s", "lines": "21", "done-pattern": "NEVER_DONE_[0-9]{9}",
		"check-done-continuous": "false", "done-file": "DONE.flag", "ready-pattern": "ready>", "ready-timeout": "50s",
		"iteration-timeout": "10m", "max-time": "2h", "restart-delay": "0", "agent": "claude",
		"busy-pattern": "BUSY_[0-9]{9}", "dialog-pattern": "ASK_[0-9]{9}", "limit-pattern": "LIMIT_[0-9]{9}",
		"idle-grace": "7s", "dialog-timeout": "9m", "limit-wait": "31m", "turn-hook": "false",
		"check": "test -d .", "check-hint": "the folder is there", "check-timeout": "110s", "check-output-chars": "4000",
		"check-fail-action": "prepend", "include-iteration-count": "true", "on-iteration-end": "true", "on-done": "true",
		"on-fail": "true", "commit": "true", "progress-file": "progress.md", "worktree": "true", "stall-limit": "5",
		"pause-file": "PAUSE", "cast-limit": "1MB", "no-cast": "true", "end-command": "/bin/sh",
		"max-tokens": "900000000", "max-cost": "900", "prices": "prices.json", "max-context": "70",
		"context-nudge": "wrap it up", "context-windows": "windows.json", "tasks": "PLAN.md", "task": "2",
		"task-attempts": "4", "review": "true", "review-cap": "2", "diff-chars": "1000",
		"goal-file": "GOAL.md", "judge": "false", "judge-every": "1000", "judge-prompt-mode": "arg", "judge-timeout": "3m",
		"judge-patience": "4", "protect": "*.lock", "no-protect": "true",
	}
	// Every flag of run is set here, or says why it is no setting of the loop's.
	_, fs := config.NewRun()
	args := []string{"run", "--detach", "-S", c.srv.Socket, "-t", c.pane(repo)}
	fs.VisitAll(func(fl *flag.Flag) {
		name := fl.Name
		_, skip := notSettings[name]
		if _, other := oneOf[name]; other {
			skip = true
		}
		v, ok := given[name]
		switch {
		case skip:
		case !ok:
			t.Errorf("run's flag --%s is not set by this test: give it a value other than its default", name)
		case fl.DefValue == v:
			t.Errorf("--%s %s is its default", name, v)
		default:
			args = append(args, "--"+name+"="+v)
		}
	})
	args = append(args, "--", agent)
	base := strings.TrimSpace(c.git(repo, "rev-parse", "HEAD")) // and what the fan gives its loops, by the environment
	if code, stdout, stderr := c.runIn(repo, append([]string{control.TaskBaseEnv + "=" + base}, gitEnv...), args...); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	tree := filepath.Join(repo, ".ralph", "worktrees", "every")
	plan := filepath.Join(tree, "PLAN.md")
	tmuxtest.Eventually(t, 60*time.Second, "the agent to work", func() bool {
		_, err := os.Stat(filepath.Join(tree, "working-1"))
		return err == nil
	})
	st := c.newWatcher("every", 0)
	first := st.Settings
	for setting, want := range map[string]string{"Dir": tree, "TasksFile": plan, "PromptFile": filepath.Join(repo, "prompts", "LOOP.md"),
		"DoneFile": filepath.Join(tree, "DONE.flag"), "PauseFile": filepath.Join(tree, "PAUSE"), "ProgressFile": filepath.Join(tree, "progress.md"),
		"TaskBase": base} {
		if first[setting] != want {
			t.Errorf("at its start %s is %q, want %q", setting, first[setting], want)
		}
	}
	elsewhere := t.TempDir()

	// Paused while its agent works, resumed from another folder: the new watcher takes up the agent.
	c.wantIn(elsewhere, gitEnv, 0, "pause", "every")
	c.wantIn(elsewhere, gitEnv, 0, "resume", "every")
	st = c.newWatcher("every", st.WatcherPID)
	wantSameSettings(t, "resumed from another folder", first, st.Settings)

	// Its watcher killed: resume takes the agent up again.
	old := st.WatcherPID
	_ = syscall.Kill(old, syscall.SIGKILL)
	tmuxtest.Eventually(t, 30*time.Second, "the watcher to die", func() bool { return !alive(old) })
	c.wantIn(elsewhere, gitEnv, 0, "resume", "every")
	st = c.newWatcher("every", old)
	wantSameSettings(t, "resumed after kill -9", first, st.Settings)

	// Its server killed: restore brings it back in a new pane.
	c.killServer("every")
	c.newServer()
	c.wantIn(elsewhere, gitEnv, 0, "restore", "-S", c.srv.Socket)
	st = c.newWatcher("every", st.WatcherPID)
	wantSameSettings(t, "restored after the server was killed", first, st.Settings)
	if st.Tasks == nil || st.Tasks.File != plan {
		t.Errorf("the restored loop reads the plan %+v, want %s", st.Tasks, plan)
	}
	_ = os.Remove(hold)
	c.wantIn(elsewhere, gitEnv, 0, "stop", "--kill", "every")
}

// A worktree loop with a plan, paused and resumed from another folder while
// its agent works, resumed after its watcher was killed (kill -9), and
// restored after its tmux server was killed, reads the worktree's plan all
// along: a task done is never given again, every task ends done, the
// person's checkout is untouched, and each iteration's receipt counts what
// it changed, measured from where it began.
func TestAWorktreeLoopWithAPlanResumedKilledAndRestoredWorksThroughTheWorktreesPlan(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"PLAN.md": "- [ ] Alpha\n- [ ] Beta\n- [ ] Gamma\n", "LOOP.md": "TASK=[{{task}}]\n"})
	at := func(name string) string { return filepath.Join(c.srv.Dir, name) }
	for _, n := range []string{"1", "2", "3"} {
		if err := os.WriteFile(at("hold-"+n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// It takes its task from the prompt, works until the test lets it go,
	// then ticks the task in the plan beside it and writes a file.
	agent := filepath.Join(c.srv.Dir, "agent")
	script := `#!/bin/sh
task=$(printf %s "$1" | sed -n 's/^TASK=\[\(- \[ \] \)*\(.*\)\]$/\2/p')
echo "$RALPH_ITERATION $task" >> ` + at("given") + `
touch ` + at("working-") + `$RALPH_ITERATION
while [ -f ` + at("hold-") + `$RALPH_ITERATION ]; do sleep 0.2; done
sed -i "s/^- \[ \] $task\$/- [x] $task/" PLAN.md
echo "$task" > "work-$RALPH_ITERATION.txt"
`
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	working := func(n string) {
		t.Helper()
		tmuxtest.Eventually(t, 60*time.Second, "the agent of iteration "+n+" to work", func() bool {
			_, err := os.Stat(at("working-" + n))
			return err == nil
		})
	}
	if code, stdout, stderr := c.runIn(repo, gitEnv, "run", "--detach", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "wt", "--worktree",
		"--tasks", "PLAN.md", "--prompt-file", "LOOP.md", "--prompt-mode", "arg", "--max-iterations", "8", "--restart-delay", "0", "--", agent); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	elsewhere := t.TempDir()
	working("1")
	st := c.newWatcher("wt", 0)
	c.wantIn(elsewhere, gitEnv, 0, "pause", "wt")
	c.wantIn(elsewhere, gitEnv, 0, "resume", "wt")
	c.newWatcher("wt", st.WatcherPID)
	_ = os.Remove(at("hold-1"))

	working("2")
	// Once its prompt is recorded as given: a watcher killed before then starts the iteration again.
	st = c.until("wt", "iteration 2 under way", func(st *state.State) bool { return st.CurrentIteration == 2 && !st.PromptUntyped })
	old := st.WatcherPID
	_ = syscall.Kill(old, syscall.SIGKILL)
	tmuxtest.Eventually(t, 30*time.Second, "the watcher to die", func() bool { return !alive(old) })
	c.wantIn(elsewhere, gitEnv, 0, "resume", "wt")
	c.newWatcher("wt", old)
	_ = os.Remove(at("hold-2"))

	working("3")
	c.until("wt", "iteration 3", func(st *state.State) bool { return st.CurrentIteration == 3 })
	c.killServer("wt")
	c.newServer()
	c.wantIn(elsewhere, gitEnv, 0, "restore", "-S", c.srv.Socket)
	st = c.until("wt", "the loop to end", func(st *state.State) bool { return st.ExitReason != nil && *st.ExitReason != "server_gone" })

	tree := filepath.Join(repo, ".ralph", "worktrees", "wt")
	given, _ := os.ReadFile(at("given"))
	if *st.ExitReason != "tasks_done" || string(given) != "1 Alpha\n2 Beta\n3 Gamma\n4 Gamma\n" {
		t.Errorf("ended %s; tasks given (iteration, task):\n%s\nwant each once, Gamma again after the restart cut it short\n%s", *st.ExitReason, given, c.log("wt"))
	}
	if st.Tasks == nil || st.Tasks.File != filepath.Join(tree, "PLAN.md") || st.Tasks.Done != 3 {
		t.Errorf("the loop's plan: %+v, want the worktree's, 3 done", st.Tasks)
	}
	c.want([]string{"status", "wt"}, 0, "Tasks: 3 of 3 done, 0 open, 0 skipped ("+filepath.Join(tree, "PLAN.md")+")\n", "")
	if got := c.git(repo, "status", "--porcelain"); got != "" {
		t.Errorf("the person's checkout changed: %q", got)
	}
	rs, err := receipt.Load(filepath.Join(c.srv.Dir, "state", "wt", "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[int]int{}
	for _, r := range rs {
		files[r.Iteration] = r.Changes.Files
	}
	if files[1] != 2 || files[2] != 2 || files[4] != 2 {
		t.Errorf("files changed by iteration: %v, want 2 in each of 1, 2 (taken up by a new watcher) and 4", files)
	}
}

// A loop that failed for a cause the person can mend (its prompt file gone
// for good) resumes once it is mended, and until then resume says what
// stands in the way; resume of a loop that is done says why and what to do.
func TestResumeOfAFailedLoopGoesOnOnceItsCauseIsMended(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	prompt := filepath.Join(c.srv.Dir, "PROMPT.md")
	agent := `[ "$RALPH_ITERATION" = 1 ] && rm -f ` + prompt + `; exit 0`
	if code, stdout, stderr := c.run(nil, "run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "mend", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "3", "--", "sh", "-c", agent); code != 1 || !strings.Contains(stderr, "prompt file not found") {
		t.Fatalf("run: exit %d, want 1 for the lost prompt file\n%s%s", code, stdout, stderr)
	}
	c.want([]string{"resume", "mend"}, 1, "", "ralph-watch: error: loop 'mend' failed because its prompt file "+prompt+
		" could not be read, and it still cannot: put it back, then 'ralph-watch resume mend'\n")
	if err := os.WriteFile(prompt, []byte("do the next task\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.want([]string{"resume", "mend"}, 0, "resumed ralph loop for mend", "")
	st := c.until("mend", "the loop to end", func(st *state.State) bool {
		return st.ExitReason != nil && (st.CurrentIteration > 1 || *st.ExitReason != "prompt_file_missing")
	})
	if *st.ExitReason != "max_iterations" || st.CurrentIteration != 3 {
		t.Errorf("the mended loop ended %s at iteration %d, want max_iterations at 3\n%s", *st.ExitReason, st.CurrentIteration, c.log("mend"))
	}

	c.want([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "over", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "1", "--done-pattern", "^DONE$", "--", "sh", "-c", "echo DONE; sleep 1"}, 0, "", "")
	c.want([]string{"resume", "over"}, 1, "", "ralph-watch: error: loop 'over' is done (done_pattern): nothing is left to resume; start a new run with 'ralph-watch run'")
}

// With --worktree, a relative --done-file, --pause-file and --progress-file
// are where the agent works, in the worktree, and status says where each is.
func TestAWorktreeLoopsDonePauseAndProgressFilesAreInItsWorktree(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := c.gitRepo(map[string]string{"README": "a project\n"})
	agent := `echo x >> work; [ "$RALPH_ITERATION" = 1 ] && touch PAUSE; [ "$RALPH_ITERATION" = 2 ] && touch DONE.flag; exit 0`
	c.wantEnv(gitEnv, []string{"run", "--detach", "-S", c.srv.Socket, "-t", c.pane(repo), "--name", "files", "--worktree", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "5", "--done-file", "DONE.flag", "--pause-file", "PAUSE", "--progress-file", "progress.md",
		"--", "sh", "-c", agent}, 0, "", "")
	tree := filepath.Join(repo, ".ralph", "worktrees", "files")
	c.until("files", "the pause file to pause it", func(st *state.State) bool { return st.Status == state.Paused })
	status := c.want([]string{"status", "files"}, 0, "", "")
	for _, want := range []string{"Done file: " + filepath.Join(tree, "DONE.flag") + "\n", "Pause file: " + filepath.Join(tree, "PAUSE") + "\n",
		"Progress file: " + filepath.Join(tree, "progress.md") + "\n"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	c.wantEnv(gitEnv, []string{"resume", "files"}, 0, "resumed", "")
	st := c.until("files", "the loop to end", func(st *state.State) bool { return st.ExitReason != nil && st.CurrentIteration > 1 })
	if *st.ExitReason != "done_file" || st.CurrentIteration != 2 {
		t.Errorf("ended %s at iteration %d, want done_file at 2\n%s", *st.ExitReason, st.CurrentIteration, c.log("files"))
	}
	if progress, err := os.ReadFile(filepath.Join(tree, "progress.md")); err != nil || !strings.Contains(string(progress), "2") {
		t.Errorf("the worktree's progress file: %q, %v", progress, err)
	}
	for _, name := range []string{"progress.md", "DONE.flag", "PAUSE"} {
		if _, err := os.Stat(filepath.Join(repo, name)); err == nil {
			t.Errorf("%s is in the person's checkout", name)
		}
	}
}
