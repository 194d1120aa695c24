package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/issues"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
)

// labelsFlag is a repeatable --label.
type labelsFlag []string

func (f *labelsFlag) String() string     { return strings.Join(*f, ",") }
func (f *labelsFlag) Set(s string) error { *f = append(*f, s); return nil }

func planCommand(e env) *ffcli.Command {
	fs := newFlags("plan")
	fromGitHub := fs.Bool("from-github", false, "take the tasks from the repository's open GitHub issues, with your gh")
	var labels labelsFlag
	fs.Var(&labels, "label", "only issues labelled `LABEL` (repeatable: each one)")
	milestone := fs.String("milestone", "", "only issues of `MILESTONE`")
	assignee := fs.String("assignee", "", "only issues assigned to `LOGIN` (@me: yours)")
	limit := fs.Int("limit", 100, "at most `N` open issues")
	repo := fs.String("repo", "", "the issues of `OWNER/NAME` (default: the repository gh finds here)")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch plan --from-github [--label L] [--milestone M] [--assignee A] [--limit N] [--repo OWNER/NAME] PLAN.md",
		ShortHelp:  "write a plan from GitHub issues, or bring one up to date",
		LongHelp: `
Write a Markdown plan (run --tasks, fan --tasks) from the repository's open
GitHub issues, or bring one written so up to date. Each issue is one task,
"- [ ] #N title", its id gh-N (as 'ralph-watch tasks' shows it), in number
order; the checklist of its body and the lines under its Acceptance heading
are the task's criteria, indented under it. Run again, it appends the issues
that are new after the plan's last task and ticks the tasks of issues that
are closed (it asks gh about every issue the plan names, open or closed);
every other line of the plan, yours, is kept byte for byte. A task you
write as "#N title" is issue N's too.

It runs your gh (GitHub CLI) with your login: gh auth status, gh repo view,
gh issue list --state open --json number,title,body,state,labels, and
gh issue view N for the plan's issues; ralph-watch never reads gh's token.
Titles and bodies are written as text, never run. Without gh on PATH, not
logged in, or with gh finding no repository, it says what to do and exits
2, writing nothing; a plan in JSON is refused the same way. finish --pr
then writes "Closes #N" for each of these tasks done.

Examples:
  ralph-watch plan --from-github PLAN.md
  ralph-watch plan --from-github --label ralph --assignee @me PLAN.md
  ralph-watch plan --from-github --milestone v2 --repo acme/web --limit 20 PLAN.md
  ralph-watch run --tasks PLAN.md -- claude`,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return control.Errorf(contract.ExitUsage, "plan takes one plan file, got %d arguments", len(args))
			}
			if !*fromGitHub {
				return control.Errorf(contract.ExitUsage, "plan needs where its tasks come from: --from-github")
			}
			if *limit < 1 {
				return control.Errorf(contract.ExitUsage, "--limit %d: give 1 or more", *limit)
			}
			return planFromGitHub(e, args[0], *repo, issues.Filter{Labels: labels, Milestone: *milestone, Assignee: *assignee, Limit: *limit})
		},
	})
}

// planFromGitHub writes path from the issues f picks, or brings it up to date.
func planFromGitHub(e env, path, repo string, f issues.Filter) error {
	data, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return control.Errorf(contract.ExitUsage, "read plan %s: %v", path, err)
	}
	p, err := plan.ReadForIssues(path, data)
	if err != nil {
		return control.Errorf(contract.ExitUsage, "%v", err)
	}
	gh, err := issues.Find(e.Getenv("PATH"))
	if err != nil {
		return control.Errorf(contract.ExitUsage, "%v", err)
	}
	gh.Repo, gh.Env = repo, append(os.Environ(), "PATH="+e.Getenv("PATH"))
	if gh.Dir, err = os.Getwd(); err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	if err := gh.Ready(); err != nil {
		return control.Errorf(contract.ExitUsage, "%v", err)
	}
	open, err := gh.ListOpen(f)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	var all []plan.Issue
	listed := map[int]bool{}
	for _, is := range open {
		listed[is.Number] = true
		all = append(all, plan.Issue{Number: is.Number, Title: is.Title, Criteria: plan.IssueCriteria(is.Body), Closed: is.Closed()})
	}
	for _, n := range p.Named() { // the plan's issues the list left out: closed, or not picked
		if listed[n] {
			continue
		}
		is, err := gh.View(n)
		if err != nil {
			fmt.Fprintf(e.Stderr, "ralph-watch: warning: %v; its task is left as it is\n", err)
			continue
		}
		all = append(all, plan.Issue{Number: n, Title: is.Title, Closed: is.Closed()})
	}
	head := fmt.Sprintf("# Plan\n\nThe open issues of %s, one task each (ralph-watch plan --from-github; run it again to add new issues and tick closed ones).\n\n", gh.Repo)
	out, edit, err := plan.WriteIssues(data, all, head)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "%s: %v", path, err)
	}
	if len(edit.Added) == 0 && len(edit.Ticked) == 0 {
		if !exists {
			return control.Errorf(contract.ExitFailed, "%s has no open issue%s: no plan written", gh.Repo, picked(f))
		}
		fmt.Fprintf(e.Stdout, "%s is up to date with %s: no new open issue%s, and none of its %d issues closed since.\n", path, gh.Repo, picked(f), len(p.Named()))
		return nil
	}
	if !bytes.Equal(out, data) || !exists {
		if err := writePlan(path, out); err != nil {
			return control.Errorf(contract.ExitFailed, "write plan %s: %v", path, err)
		}
	}
	var did []string
	if len(edit.Added) > 0 {
		did = append(did, fmt.Sprintf("added %s", plan.IssueList(edit.Added)))
	}
	if len(edit.Ticked) > 0 {
		did = append(did, fmt.Sprintf("ticked %s (closed)", plan.IssueList(edit.Ticked)))
	}
	verb := "Updated"
	if !exists {
		verb = "Wrote"
	}
	fmt.Fprintf(e.Stdout, "%s %s from the issues of %s: %s.\nCheck it with: ralph-watch tasks %s\n", verb, path, gh.Repo, strings.Join(did, "; "), path)
	return nil
}

// picked is the filter in words, for "no open issue …".
func picked(f issues.Filter) string {
	var w []string
	for _, l := range f.Labels {
		w = append(w, "--label "+l)
	}
	if f.Milestone != "" {
		w = append(w, "--milestone "+f.Milestone)
	}
	if f.Assignee != "" {
		w = append(w, "--assignee "+f.Assignee)
	}
	if len(w) == 0 {
		return ""
	}
	return " that " + strings.Join(w, " ") + " picks"
}

// writePlan writes the plan by a temporary file and a rename, keeping an
// existing plan's mode.
func writePlan(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real // a plan linked from elsewhere stays linked
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".plan-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
