package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"
	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/between"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// runFlags are run's flags as given, before they are checked.
type runFlags struct {
	target, socketName, socketPath, name        string
	promptFile, promptMode, donePattern         string
	readyPattern, doneFile                      string
	maxIterations, lines                        int
	inactivity, poll, iterationTimeout, maxTime time.Duration
	readyTimeout, restartDelay                  time.Duration
	checkDoneContinuous, detach, tmuxNoOp       bool
	replace, cleanState, noRun                  bool

	agent, busyPattern, dialogPattern, limitPattern string
	idleGrace, dialogTimeout, limitWait             time.Duration
	turnHook                                        bool
	checks                                          []between.Check
	checkTimeout                                    time.Duration
	checkOutputChars, stallLimit                    int
	checkFailAction, progressFile                   string
	pauseFile                                       string
	endCommand                                      string
	onIterationEnd, onDone, onFail                  string
	includeIterationCount, commit                   bool
	worktree                                        bool
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.target, "t", "", "pane to loop (short for --target)")
	fs.StringVar(&f.target, "target", "", "pane to loop (default $TMUX_PANE; outside tmux a new window in session \"ralph\")")
	fs.StringVar(&f.socketName, "L", "", "tmux server socket name (short for --socket-name)")
	fs.StringVar(&f.socketName, "socket-name", "", "tmux server socket name, as tmux -L")
	fs.StringVar(&f.socketPath, "S", "", "tmux server socket path (short for --socket-path)")
	fs.StringVar(&f.socketPath, "socket-path", "", "tmux server socket path, as tmux -S")
	fs.StringVar(&f.name, "name", "", "loop name, [A-Za-z0-9._-]{1,64} (default derived from the pane)")
	fs.StringVar(&f.promptFile, "prompt-file", "PROMPT.md", "prompt file, read fresh every iteration")
	fs.StringVar(&f.promptMode, "prompt-mode", agent.ModeType, "how the prompt reaches the agent: type, arg or stdin")
	fs.IntVar(&f.maxIterations, "max-iterations", 0, "stop after this many iterations (0: no limit)")
	fs.Var(durationFlag{&f.inactivity}, "inactivity-timeout", "restart when the screen is unchanged this long (default 180s)")
	fs.Var(durationFlag{&f.poll}, "poll-interval", "how often the screen is compared while the agent writes (default 2s)")
	fs.IntVar(&f.lines, "lines", 20, "lines compared for inactivity")
	fs.StringVar(&f.donePattern, "done-pattern", "", "regular expression (RE2) that ends the loop when the agent prints it")
	fs.BoolVar(&f.checkDoneContinuous, "check-done-continuous", true, "match the done pattern while the agent runs (=false: only when it ends)")
	fs.StringVar(&f.doneFile, "done-file", "", "end the loop when this file exists")
	fs.StringVar(&f.readyPattern, "ready-pattern", "", "regular expression that shows the agent is ready for the prompt (type mode)")
	fs.Var(durationFlag{&f.readyTimeout}, "ready-timeout", "longest wait for the agent to be ready (default 60s)")
	fs.Var(durationFlag{&f.iterationTimeout}, "iteration-timeout", "restart an iteration that runs this long (0: none)")
	fs.Var(durationFlag{&f.maxTime}, "max-time", "stop the loop after this long (0: no limit)")
	fs.Var(durationFlag{&f.restartDelay}, "restart-delay", "pause between iterations (default 1s)")
	fs.StringVar(&f.agent, "agent", "", "agent profile: "+strings.Join(agent.Names(), ", ")+" (default guessed from the command)")
	fs.StringVar(&f.busyPattern, "busy-pattern", "", "regular expression that shows the agent is working (default the profile's)")
	fs.StringVar(&f.dialogPattern, "dialog-pattern", "", "regular expression that shows the agent waits on a question (default the profile's)")
	fs.StringVar(&f.limitPattern, "limit-pattern", "", "regular expression that shows a usage limit (default the profile's)")
	fs.Var(durationFlag{&f.idleGrace}, "idle-grace", "end the turn when the agent sits idle at its prompt this long (default the profile's; 0: never)")
	fs.Var(durationFlag{&f.dialogTimeout}, "dialog-timeout", "restart when a question waits this long (0: wait for an answer)")
	fs.Var(durationFlag{&f.limitWait}, "limit-wait", "wait after a usage limit whose reset time is not shown (default 30m)")
	fs.BoolVar(&f.turnHook, "turn-hook", true, "let the agent report the end of its turn by its own hook (Claude Code, Codex)")
	fs.BoolVar(&f.detach, "detach", false, "run the watcher in the background and return")
	fs.BoolVar(&f.replace, "replace", false, "stop a loop of the same name (watcher and agent) and start afresh")
	fs.BoolVar(&f.cleanState, "clean-state", false, "clear the state of a loop of the same name first")
	fs.BoolVar(&f.noRun, "no-run", false, "prepare the pane and state without looping ('resume NAME' starts it)")
	fs.BoolVar(&f.tmuxNoOp, "tmux", false, "accepted for compatibility; loops always use tmux")
	fs.Var(checkFlag{&f.checks}, "check", "command run with sh -c after every iteration; its failures go into the next prompt (repeatable)")
	fs.Var(checkHintFlag{&f.checks}, "check-hint", "hint for the --check just before it, given with its failures")
	fs.Var(durationFlag{&f.checkTimeout}, "check-timeout", "longest a check or hook may run (default 120s)")
	fs.IntVar(&f.checkOutputChars, "check-output-chars", 5000, "characters of a failed check's output (its end) put into the next prompt")
	fs.StringVar(&f.checkFailAction, "check-fail-action", watch.FailAppend, "where check failures go in the next prompt: append, prepend or replace")
	fs.BoolVar(&f.includeIterationCount, "include-iteration-count", false, "start the prompt with \"Iteration X of Y, Z remaining.\"")
	fs.Var(commandString{&f.onIterationEnd}, "on-iteration-end", "command run with sh -c after every iteration")
	fs.Var(commandString{&f.onDone}, "on-done", "command run with sh -c when the loop ends done")
	fs.Var(commandString{&f.onFail}, "on-fail", "command run with sh -c when the loop ends failed or at a limit")
	fs.BoolVar(&f.commit, "commit", false, "commit all changes (git add -A) after an iteration whose checks pass")
	fs.StringVar(&f.progressFile, "progress-file", "", "append a section about every iteration to this file")
	fs.BoolVar(&f.worktree, "worktree", false, "run the agent in the loop's own git worktree, branch ralph/NAME")
	fs.IntVar(&f.stallLimit, "stall-limit", 0, "stop after this many iterations in a row that changed nothing in git (0: never)")
	fs.StringVar(&f.pauseFile, "pause-file", "", "pause the loop when this file appears (it is removed)")
	fs.Var(commandString{&f.endCommand}, "end-command", "run in the pane when the loop ends with its agent gone (default $SHELL, else /bin/sh; none: leave the pane)")
}

// defaults the duration flags whose zero value is not their default.
func (f *runFlags) defaults() {
	f.inactivity, f.poll, f.readyTimeout, f.restartDelay = 180*time.Second, 2*time.Second, 60*time.Second, time.Second
	f.idleGrace, f.limitWait, f.turnHook = -1, 30*time.Minute, true // -1: the profile's
	f.checkTimeout = 120 * time.Second
	f.checkDoneContinuous = true
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// newRunFlags are run's flags with their defaults, registered on a new set.
func newRunFlags() (*runFlags, *flag.FlagSet) {
	var f runFlags
	f.defaults()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	return &f, fs
}

func runCommand(e env) *ffcli.Command {
	f, fs := newRunFlags()
	return &ffcli.Command{
		Name:       "run",
		ShortUsage: "ralph-watch run [flags] [-- COMMAND [ARG...]]",
		ShortHelp:  "loop a pane (blocks; --detach returns)",
		LongHelp: strings.TrimSpace(`
Loop a tmux pane: every iteration respawn it with COMMAND, deliver the prompt
file, and watch until the agent exits, goes quiet or prints the done pattern.
Flags may also come from RALPH_* environment variables and .ralph/config,
whose commands (checks, hooks) run only once you trust it: ralph-watch trust.

Exit status: 0 done, 1 failed, 2 usage error, 3 limit reached before the done
signal, 130 interrupted (the loop is left paused, the agent runs on).

Examples:
  ralph-watch run --prompt-file PROMPT.md --max-iterations 20 \
      --done-pattern RALPH_DONE -- claude
  ralph-watch run -t %3 --prompt-mode arg --max-iterations 5 -- claude -p`),
		FlagSet: fs, // RALPH_* and .ralph/config are read by readSettings, which tells them apart
		Exec: func(ctx context.Context, args []string) error {
			return runLoop(ctx, e, f, fs, args)
		},
	}
}

func runLoop(ctx context.Context, e env, f *runFlags, fs *flag.FlagSet, command []string) error {
	sources, err := trustedSettings(e, f, fs)
	if err != nil {
		return err
	}
	if f.tmuxNoOp {
		fmt.Fprintln(e.Stderr, "Note: --tmux does nothing: ralph loops always run in tmux")
	}
	cfg, client, err := checkRunFlags(e, f, command)
	if err != nil {
		return err
	}
	cfg.CommandSources = sources
	pane, err := resolvePane(e, f, client, &cfg)
	if err != nil {
		return err
	}
	if err := checkGit(f, cfg.Dir); err != nil {
		return err
	}
	cfg.Resume = e.Getenv(resumeEnv) == "1"
	store, err := claimName(e, f, &cfg)
	if err != nil {
		return err
	}
	if pane.ID == "" {
		if pane, err = newWindow(client, &cfg); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "[ralph] %s: looping window %s:%s (watch it with: tmux%s attach -t %s)\n",
			cfg.Name, pane.Session, cfg.Name, serverArgs(f), pane.Session)
	}
	if f.worktree {
		if err := useWorktree(e, &cfg); err != nil {
			return err
		}
	}
	if cfg.Socket, err = client.SocketPath(); err != nil {
		return &exitError{code: 1, msg: "find tmux socket: " + err.Error()}
	}
	cfg.WatcherArgs = watcherArgs(fs, cfg, command)
	cfg.WatcherDir, _ = os.Getwd()
	loop := &watch.Loop{Config: cfg, Tmux: client, Store: store, Out: e.Stdout, Err: e.Stderr}
	if f.noRun {
		if err := loop.Prepare(); err != nil {
			return &exitError{code: 1, msg: err.Error()}
		}
		fmt.Fprintf(e.Stdout, "[ralph] %s: prepared pane %s; start the loop with 'ralph-watch resume %s'\n", cfg.Name, cfg.Pane, cfg.Name)
		return nil
	}
	if !cfg.Resume && (f.detach || insidePane(pane)) {
		pid, err := startWatcher(e, store, cfg.WatcherArgs, cfg.WatcherDir, false, sourcesFor(sources))
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "[ralph] %s: looping pane %s in the background (watcher pid %d, log %s)\n",
			cfg.Name, cfg.Pane, pid, store.Path("watcher.log"))
		return nil
	}
	if err := store.Lock(); err != nil {
		if errors.Is(err, state.ErrLocked) {
			return usageErrorf("loop '%s' is already running; pick another --name", cfg.Name)
		}
		return &exitError{code: 1, msg: err.Error()}
	}
	defer store.Unlock()
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGUSR1)
	defer signal.Stop(wake)
	loop.Wake = wake
	res := loop.Run(ctx)
	if res.Code != 0 {
		return &exitError{code: res.Code}
	}
	return nil
}

// trustedSettings reads RALPH_* and .ralph/config after the command line
// and refuses the config file's commands unless this user trusted it. A
// background watcher is told where its commands came from by its starter.
func trustedSettings(e env, f *runFlags, fs *flag.FlagSet) ([]state.CommandSource, error) {
	s, err := readSettings(fs, &f.checks, ".", true)
	if err != nil {
		return nil, err
	}
	if err := checkTrust(e, s); err != nil {
		return nil, err
	}
	if given := e.Getenv(sourcesEnv); given != "" {
		os.Unsetenv(sourcesEnv) // for this watcher alone, not the checks and hooks it runs
		var sources []state.CommandSource
		if json.Unmarshal([]byte(given), &sources) == nil {
			return sources, nil
		}
	}
	return s.commands, nil
}

// checkGit refuses --worktree and --stall-limit outside a git repository.
// dir is the loop's folder ("" for a new window: the current one).
func checkGit(f *runFlags, dir string) error {
	if !f.worktree && f.stallLimit == 0 {
		return nil
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if between.InGitRepo(dir) {
		return nil
	}
	if f.worktree {
		return usageErrorf("--worktree needs a git repository: %s is not in one", dir)
	}
	return usageErrorf("--stall-limit needs a git repository: %s is not in one", dir)
}

// useWorktree moves the loop into its own git worktree, made the first time.
func useWorktree(e env, cfg *watch.Config) error {
	path, dir, created, err := between.EnsureWorktree(cfg.Dir, cfg.Name)
	if err != nil {
		return &exitError{code: 1, msg: "create worktree: " + err.Error()}
	}
	cfg.Dir, cfg.Worktree, cfg.WorktreeBranch = dir, path, between.WorktreeBranch(cfg.Name)
	if created {
		fmt.Fprintf(e.Stdout, "[ralph] %s: created worktree %s (branch %s)\n", cfg.Name, path, cfg.WorktreeBranch)
	} else if !cfg.Resume {
		fmt.Fprintf(e.Stdout, "[ralph] %s: using worktree %s (branch %s)\n", cfg.Name, path, cfg.WorktreeBranch)
	}
	return nil
}

// claimName makes the loop's name this run's: a loop of that name still
// watched is refused (or, with --replace, stopped with its agent); one that
// could be resumed is refused unless replaced or its state cleaned.
func claimName(e env, f *runFlags, cfg *watch.Config) (*state.Store, error) {
	root := state.Root(e.Getenv)
	if cfg.Resume {
		store, err := state.Find(root, cfg.Name)
		if err != nil {
			return nil, &exitError{code: 1, msg: err.Error()}
		}
		return store, nil
	}
	if old, err := findLoop(e, cfg.Name); err == nil {
		if old.watcher && old.st.ExitReason != nil { // the loop has ended; its watcher is on its way out
			old.watcher = !waitFor(old, 5*time.Second, func(*state.State) bool { return !old.store.Locked() })
		}
		switch {
		case f.replace:
			if err := replace(old); err != nil {
				return nil, err
			}
			fmt.Fprintf(e.Stdout, "replaced existing loop %s\n", cfg.Name)
		case old.watcher:
			return nil, usageErrorf("loop '%s' is already running (watcher pid %d); pick another --name or use --replace", cfg.Name, old.st.WatcherPID)
		case f.cleanState:
			if err := old.store.Remove(); err != nil {
				return nil, &exitError{code: 1, msg: "clear state: " + err.Error()}
			}
			fmt.Fprintf(e.Stdout, "cleared ralph state for %s\n", cfg.Name)
		case old.st.Status == state.Running || old.st.Status == state.Paused:
			return nil, usageErrorf("loop '%s' already exists (%s); use 'ralph-watch resume %s', --replace or --clean-state", cfg.Name, old.status(), cfg.Name)
		}
	}
	store, err := state.Open(root, cfg.Name)
	if err != nil {
		return nil, &exitError{code: 1, msg: err.Error()}
	}
	return store, nil
}

// replace ends an old loop of the same name, its watcher and agent, and
// removes its state.
func replace(old *loop) error {
	if old.watcher {
		if err := tell(old, state.RequestStopKill); err != nil {
			return err
		}
		if !waitFor(old, 15*time.Second, func(*state.State) bool { return !old.store.Locked() }) && old.st.WatcherPID > 0 {
			syscall.Kill(old.st.WatcherPID, syscall.SIGKILL)
			waitFor(old, 5*time.Second, func(*state.State) bool { return !old.store.Locked() })
		}
	} else if old.pane == "running" {
		if p, err := old.client().Pane(old.st.PaneID); err == nil {
			agent.EndTree(p.PID, 3*time.Second)
		}
	}
	if err := old.store.Remove(); err != nil {
		return &exitError{code: 1, msg: "remove old state: " + err.Error()}
	}
	return nil
}

// watcherArgs are the run arguments that start this loop's watcher again:
// the resolved pane, name and server, every flag set (from the command line,
// the environment or the config file), and the command.
func watcherArgs(fs *flag.FlagSet, cfg watch.Config, command []string) []string {
	args := []string{"--target", cfg.Pane, "--name", cfg.Name, "--socket-path", cfg.Socket}
	skip := map[string]bool{"t": true, "target": true, "name": true, "L": true, "socket-name": true,
		"S": true, "socket-path": true, "detach": true, "replace": true, "clean-state": true, "no-run": true, "tmux": true,
		"check": true, "check-hint": true}
	fs.Visit(func(fl *flag.Flag) {
		if !skip[fl.Name] {
			args = append(args, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	for _, c := range cfg.Checks { // repeated: each in its place
		args = append(args, "--check="+c.Command)
		if c.Hint != "" {
			args = append(args, "--check-hint="+c.Hint)
		}
	}
	return append(append(args, "--"), command...)
}

// endCommand is what the pane runs when the loop ends with its agent gone:
// the flag, else the person's shell; "none" leaves the pane as it is.
func endCommand(e env, flag string) string {
	switch {
	case flag == "none":
		return ""
	case flag != "":
		return flag
	case e.Getenv("SHELL") != "":
		return e.Getenv("SHELL")
	}
	return "/bin/sh"
}

// checkRunFlags refuses bad input before anything is spawned.
func checkRunFlags(e env, f *runFlags, command []string) (watch.Config, *tmux.Exec, error) {
	cfg := watch.Config{
		Name: f.name, PromptMode: f.promptMode, MaxIterations: f.maxIterations,
		MaxTime: f.maxTime, InactivityTimeout: f.inactivity, PollInterval: f.poll,
		IterationTimeout: f.iterationTimeout, ReadyTimeout: f.readyTimeout, RestartDelay: f.restartDelay,
		Lines: f.lines, CheckDoneContinuous: f.checkDoneContinuous,
		Checks: f.checks, CheckTimeout: f.checkTimeout, CheckOutputChars: f.checkOutputChars,
		CheckFailAction: f.checkFailAction, IncludeIterationCount: f.includeIterationCount,
		OnIterationEnd: f.onIterationEnd, OnDone: f.onDone, OnFail: f.onFail,
		Commit: f.commit, StallLimit: f.stallLimit, EndCommand: endCommand(e, f.endCommand),
	}
	if f.name != "" && !validName(f.name) {
		return cfg, nil, usageErrorf("invalid loop name %q: use 1 to 64 of A-Z a-z 0-9 . _ -", f.name)
	}
	switch f.promptMode {
	case agent.ModeType, agent.ModeArg, agent.ModeStdin:
	default:
		return cfg, nil, usageErrorf("invalid --prompt-mode %q: use type, arg or stdin", f.promptMode)
	}
	if f.maxIterations < 0 {
		return cfg, nil, usageErrorf("--max-iterations must not be negative")
	}
	if f.lines < 1 {
		return cfg, nil, usageErrorf("--lines must be at least 1")
	}
	if f.poll <= 0 {
		return cfg, nil, usageErrorf("--poll-interval must be more than 0")
	}
	if f.inactivity <= 0 {
		return cfg, nil, usageErrorf("--inactivity-timeout must be more than 0")
	}
	switch f.checkFailAction {
	case watch.FailAppend, watch.FailPrepend, watch.FailReplace:
	default:
		return cfg, nil, usageErrorf("invalid --check-fail-action %q: use append, prepend or replace", f.checkFailAction)
	}
	if f.checkTimeout <= 0 {
		return cfg, nil, usageErrorf("--check-timeout must be more than 0")
	}
	if f.checkOutputChars < 0 {
		return cfg, nil, usageErrorf("--check-output-chars must not be negative")
	}
	if f.stallLimit < 0 {
		return cfg, nil, usageErrorf("--stall-limit must not be negative")
	}
	var err error
	if f.donePattern != "" {
		if cfg.DonePattern, err = regexp.Compile(f.donePattern); err != nil {
			return cfg, nil, usageErrorf("invalid --done-pattern: %v", err)
		}
	}
	if len(command) == 0 {
		return cfg, nil, usageErrorf("no command provided (use -- command...)")
	}
	cfg.Command = shellWords(command, f.promptMode)
	if err := applyAgent(e, f, &cfg); err != nil {
		return cfg, nil, err
	}
	if cfg.PromptFile, err = filepath.Abs(f.promptFile); err != nil {
		return cfg, nil, usageErrorf("prompt file: %v", err)
	}
	prompt, err := watch.ReadPrompt(cfg.PromptFile)
	if err != nil {
		return cfg, nil, usageErrorf("%v", err)
	}
	for _, p := range []struct {
		name      string
		from, abs *string
	}{{"done file", &f.doneFile, &cfg.DoneFile}, {"pause file", &f.pauseFile, &cfg.PauseFile}, {"progress file", &f.progressFile, &cfg.ProgressFile}} {
		if *p.from != "" {
			if *p.abs, err = filepath.Abs(*p.from); err != nil {
				return cfg, nil, usageErrorf("%s: %v", p.name, err)
			}
		}
	}
	if f.socketName != "" && f.socketPath != "" {
		return cfg, nil, usageErrorf("give -L or -S, not both")
	}
	client := &tmux.Exec{}
	switch {
	case f.socketName != "":
		client.Server = []string{"-L", f.socketName}
	case f.socketPath != "":
		client.Server = []string{"-S", f.socketPath}
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return cfg, nil, usageErrorf("tmux not found on PATH: install tmux 3.2 or newer")
	}
	v, err := client.Version()
	if err != nil {
		return cfg, nil, usageErrorf("%v", err)
	}
	if !tmux.AtLeast(v, 3, 2) {
		return cfg, nil, usageErrorf("tmux 3.2 or newer is required (found %s)", v)
	}
	if f.maxIterations > 50 {
		fmt.Fprintln(e.Stderr, "ralph-watch: warning: high iteration count (>50) may consume significant resources")
	}
	if agent.MatchesOwnText(cfg.DonePattern, prompt) {
		fmt.Fprintln(e.Stderr, "ralph-watch: warning: the done pattern matches the prompt file's own text; only what the agent prints after the prompt counts")
	}
	return cfg, client, nil
}

// shellWords runs a single word holding spaces or shell syntax through sh,
// as tmux would; in arg mode the prompt still arrives as its last argument.
func shellWords(command []string, mode string) []string {
	if len(command) != 1 || !strings.ContainsAny(command[0], " \t\n;|&$<>()'\"*?`~") {
		return command
	}
	line := agent.ExecLine(command[0]) // the agent, not sh, is the pane's process
	if mode == agent.ModeArg {
		return []string{"/bin/sh", "-c", line + ` "$@"`, "sh"}
	}
	return []string{"/bin/sh", "-c", line}
}

func validName(name string) bool {
	return namePattern.MatchString(name) && name != "." && name != ".."
}

// resolvePane finds the pane to loop: -t, else $TMUX_PANE, else a new window
// in session "ralph" named after the loop. It fills in Pane, Dir and Name.
func resolvePane(e env, f *runFlags, client *tmux.Exec, cfg *watch.Config) (tmux.Pane, error) {
	target := f.target
	if target == "" && f.socketName == "" && f.socketPath == "" {
		target = e.Getenv("TMUX_PANE")
	}
	if target == "" {
		if cfg.Name == "" {
			cwd, _ := os.Getwd()
			cfg.Name = nameFrom(filepath.Base(cwd), "")
		}
		return tmux.Pane{}, nil // a window is made once the name is claimed
	}
	pane, err := client.Pane(target)
	switch {
	case tmux.NoServer(err):
		return pane, usageErrorf("no tmux server running%s", serverName(f))
	case errors.Is(err, tmux.ErrNoPane):
		return pane, usageErrorf("no such pane: %s", target)
	case err != nil:
		return pane, usageErrorf("%v", err)
	}
	cfg.Pane, cfg.Dir = pane.ID, pane.Path
	if cfg.Dir == "" {
		cfg.Dir, _ = os.Getwd()
	}
	if cfg.Name == "" {
		cfg.Name = nameFrom(filepath.Base(cfg.Dir), strings.TrimPrefix(pane.ID, "%"))
	}
	return pane, nil
}

// newWindow makes the window a loop started outside tmux runs in: named after
// the loop, in session "ralph".
func newWindow(client *tmux.Exec, cfg *watch.Config) (tmux.Pane, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return tmux.Pane{}, usageErrorf("working directory: %v", err)
	}
	id, err := client.NewWindow(tmux.NewWindowRequest{Session: "ralph", Name: cfg.Name, Dir: cwd})
	if err != nil {
		return tmux.Pane{}, &exitError{code: 1, msg: "create window: " + err.Error()}
	}
	pane, err := client.Pane(id)
	if err != nil {
		return tmux.Pane{}, &exitError{code: 1, msg: "create window: " + err.Error()}
	}
	cfg.Pane, cfg.Dir = pane.ID, cwd
	return pane, nil
}

// serverArgs repeats the -L or -S a person gave, for a tmux command line.
func serverArgs(f *runFlags) string {
	switch {
	case f.socketName != "":
		return " -L " + f.socketName
	case f.socketPath != "":
		return " -S " + f.socketPath
	}
	return ""
}

func serverName(f *runFlags) string {
	if socket := f.socketName + f.socketPath; socket != "" {
		return " on " + socket
	}
	return ""
}

var nameUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// nameFrom makes a valid loop name from a folder name and a pane number.
func nameFrom(base, pane string) string {
	base = strings.Trim(nameUnsafe.ReplaceAllString(base, "-"), "-.")
	if len(base) > 48 {
		base = base[:48]
	}
	if base == "" {
		base = "ralph"
	}
	if pane != "" {
		base += "-" + pane
	}
	return base
}

// insidePane reports whether this process runs in pane, which respawning
// would kill: then the watcher must run in the background.
func insidePane(pane tmux.Pane) bool {
	for pid := os.Getppid(); pid > 1; {
		if pid == pane.PID {
			return true
		}
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			return false
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			return false
		}
		pid, _ = strconv.Atoi(fields[1])
	}
	return false
}

// applyAgent picks the agent's profile (named, or guessed from the command),
// lets the flags override its patterns, and gives the command what the
// prompt mode needs (claude -p, codex exec, …).
func applyAgent(e env, f *runFlags, cfg *watch.Config) error {
	name := f.agent
	if name == "" {
		name = agent.Guess(cfg.Command)
	}
	p, ok := agent.Lookup(name)
	if !ok {
		return usageErrorf("unknown --agent %q: use %s", f.agent, strings.Join(agent.Names(), ", "))
	}
	if !p.Supports(f.promptMode) {
		return usageErrorf("%s does not take prompts in %s mode: use --prompt-mode type", name, f.promptMode)
	}
	for _, o := range []struct {
		flag, value string
		re          **regexp.Regexp
	}{
		{"--ready-pattern", f.readyPattern, &p.Ready},
		{"--busy-pattern", f.busyPattern, &p.Busy},
		{"--dialog-pattern", f.dialogPattern, &p.Dialog},
		{"--limit-pattern", f.limitPattern, &p.Limit},
	} {
		if o.value == "" {
			continue
		}
		re, err := regexp.Compile(o.value)
		if err != nil {
			return usageErrorf("invalid %s: %v", o.flag, err)
		}
		*o.re = re
	}
	if f.idleGrace >= 0 {
		p.IdleGrace = f.idleGrace
	}
	if f.limitWait <= 0 {
		return usageErrorf("--limit-wait must be more than 0")
	}
	cfg.Agent, cfg.ReadyPattern = p, p.Ready
	cfg.DialogTimeout, cfg.LimitWait, cfg.TurnHook = f.dialogTimeout, f.limitWait, f.turnHook
	command, err := p.CommandFor(f.promptMode, cfg.Command)
	if err != nil {
		return usageErrorf("%v", err)
	}
	cfg.Command = command
	if why := agent.ParseLaunch(command).NoTerminal; why != "" && f.promptMode == agent.ModeType {
		fmt.Fprintf(e.Stderr, "ralph-watch: warning: the prompt is typed into the terminal, but %s\n", why)
	}
	if exe, err := e.Executable(); err == nil {
		cfg.Executable = exe
	}
	return nil
}
