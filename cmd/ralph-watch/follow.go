package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/finish"
	"github.com/ralph-tmux/ralph.tmux/watch/follow"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// followSettings are follow's flags, which finish --pr --follow takes too.
type followSettings struct {
	interval time.Duration
	rounds   int
	anyone   bool
}

func followFlags(fs *flag.FlagSet) *followSettings {
	s := &followSettings{interval: time.Minute}
	fs.Func("follow-interval", "look at the pull request every `D` (default 60s)", func(v string) error {
		d, err := config.ParseDuration(v)
		if err == nil && d <= 0 {
			err = fmt.Errorf("must be more than 0")
		}
		s.interval = d
		return err
	})
	fs.IntVar(&s.rounds, "follow-rounds", 3, "rounds of fixes without green before follow ends (follow_rounds, exit 3)")
	fs.BoolVar(&s.anyone, "follow-anyone", false, "give the agent everyone's reviews and comments, not only the repository's owners, members and collaborators")
	return s
}

func followCommand(e env) *ffcli.Command {
	fs := newFlags("follow")
	s := followFlags(fs)
	detach := fs.Bool("detach", false, "follow in the background (its output in the loop's follow.log)")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch follow NAME [--follow-interval D] [--follow-rounds N] [--follow-anyone] [--detach]",
		ShortHelp:  "after finish --pr: bring CI failures and review comments back to the loop until green and approved",
		LongHelp: `
Follow the pull request finish --pr opened for the loop, in the foreground
as run is (--detach: in the background). Every --follow-interval it looks
(gh pr view, gh pr checks, gh api repos/OWNER/NAME/pulls/N/comments) and,
when checks have failed, a reviewer asked for changes or commented, or the
branch conflicts with its base, runs one round of fixes: the loop resumed
on its branch, its history kept, for one iteration whose note holds it all
(each failed check's workflow, job and step and the end of its log, gh run
view --log-failed, as much as the loop's --check-output-chars; each comment
with its file, line and the reviewer's words; the conflicting files). The
round's commits are then pushed to the pull request's branch, never forced;
a push refused because the branch moved says so and ends following (exit 1).

Green and approved (or green where no review is required) ends it: the
loop's exit_reason pr_ready, exit 0. Merged or closed by a person: it says
so, exit 0. --follow-rounds rounds and still not green: follow_rounds,
exit 3. Only the repository's owners, members and collaborators are heard,
unless --follow-anyone. What was handled (run and comment ids) and pushed
is kept in the loop's follow.json: follow started again after a kill, a
restart or a reboot acts on nothing twice and pushes nothing twice.
[PR] lines go to the loop's log; status shows the checks, reviews and rounds.
ralph-watch only runs gh: it never reads, writes or shows gh's token.

Examples:
  ralph-watch finish myproj-3 --pr --follow
  ralph-watch follow myproj-3 --follow-interval 2m --follow-rounds 5
  ralph-watch follow myproj-3 --detach`,
		Exec: func(ctx context.Context, args []string) error {
			l, err := loopArg(e, args, "follow")
			if err != nil {
				return err
			}
			if *detach {
				pass := []string{l.Name, "--follow-interval", s.interval.String(), "--follow-rounds", strconv.Itoa(s.rounds)}
				if s.anyone {
					pass = append(pass, "--follow-anyone")
				}
				pid, err := control.StartFollow(e.Executable, l.Store, pass)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.Stdout, "following the pull request of %s in the background (pid %d; its output in %s)\n", l.Name, pid, l.Store.Path(state.FollowLog))
				return nil
			}
			return runFollow(ctx, e, l, *s)
		},
	})
}

// runFollow follows loop l's pull request until it ends.
func runFollow(ctx context.Context, e env, l *control.Loop, s followSettings) error {
	if s.rounds < 0 {
		return control.Errorf(contract.ExitUsage, "--follow-rounds must be 0 or more")
	}
	release, err := l.Store.HoldFollow()
	if errors.Is(err, state.ErrLocked) {
		return control.Errorf(contract.ExitFailed, "the pull request of %s is already followed (by another 'ralph-watch follow %s')", l.Name, l.Name)
	} else if err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	defer release()
	run, err := history.Load(state.Root(e.Getenv), l.Name)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	p, err := finish.Locate(run, "")
	if err != nil {
		return finishError(err)
	}
	rec, err := followRecord(l, p)
	if err != nil {
		return err
	}
	host, _, _, _ := follow.Address(rec.URL)
	chars := 5000
	if n, err := strconv.Atoi(l.State.Settings["CheckOutputChars"]); err == nil && n > 0 {
		chars = n
	}
	f := &follow.Follower{
		Store: l.Store, Tree: p.Tree, Interval: s.interval, CheckChars: chars, Clock: clock.Real{}, Out: e.Stdout,
		Gh:     follow.Gh{Dir: p.Tree, Host: host, Repo: rec.Repo, PR: rec.PR},
		Policy: follow.Policy{Rounds: s.rounds, Anyone: s.anyone},
		Loop:   followedLoop{e: e, name: l.Name, pr: rec.PR},
	}
	fmt.Fprintf(e.Stdout, "following pull request #%d of %s (%s) every %s, at most %d rounds of fixes\n", rec.PR, l.Name, rec.URL, s.interval, s.rounds)
	res, err := f.Run(ctx)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "follow %s: %v", l.Name, err)
	}
	if res.Code != contract.ExitDone {
		return control.Errorf(res.Code, "%s", res.Why)
	}
	return nil
}

// followRecord is the loop's follow.json, made from the pull request
// finish --pr opened (landed.json) when follow first starts.
func followRecord(l *control.Loop, p finish.Place) (*state.Follow, error) {
	rec, err := l.Store.Follow()
	if err != nil {
		return nil, control.Errorf(contract.ExitFailed, "%v", err)
	}
	if rec != nil { // followed again: what was handled stays handled
		return rec, nil
	}
	var landed finish.Landed
	data, err := os.ReadFile(l.Store.Path(state.LandedFile))
	if err == nil {
		err = json.Unmarshal(data, &landed)
	}
	if err != nil || landed.How != finish.PR || landed.URL == "" {
		return nil, control.Errorf(contract.ExitUsage, "loop %s has no pull request to follow: open one with 'ralph-watch finish %s --pr' (or --pr --follow)", l.Name, l.Name)
	}
	_, repo, pr, err := follow.Address(landed.URL)
	if err != nil {
		return nil, control.Errorf(contract.ExitFailed, "the pull request of %s: %v", l.Name, err)
	}
	remote, _ := gitwork.Run(p.Tree, "config", "--get", "branch."+p.Branch+".remote")
	remote = strings.TrimSpace(remote)
	if remote == "" {
		remote = "origin"
	}
	head, _ := gitwork.Run(p.Tree, "rev-parse", p.Branch)
	rec = &state.Follow{PR: pr, URL: landed.URL, Repo: repo, Branch: p.Branch, Base: p.Base, Remote: remote,
		Pushed: strings.TrimSpace(head), Started: state.Stamp(time.Now())}
	if err := l.Store.SaveFollow(rec); err != nil {
		return nil, control.Errorf(contract.ExitFailed, "%v", err)
	}
	return rec, nil
}

// followedLoop is the loop side of follow: its rounds through note, set
// and resume, as a person would steer it.
type followedLoop struct {
	e    env
	name string
	pr   int
}

func (f followedLoop) find() (*control.Loop, error) {
	return control.Find(state.Root(f.e.Getenv), f.name)
}

// Round leaves the note and a limit of one more iteration, then resumes
// the loop; its watcher runs in the background, as resume starts it.
func (f followedLoop) Round(note string) error {
	l, err := f.find()
	if err != nil {
		return err
	}
	now := time.Now()
	if note != "" {
		if _, err := l.Store.Steer(state.Steer{Kind: state.SteerNote, Text: note}, now); err != nil {
			return err
		}
		one := l.State.CurrentIteration + 1
		if _, err := l.Store.Steer(state.Steer{Kind: state.SteerSet, Set: &state.Limits{MaxIterations: &one}}, now); err != nil {
			return err
		}
	}
	return rearm(f.e, "").Resume(l, io.Discard, f.e.Stderr)
}

func (f followedLoop) Where() (int, bool, error) {
	l, err := f.find()
	if err != nil {
		return 0, false, err
	}
	return l.State.CurrentIteration, l.Watched || l.State.Status == state.Paused, nil
}

func (f followedLoop) Show(mark string) {
	if l, err := f.find(); err == nil {
		control.ShowFollow(l, fmt.Sprintf("PR #%d %s", f.pr, mark))
	}
}

func (f followedLoop) Tell(why string) {
	if l, err := f.find(); err == nil {
		control.TellFollow(l, why)
	}
}

func (f followedLoop) End(reason contract.Reason, status contract.Status, why, mark string) error {
	l, err := f.find()
	if err != nil {
		return err
	}
	return control.Followed(l, reason, status, why, fmt.Sprintf("PR #%d %s", f.pr, mark), clock.Real{})
}

// followAgain starts a detached follow again for each loop whose
// following had not ended and that no follow holds (after a reboot, or a
// follow killed), as follow last ran; restore calls it.
func followAgain(e env, root string, dryRun bool) {
	names, _ := control.Names(root)
	for _, name := range names {
		l, err := control.Find(root, name)
		if err != nil {
			continue
		}
		rec, err := l.Store.Follow()
		if err != nil || rec == nil || rec.Ended != "" || l.Store.Followed() {
			continue
		}
		if dryRun {
			fmt.Fprintf(e.Stdout, "would follow the pull request of %s again (#%d)\n", name, rec.PR)
			continue
		}
		args := []string{name, "--follow-rounds", strconv.Itoa(max(rec.MaxRounds, 0))}
		if rec.Interval != "" {
			args = append(args, "--follow-interval", rec.Interval)
		}
		if rec.Anyone {
			args = append(args, "--follow-anyone")
		}
		pid, err := control.StartFollow(e.Executable, l.Store, args)
		if err != nil {
			fmt.Fprintf(e.Stderr, "ralph-watch: error: cannot follow the pull request of %s again: %v\n", name, err)
			continue
		}
		fmt.Fprintf(e.Stdout, "following the pull request of %s again (#%d, pid %d)\n", name, rec.PR, pid)
	}
}
