package finish

import (
	"fmt"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// Summary is what a loop did, as finish shows it and a pull request's body
// tells it.
type Summary struct {
	Run      *history.Run
	Place    Place
	Commits  []string // "abc1234 subject", oldest first
	DiffStat string   // git diff --stat BASE...BRANCH
	Files    []string // the files the branch changes

	// Closed are the plan's issues closed on GitHub before the pull
	// request: its body names them not.
	Closed map[int]bool
}

// Summarize reads the branch's commits and changes against the base.
func Summarize(run *history.Run, p Place) (*Summary, error) {
	s := &Summary{Run: run, Place: p}
	span := p.Base + ".." + p.Branch
	out, err := git(p.Tree, "log", "--reverse", "--format=%h %s", span)
	if err != nil {
		return nil, failf("read the commits of %s: %v", span, err)
	}
	s.Commits = lines(out)
	s.DiffStat, _ = git(p.Tree, "diff", "--stat=100", p.Base+"..."+p.Branch)
	names, _ := git(p.Tree, "diff", "--name-only", p.Base+"..."+p.Branch)
	s.Files = lines(names)
	return s, nil
}

// Title is the pull request's title.
func (s *Summary) Title() string {
	return fmt.Sprintf("ralph %s: %d %s, %s", s.Run.Name, len(s.Run.Iterations), plural(len(s.Run.Iterations), "iteration"), ending(s.Run))
}

// ending is how the run ended, in words.
func ending(run *history.Run) string {
	if e := run.Ended(); e != "" {
		return "ended " + e
	}
	return "not ended"
}

// lastChecks is the last iteration that ran checks, nil if none did.
func lastChecks(run *history.Run) *history.Iteration {
	for i := len(run.Iterations) - 1; i >= 0; i-- {
		if len(run.Iterations[i].Checks) > 0 {
			return run.Iterations[i]
		}
	}
	return nil
}

// Text is the summary for a terminal.
func (s *Summary) Text() string {
	var b strings.Builder
	run, p := s.Run, s.Place
	fmt.Fprintf(&b, "Loop %s: %d %s, %s\n", run.Name, len(run.Iterations), plural(len(run.Iterations), "iteration"), ending(run))
	where := p.Tree
	if p.Worktree {
		where = "worktree " + p.Tree
	}
	fmt.Fprintf(&b, "Branch %s (%s), onto %s: %d %s\n", p.Branch, where, p.Base, len(s.Commits), plural(len(s.Commits), "commit"))
	for _, c := range s.Commits {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	if s.DiffStat != "" {
		fmt.Fprintf(&b, "%s\n", s.DiffStat)
	}
	if it := lastChecks(run); it != nil {
		passed, all := it.ChecksPassed()
		fmt.Fprintf(&b, "Checks (iteration %d): %d of %d passed\n", it.N, passed, all)
		for _, c := range it.Checks {
			fmt.Fprintf(&b, "  %s  %s\n", verdict(c), c.Command)
		}
	} else {
		fmt.Fprintf(&b, "Checks: none ran\n")
	}
	if t := run.State.Tasks; t != nil {
		fmt.Fprintf(&b, "Tasks: %d of %d done, %d open, %d skipped\n", t.Done, t.Total, t.Open, t.Skipped)
	}
	b.WriteString(goalLine(run))
	fmt.Fprintf(&b, "Spent: %s\n", run.Spent())
	return b.String()
}

func verdict(c history.Check) string {
	if c.Passed {
		return "pass"
	}
	return fmt.Sprintf("FAIL (exit %d)", c.Exit)
}

// Markdown is the summary as a pull request's body: the run, the judge's
// final verdict on its goal, each iteration's cost and checks, the files
// changed, and how to replay.
func (s *Summary) Markdown() string {
	var b strings.Builder
	run, p := s.Run, s.Place
	fmt.Fprintf(&b, "Work of the ralph loop `%s` on `%s`: %d %s, %s. Spent: %s.\n\n",
		run.Name, p.Branch, len(run.Iterations), plural(len(run.Iterations), "iteration"), ending(run), run.Spent())
	b.WriteString(goalMarkdown(run))
	if it := lastChecks(run); it != nil {
		passed, all := it.ChecksPassed()
		fmt.Fprintf(&b, "### Checks (iteration %d): %d of %d passed\n\n", it.N, passed, all)
		for _, c := range it.Checks {
			fmt.Fprintf(&b, "- %s `%s`\n", verdict(c), c.Command)
		}
		b.WriteString("\n")
	}
	b.WriteString(tasksDone(run))
	b.WriteString(issuesPart(loopIssues(run), s.Closed))
	b.WriteString("### Iterations\n\n| # | ended | took | tokens | cost | checks | changes |\n|---|---|---|---|---|---|---|\n")
	for _, it := range run.Iterations {
		tokens, cost, changes := "-", "-", "-"
		if r := it.Receipt; r != nil {
			if r.Reported() { // the judge's calls included
				tokens = fmt.Sprint(r.Tokens())
			}
			if usd, known := r.Cost(); known {
				cost = receipt.Dollars(usd)
			}
			changes = fmt.Sprintf("%d files +%d -%d", r.Changes.Files, r.Changes.Insertions, r.Changes.Deletions)
		}
		checks := "-"
		if passed, all := it.ChecksPassed(); all > 0 {
			checks = fmt.Sprintf("%d/%d", passed, all)
		}
		how := it.How()
		if how == "" {
			how = "-"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s |\n", it.N, how, took(it.Duration), tokens, cost, checks, changes)
	}
	fmt.Fprintf(&b, "\n### Commits (%d)\n\n", len(s.Commits))
	for _, c := range s.Commits {
		fmt.Fprintf(&b, "- %s\n", c)
	}
	fmt.Fprintf(&b, "\n### Files changed (%d)\n\n", len(s.Files))
	if s.DiffStat != "" {
		fmt.Fprintf(&b, "```\n%s\n```\n", s.DiffStat)
	}
	fmt.Fprintf(&b, "\n### Replay an iteration\n\nEach iteration's screen was recorded; on the machine that ran the loop:\n\n"+
		"```\nralph-watch replay %s N      # N from 1 to %d\nralph-watch report %s --open # the whole run as one page\n```\n", run.Name, len(run.Iterations), run.Name)
	return b.String()
}

func took(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return d.Round(time.Second).String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
