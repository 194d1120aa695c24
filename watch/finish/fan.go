package finish

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Fan opens one pull request for a fan's branch, as Finish does for a
// loop's (the same push, never forced, and the same gh), its body every
// task's verdict. It lands into opts.Into, else the branch checked out in
// the fan's repository when that holds the commit the fan started from.
// dir is the fan's folder (the body and landed.json are kept there); works
// are its tasks as fan.Works reads them. The caller refuses a fan that
// still runs.
func Fan(f *fan.State, dir string, works []fan.Work, opts Options) error {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Mode == "" {
		return fanShow(f, works, opts)
	}
	if opts.Mode != PR {
		return usagef("a fan lands by one pull request: finish %s --pr (its branch %s is yours to merge with git otherwise)", f.Name, f.Into)
	}
	if opts.Remove || opts.Commit {
		return usagef("--remove and --commit are for a loop's worktree: a fan keeps its tasks' worktrees and branches")
	}
	base := opts.Into
	if base == "" {
		cur, err := git(f.Repo, "symbolic-ref", "--short", "-q", "HEAD")
		if err != nil || cur == f.Into || !ok(f.Repo, "merge-base", "--is-ancestor", f.Base, cur) {
			return usagef("say which branch the pull request of fan %s goes into: --into BRANCH", f.Name)
		}
		base = cur
	}
	if base == f.Into {
		return usagef("fan %s's branch is %s itself: --into names another branch", f.Name, base)
	}
	if !ok(f.Repo, "rev-parse", "-q", "--verify", "refs/heads/"+base) {
		return failf("branch %s (where fan %s lands) does not exist", base, f.Name)
	}
	s, err := Summarize(nil, Place{Repo: f.Repo, Tree: f.Repo, Branch: f.Into, Base: base})
	if err != nil {
		return err
	}
	fs := &FanSummary{Fan: f, Works: works, Summary: s}
	fmt.Fprint(opts.Out, fs.Text())
	if len(s.Commits) == 0 {
		return failf("%s has no commit that %s lacks: no pull request to open", f.Into, base)
	}
	fmt.Fprintln(opts.Out)
	s.Closed = closedOnGitHub(fanIssues(works), f.Repo, opts)
	url, err := openPR(f.Repo, f.Into, base, fs.Title(), fs.Markdown(), filepath.Join(dir, state.PRBodyFile), opts)
	if err != nil {
		return err
	}
	rec := Landed{How: PR, Branch: f.Into, Into: base, URL: url, At: state.Stamp(opts.Now())}
	if data, err := json.MarshalIndent(rec, "", "  "); err == nil {
		_ = os.WriteFile(filepath.Join(dir, state.LandedFile), append(data, '\n'), 0o600)
	}
	fmt.Fprintln(opts.Out, rec.Sentence())
	return nil
}

// fanShow is finish FAN without a mode: what the fan did and what is left
// to land, and how, onto the branch its pull request would go into (else
// the commit it started from). It changes nothing.
func fanShow(f *fan.State, works []fan.Work, opts Options) error {
	base := opts.Into
	if base == "" {
		if cur, err := git(f.Repo, "symbolic-ref", "--short", "-q", "HEAD"); err == nil && cur != f.Into && ok(f.Repo, "merge-base", "--is-ancestor", f.Base, cur) {
			base = cur
		} else {
			base = f.Base
		}
	}
	s, err := Summarize(nil, Place{Repo: f.Repo, Tree: f.Repo, Branch: f.Into, Base: base})
	if err != nil {
		return err
	}
	fmt.Fprint(opts.Out, (&FanSummary{Fan: f, Works: works, Summary: s}).Text())
	if len(s.Commits) == 0 {
		fmt.Fprintf(opts.Out, "\nNothing to land: %s has no commit that %s lacks.\n", f.Into, base)
		return nil
	}
	fmt.Fprintf(opts.Out, "\nLand it with: ralph-watch finish %s --pr (one pull request), or merge %s with git yourself\n", f.Name, f.Into)
	return nil
}

// FanSummary is what a fan did, as finish shows it and its pull request's
// body tells it.
type FanSummary struct {
	Fan   *fan.State
	Works []fan.Work
	*Summary
}

// counts is how the fan's tasks ended, in words: "3 of 4 tasks landed, 1
// waiting for review".
func (s *FanSummary) counts() string {
	total, landed, review, _ := s.Fan.Counts()
	out := fmt.Sprintf("%d of %d %s landed", landed, total, plural(total, "task"))
	if review > 0 {
		out += fmt.Sprintf(", %d waiting for review", review)
	}
	skipped := 0
	for _, w := range s.Works {
		if w.State == fan.Skipped {
			skipped++
		}
	}
	if skipped > 0 {
		out += fmt.Sprintf(", %d skipped", skipped)
	}
	return out
}

// Title is the pull request's title.
func (s *FanSummary) Title() string { return fmt.Sprintf("ralph fan %s: %s", s.Fan.Name, s.counts()) }

// Text is the summary for a terminal.
func (s *FanSummary) Text() string {
	var b strings.Builder
	f, p := s.Fan, s.Place
	fmt.Fprintf(&b, "Fan %s: %s\n", f.Name, s.counts())
	fmt.Fprintf(&b, "Branch %s, onto %s: %d %s\n", p.Branch, p.Base, len(s.Commits), plural(len(s.Commits), "commit"))
	for _, c := range s.Commits {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	if s.DiffStat != "" {
		fmt.Fprintf(&b, "%s\n", s.DiffStat)
	}
	fmt.Fprintln(&b, "Tasks:")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, w := range s.Works {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", w.ID, w.State, w.Title, landing(w))
	}
	_ = tw.Flush()
	fmt.Fprintf(&b, "Spent: %s\n", fan.Spent(s.Works).Words())
	return b.String()
}

// landing is where a task stands on the fan's branch: the commit that
// landed it, else why not (its first line).
func landing(w fan.Work) string {
	switch {
	case w.State == fan.Landed && w.Landed != "":
		return short(w.Landed)
	case w.Why != "":
		l, _, _ := strings.Cut(w.Why, "\n")
		return l
	}
	return "-"
}

// Markdown is the summary as the pull request's body: every task's
// verdict, why those that did not land did not, the commits, the files
// changed, and where to look closer.
func (s *FanSummary) Markdown() string {
	var b strings.Builder
	f, p := s.Fan, s.Place
	fmt.Fprintf(&b, "Work of the ralph fan `%s` on `%s`: %s. Plan: `%s`. Spent: %s.\n\n",
		f.Name, p.Branch, s.counts(), f.Plan, fan.Spent(s.Works).Words())
	b.WriteString("### Tasks\n\n| task | title | verdict | loop's verdict | loops | iterations | attempts | merge tries | landed | cost |\n" +
		"|---|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range s.Works {
		var loops []string
		for _, r := range w.Runs {
			loops = append(loops, "`"+r.Name+"`")
		}
		landed := "-"
		if w.State == fan.Landed && w.Landed != "" {
			landed = short(w.Landed)
		}
		cost := w.Spent.Compact()
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %d | %d | %s | %s |\n", cell(w.ID), cell(w.Title), w.State, cell(orDash(w.Verdict)),
			orDash(strings.Join(loops, " ")), w.Iterations, w.Attempts, w.Merges, landed, orDash(cost))
	}
	if part := issuesPart(fanIssues(s.Works), s.Closed); part != "" {
		b.WriteString("\n" + strings.TrimSuffix(part, "\n"))
	}
	for _, w := range s.Works {
		if w.Why == "" || w.State == fan.Landed {
			continue
		}
		where := ""
		if w.Branch != "" {
			where = " (its work: branch `" + w.Branch + "`)"
		}
		fmt.Fprintf(&b, "\n**Task %s, %s**%s:\n\n````\n%s\n````\n", w.ID, w.State, where, strings.TrimSpace(w.Why))
	}
	fmt.Fprintf(&b, "\n### Commits (%d)\n\n", len(s.Commits))
	for _, c := range s.Commits {
		fmt.Fprintf(&b, "- %s\n", c)
	}
	fmt.Fprintf(&b, "\n### Files changed (%d)\n\n", len(s.Files))
	if s.DiffStat != "" {
		fmt.Fprintf(&b, "```\n%s\n```\n", s.DiffStat)
	}
	fmt.Fprintf(&b, "\n### Look closer\n\nOn the machine that ran the fan:\n\n"+
		"```\nralph-watch status %s         # its loops, tasks and queue\nralph-watch report %s --open  # one page: every task and loop, each loop's own page linked\n```\n", f.Name, f.Name)
	return b.String()
}

// cell is text a Markdown table cell holds as it is.
func cell(text string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(text)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
