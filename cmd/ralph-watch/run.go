package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

func runCommand(e env) *ffcli.Command {
	f, fs := config.NewRun() // RALPH_* and .ralph/config are read by config.ReadSettings, which tells them apart
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch run [flags] [-- COMMAND [ARG...]]",
		ShortHelp:  "loop a pane (blocks; --detach returns)",
		LongHelp: `
Loop a tmux pane: every iteration respawn it with COMMAND, deliver the prompt
file, and watch until the agent exits, goes quiet or prints the done pattern.
Flags may also come from RALPH_* environment variables and .ralph/config,
whose commands (checks, hooks) run only once you trust it: ralph-watch trust.

With --tasks FILE the loop works through a plan (a Markdown checklist,
tasks.json or prd.json), one task an iteration, and counts a task done only
when it is marked done, the work changed and every check passed; it ends
when all are done (exit 0) or the rest were skipped (exit 3).

Each iteration's receipt (tokens, cost, files changed, checks) goes into the
loop's receipts.jsonl and a [COST] line of its log; --max-tokens and
--max-cost stop the loop before, or during, an iteration that would go over.

Exit status: 0 done, 1 failed, 2 usage error, 3 limit reached before the done
signal or budget reached, 130 interrupted (the loop is left paused, the agent
runs on).

Examples:
  ralph-watch run --prompt-file PROMPT.md --max-iterations 20 \
      --done-pattern RALPH_DONE -- claude
  ralph-watch run -t %3 --prompt-mode arg --max-iterations 5 -- claude -p
  ralph-watch run --max-tokens 2000000 --max-cost 20 -- claude
  ralph-watch run --tasks IMPLEMENTATION_PLAN.md --check 'go test ./...' -- claude`,
		Exec: func(ctx context.Context, args []string) error {
			return runLoop(ctx, e, f, fs, args)
		},
	})
}

func runLoop(ctx context.Context, e env, f *config.Run, fs *flag.FlagSet, command []string) error {
	sources, err := config.TrustedSettings(f, fs, e.Getenv)
	if err != nil {
		return err
	}
	if f.TmuxNoOp {
		fmt.Fprintln(e.Stderr, "Note: --tmux does nothing: ralph loops always run in tmux")
	}
	command, secrets, missing := agent.HideSecrets(command, e.Getenv)
	if len(missing) > 0 {
		return control.Errorf(contract.ExitUsage, "%s", control.MissingSecrets(missing, "start it again"))
	}
	for _, kv := range secrets { // given by the environment for the agent alone: not the checks' and hooks'
		if name, value, _ := strings.Cut(kv, "="); os.Getenv(name) == value {
			_ = os.Unsetenv(name)
		}
	}
	client, err := checkRunFlags(e, f, command)
	if err != nil {
		return err
	}
	cfg := &f.Config
	cfg.Secrets = secrets
	cfg.CommandSources = sources
	pane, err := resolvePane(e, f, client, cfg)
	if err != nil {
		return err
	}
	cfg.Resume = e.Getenv(control.ResumeEnv) == "1"
	if cfg.TaskBase = e.Getenv(control.TaskBaseEnv); cfg.TaskBase != "" {
		_ = os.Unsetenv(control.TaskBaseEnv) // for this watcher alone, not the checks and hooks it runs
	}
	var was *state.State // the loop a resumed watcher takes up, as recorded
	if cfg.Resume {
		if store, err := state.Find(state.Root(e.Getenv), cfg.Name); err == nil {
			was, _ = store.Load()
		}
		cfg.TakePlaces(was) // not the folder resume was typed in, nor the pane's now
	}
	if err := f.CheckGit(cfg.Dir); err != nil {
		return err
	}
	started := e.Getenv(control.PaneClaimedEnv) != "" // this is the watcher a run started in the background
	socketPath := sync.OnceValues(client.SocketPath)  // one tmux call for the claims and the config
	releasePane, err := claimPane(e, f, socketPath, pane, cfg.Name)
	if err != nil {
		return err
	}
	defer func() { releasePane() }()
	releaseClaims, err := claimLoop(e, f, started)
	if err != nil {
		return err
	}
	defer releaseClaims()
	store, err := control.ClaimName(state.Root(e.Getenv), cfg.Name, claim(f, cfg.Resume), e.Stdout, clock.Real{})
	if err != nil {
		return err
	}
	if pane.ID == "" {
		if pane, err = newWindow(client, cfg); err != nil {
			return err
		}
		if releasePane, err = claimPane(e, f, socketPath, pane, cfg.Name); err != nil { // none can hold it yet; its watcher's claim
			return err
		}
		fmt.Fprintf(e.Stdout, "[ralph] %s: looping window %s:%s (watch it with: tmux%s attach -t %s)\n",
			cfg.Name, pane.Session, cfg.Name, serverArgs(f), pane.Session)
	}
	if f.Worktree && (was == nil || was.Worktree == "") { // a resumed loop's worktree is its record's
		if err := useWorktree(e, f, cfg); err != nil {
			return err
		}
	}
	if cfg.Socket, err = socketPath(); err != nil {
		return control.Errorf(contract.ExitFailed, "find tmux socket: %v", err)
	}
	cfg.WatcherArgs = config.WatcherArgs(fs, *cfg, command)
	cfg.WatcherDir, _ = os.Getwd()
	loop := &watch.Loop{Config: *cfg, Tmux: client, Store: store, Out: e.Stdout, Err: e.Stderr}
	if f.NoRun {
		if err := loop.Prepare(); err != nil {
			return control.Errorf(contract.ExitFailed, "%v", err)
		}
		fmt.Fprintf(e.Stdout, "[ralph] %s: prepared pane %s; start the loop with 'ralph-watch resume %s'\n", cfg.Name, cfg.Pane, cfg.Name)
		return nil
	}
	if !cfg.Resume && !started {
		warnUncarried(e, client, store, secrets)
	}
	if !cfg.Resume && !started && (f.Detach || insidePane(pane)) { // a started watcher, still the pane's descendant, would start another
		carried := []string{config.SourcesFor(sources), control.PaneClaimedEnv + "=1", control.TaskBaseEnv + "=" + cfg.TaskBase}
		pid, err := control.StartWatcher(e.Executable, store, cfg.WatcherArgs, cfg.WatcherDir, false, append(carried, secrets...)...)
		if err != nil {
			return err
		}
		control.AwaitWatcher(store, pid, clock.Real{}) // the pane stays claimed until its watcher holds the loop
		fmt.Fprintf(e.Stdout, "[ralph] %s: looping pane %s in the background (watcher pid %d, log %s)\n",
			cfg.Name, cfg.Pane, pid, store.Path(state.WatcherLog))
		return nil
	}
	if err := store.Lock(); err != nil {
		if errors.Is(err, state.ErrLocked) {
			return control.Errorf(contract.ExitUsage, "loop '%s' is already running; pick another --name", cfg.Name)
		}
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	defer store.Unlock()
	releasePane() // the loop is held: a claim of its pane, name or plan finds it live
	releaseClaims()
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGUSR1)
	defer signal.Stop(wake)
	loop.Wake = wake
	loop.BeatEvery = contract.DefaultBeatEvery // the status line tells when this process is gone
	if res := loop.Run(ctx); res.Code != contract.ExitDone {
		return control.Errorf(res.Code, "")
	}
	return nil
}

// claimPane makes the pane this run loops its loop's (control.ClaimPane);
// the release is for once the loop's watcher holds it. A watcher whose
// starter claimed the pane for it needs no claim, nor a new window until it
// is made (pane.ID "").
func claimPane(e env, f *config.Run, socketPath func() (string, error), pane tmux.Pane, name string) (func(), error) {
	if e.Getenv(control.PaneClaimedEnv) != "" {
		_ = os.Unsetenv(control.PaneClaimedEnv) // for this watcher alone, not the checks and hooks it runs
		return func() {}, nil
	}
	if pane.ID == "" {
		return func() {}, nil
	}
	socket, err := socketPath()
	if err != nil {
		return nil, control.Errorf(contract.ExitFailed, "find tmux socket: %v", err)
	}
	return control.ClaimPane(state.Root(e.Getenv), control.PaneOf{Socket: socket, ServerPID: pane.ServerPID, ID: pane.ID},
		name, claim(f, false), e.Stdout, clock.Real{})
}

// claimLoop holds the loop's name, and its plan, for this run until its
// watcher holds the loop (control.HoldName, control.ClaimPlan): of two runs
// at the same moment, the second is refused before it says anything else.
// A watcher whose starter holds them for it, or one resume started, takes none.
func claimLoop(e env, f *config.Run, started bool) (release func(), err error) {
	if started || f.Config.Resume {
		return func() {}, nil
	}
	root := state.Root(e.Getenv)
	releaseName, err := control.HoldName(root, f.Config.Name)
	if err != nil {
		return nil, err
	}
	if f.Config.TasksFile == "" {
		return releaseName, nil
	}
	releasePlan, err := control.ClaimPlan(root, f.Config.TasksFile, f.TasksFile, f.Config.TaskID, f.Config.Name, claim(f, false), e.Stdout, clock.Real{})
	if err != nil {
		releaseName()
		return nil, err
	}
	return func() { releasePlan(); releaseName() }, nil
}

// claim is how this run takes its loop's name from an earlier loop of it.
func claim(f *config.Run, resume bool) control.Claim {
	switch {
	case resume:
		return control.ClaimResume
	case f.Replace:
		return control.ClaimReplace
	case f.CleanState:
		return control.ClaimClean
	}
	return control.ClaimNew
}

// useWorktree moves the loop into its own git worktree, made the first
// time. The loop's files are taken inside the worktree, where the agent
// works: the plan, when it is in the folder the loop was started for
// (carried in when the worktree lacks it, or when it was just made from a
// commit that has another), and the done, pause and progress files given
// relative, from the folder the agent works in.
func useWorktree(e env, f *config.Run, cfg *watch.Config) error {
	cfg.WorktreeBase = gitwork.CurrentBranch(cfg.Dir)
	path, dir, created, err := gitwork.EnsureWorktree(cfg.Dir, cfg.Name)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "create worktree: %v", err)
	}
	within := func(folder, file string) (string, bool) {
		rel, err := filepath.Rel(folder, file)
		return rel, file != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	inside := func(file string) (string, bool) { // the same place in the worktree; a file of the worktree is its own
		if _, ours := within(path, file); ours {
			return "", false
		}
		rel, ok := within(cfg.Dir, file)
		return filepath.Join(dir, rel), ok
	}
	if there, ok := inside(cfg.TasksFile); ok {
		carried, err := carryPlan(cfg.TasksFile, there, created)
		if err != nil {
			return control.Errorf(contract.ExitUsage, "carry the plan into the worktree: %v; commit it (git add %s && git commit) and run again",
				err, config.QuoteWord(cfg.TasksFile))
		}
		if carried {
			defer fmt.Fprintf(e.Stdout, "[ralph] %s: carried the plan %s into the worktree (its commit lacks the plan as it is)\n", cfg.Name, cfg.TasksFile)
		}
		cfg.TasksFile = there // the agent ticks it there
	}
	for _, p := range []struct {
		given string
		file  *string
	}{{f.DoneFile, &cfg.DoneFile}, {f.PauseFile, &cfg.PauseFile}, {f.ProgressFile, &cfg.ProgressFile}} {
		if p.given != "" && !filepath.IsAbs(p.given) { // the agent's folder's, which is in the worktree
			*p.file = filepath.Join(dir, p.given)
		}
	}
	cfg.Dir, cfg.Worktree, cfg.WorktreeBranch = dir, path, gitwork.WorktreeBranch(cfg.Name)
	if created {
		fmt.Fprintf(e.Stdout, "[ralph] %s: created worktree %s (branch %s)\n", cfg.Name, path, cfg.WorktreeBranch)
	} else if !cfg.Resume {
		fmt.Fprintf(e.Stdout, "[ralph] %s: using worktree %s (branch %s)\n", cfg.Name, path, cfg.WorktreeBranch)
	}
	return nil
}

// carryPlan copies the person's plan into the worktree when it lacks it,
// or when the worktree was just made (created) from a commit whose plan is
// not the person's as it is now; a worktree the loop worked in before keeps
// its own, which holds the agent's ticks.
func carryPlan(plan, there string, created bool) (bool, error) {
	mine, err := os.ReadFile(plan)
	if err != nil {
		return false, err
	}
	theirs, err := os.ReadFile(there)
	switch {
	case err == nil && (!created || string(theirs) == string(mine)):
		return false, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(there), 0o755); err != nil {
		return false, err
	}
	return true, os.WriteFile(there, mine, 0o644)
}

// warnUncarried says which secrets of this environment (the shell run was
// typed in) the agent will not have: each iteration's agent starts with the
// tmux server's environment, and a variable exported after the server
// started is not in it. Said on stderr and in the loop's log, since the
// pane's screen is wiped by the first iteration; a secret the command
// carries (env NAME=… COMMAND) is not.
func warnUncarried(e env, client *tmux.Exec, store *state.Store, carried []string) {
	server, err := client.GlobalEnv()
	if err != nil {
		return
	}
	held := map[string]bool{}
	for _, kv := range carried {
		name, _, _ := strings.Cut(kv, "=")
		held[name] = true
	}
	var names []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if value == "" || held[name] || !agent.SecretName(name) || server[name] == value || strings.HasPrefix(name, "RALPH_") {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		msg := fmt.Sprintf("%s is set here but not in the environment of the tmux server, which each iteration's agent starts with: the agent will not have it; carry it with -- env %s=%s COMMAND (its value is taken from here, kept in memory, never written)",
			name, name, agent.Hidden)
		fmt.Fprintf(e.Stderr, "ralph-watch: warning: %s\n", msg)
		_ = store.Log(time.Now(), "ENV", msg)
	}
}
