package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/finish"
	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func finishCommand(e env) *ffcli.Command {
	fs := newFlags("finish")
	mergeF := fs.Bool("merge", false, "merge the loop's branch into the branch its worktree came from (fast-forward, else a merge commit)")
	rebaseF := fs.Bool("rebase", false, "rebase the loop's branch onto that branch, then fast-forward it")
	prF := fs.Bool("pr", false, "push the loop's branch (never forced) and open a pull request with gh")
	patchF := fs.String("patch", "", "write the loop's commits as a patch series (mbox, for git am) to `FILE`")
	remove := fs.Bool("remove", false, "then remove the loop's worktree and branch, once merged")
	commit := fs.Bool("commit", false, "commit uncommitted changes in the worktree first (else finish refuses)")
	into := fs.String("into", "", "land on `BRANCH` (default: the branch the worktree came from)")
	remote := fs.String("remote", "", "--pr: push to `REMOTE` (default: the branch's remote, else origin)")
	followF := fs.Bool("follow", false, "--pr: then follow the pull request as 'ralph-watch follow' does")
	follows := followFlags(fs)
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch finish NAME [--merge|--rebase|--pr|--patch FILE] [--remove] [--commit] [--into BRANCH]",
		ShortHelp:  "land a loop's work: merge, rebase, pull request or patch",
		LongHelp: `
Land what a loop did on its branch (the worktree of run --worktree, branch
ralph/NAME, or a branch of its own with --into). It first shows the run:
its iterations and how it ended, the branch's commits and diff stat, the
last iteration's checks, and the tokens and cost; with no mode that is all
(exit 0, nothing changed, and it says what is left to land); then:

  --merge     fast-forward the branch the worktree came from, else a merge
              commit; refused on uncommitted changes there or a conflict
              (the merge is aborted and the files named)
  --rebase    rebase the loop's branch onto it, then fast-forward it
  --pr        git push -u REMOTE BRANCH (never forced), then
              gh pr create --base BASE --head BRANCH --title T --body-file F
              (the body: iterations, ending, tokens and cost per iteration,
              checks, files changed, how to replay; kept as pr-body.md)
  --patch F   git format-patch --stdout BASE..BRANCH into F (for git am)

--remove then removes the worktree and the branch, once merged. A worktree
with uncommitted changes is refused unless --commit commits them first.
Exit 0 landed, 1 failed or refused (a conflict, a failed push), 2 usage.

For a fan (ralph-watch fan), finish FAN --pr pushes the fan's branch
(ralph/fan-NAME, or the fan's --into; never forced) and opens one pull
request into --into BRANCH (default: the branch checked out in the
repository, when it holds the commit the fan started from), its body every
task's verdict, why those that did not land did not, the commits and the
files; kept as pr-body.md in the fan's folder. A fan still running is
refused. A loop of the same name comes first.

To land a loop that ends done on its own, run it with
--on-done 'ralph-watch finish "$RALPH_NAME" --merge' (hooks get RALPH_NAME
and RALPH_STATE_DIR; the plugin option @ralph-finish-on-done does this).

Examples:
  ralph-watch finish myproj-3                 # what it did, what is left to land
  ralph-watch finish myproj-3 --merge --remove
  ralph-watch finish myproj-3 --pr
  ralph-watch finish myproj-3 --patch myproj-3.mbox
  ralph-watch finish myproj-3 --rebase --into develop --commit
  ralph-watch finish web --pr --into main    # the fan web`,
		Exec: func(ctx context.Context, args []string) error {
			opts := finish.Options{PatchFile: *patchF, Into: *into, Remove: *remove, Commit: *commit, Remote: *remote, Out: e.Stdout}
			var modes []string
			for _, m := range []struct {
				on   bool
				mode finish.Mode
			}{{*mergeF, finish.Merge}, {*rebaseF, finish.Rebase}, {*prF, finish.PR}, {*patchF != "", finish.Patch}} {
				if m.on {
					opts.Mode = m.mode
					modes = append(modes, "--"+string(m.mode))
				}
			}
			if len(modes) > 1 {
				return control.Errorf(contract.ExitUsage, "finish takes one of --merge, --rebase, --pr, --patch FILE (got %d)", len(modes))
			}
			if len(args) != 1 {
				return control.Errorf(contract.ExitUsage, "finish takes one loop name, got %d arguments", len(args))
			}
			if *followF && !*prF {
				return control.Errorf(contract.ExitUsage, "finish --follow follows a pull request: it goes with --pr")
			}
			if *followF && *remove {
				return control.Errorf(contract.ExitUsage, "finish --follow keeps the worktree the fixes are made in: --remove it once the pull request is merged")
			}
			if f, ok := fanArg(e, args); ok {
				if *followF {
					return control.Errorf(contract.ExitUsage, "finish --follow follows one loop's pull request; %s is a fan: open its pull request with --pr", f.Name)
				}
				return finishFan(f, opts)
			}
			l, err := loopArg(e, args, "finish")
			if err != nil {
				return err
			}
			run, err := history.Load(state.Root(e.Getenv), l.Name)
			if err != nil {
				return control.Errorf(contract.ExitFailed, "%v", err)
			}
			if len(modes) == 0 {
				return finishError(finish.Show(run, opts))
			}
			worktree := l.State.Worktree
			if err := finishError(finish.Finish(run, opts)); err != nil {
				return err
			}
			if _, err := os.Stat(worktree); worktree != "" && os.IsNotExist(err) && l.Pane == control.PaneRunning {
				fmt.Fprintf(e.Stdout, "The agent of %s still runs in pane %s, in the removed worktree: end it with 'ralph-watch stop --kill %s'.\n", l.Name, l.State.PaneID, l.Name)
			}
			if *followF {
				fmt.Fprintln(e.Stdout)
				return runFollow(ctx, e, l, *follows)
			}
			return nil
		},
	})
}

// finishFan is finish FAN --pr: one pull request for the fan's branch,
// once the fan no longer runs.
func finishFan(f aFan, opts finish.Options) error {
	if f.running() && opts.Mode != "" { // alone, it shows what the fan did so far
		return control.Errorf(contract.ExitFailed, "fan %s is still running: let it end, or stop it first (ralph-watch stop %s)", f.Name, f.Name)
	}
	return finishError(finish.Fan(f.State, f.dir, f.Works(f.root), opts))
}

// finishError carries a finish refusal's exit code into the command's error.
func finishError(err error) error {
	var fe *finish.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		return control.Errorf(fe.Code, "%s", fe.Msg)
	default:
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
}
