package finish

import (
	"fmt"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/issues"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
)

// issueTask is a task of the plan that came from a GitHub issue (its id
// gh-N), and whether the work did it.
type issueTask struct {
	Number int
	Title  string
	Done   bool
	Why    string // not done: why, in a few words
}

// loopIssues are the tasks of run's plan that came from issues.
func loopIssues(run *history.Run) []issueTask {
	if run == nil || run.State == nil || run.State.Tasks == nil {
		return nil
	}
	var out []issueTask
	for _, item := range run.State.Tasks.Items {
		n := plan.IssueOf(item.ID)
		if n == 0 {
			continue
		}
		t := issueTask{Number: n, Title: item.Title, Done: item.State == "done" || item.State == "approved"}
		last := ""
		if k := len(item.Verdicts); k > 0 {
			last = item.Verdicts[k-1].Reason
		}
		switch {
		case t.Done:
		case item.State == "review":
			t.Why = "done, its review not yet"
		case last != "":
			t.Why = last
		case item.State == "skipped":
			t.Why = "skipped"
		case item.Attempts == 0:
			t.Why = "not started"
		default:
			t.Why = fmt.Sprintf("%d %s, not done", item.Attempts, plural(item.Attempts, "attempt"))
		}
		out = append(out, t)
	}
	return out
}

// fanIssues are the fan's tasks that came from issues: done when landed.
func fanIssues(works []fan.Work) []issueTask {
	var out []issueTask
	for _, w := range works {
		n := plan.IssueOf(w.ID)
		if n == 0 {
			continue
		}
		t := issueTask{Number: n, Title: w.Title, Done: w.State == fan.Landed}
		why, _, _ := strings.Cut(strings.TrimSpace(w.Why), "\n")
		switch {
		case t.Done:
		case why != "":
			t.Why = why
		case w.Reason != "":
			t.Why = w.Reason
		case w.State == fan.Open:
			t.Why = "not started"
		default:
			t.Why = w.State
		}
		out = append(out, t)
	}
	return out
}

// closedOnGitHub is which of the tasks' issues are closed on GitHub now,
// as gh, run in dir, tells; nil when no task came from an issue.
func closedOnGitHub(tasks []issueTask, dir string, opts Options) map[int]bool {
	if len(tasks) == 0 {
		return nil
	}
	gh := &issues.Gh{Program: opts.Gh, Dir: dir}
	if gh.Program == "" {
		gh.Program = "gh"
	}
	numbers := make([]int, len(tasks))
	for i, t := range tasks {
		numbers[i] = t.Number
	}
	return gh.Closed(numbers)
}

// issuesPart is the pull request body's part for the tasks that came from
// issues: "Closes #N" for each done (GitHub closes it when the pull
// request merges), "- #N title: not done (why)" for each not; an issue
// closed on GitHub meanwhile gets neither. "" when there is nothing to say.
func issuesPart(tasks []issueTask, closed map[int]bool) string {
	var closes, not []string
	seen := map[int]bool{}
	for _, t := range tasks {
		if closed[t.Number] || seen[t.Number] {
			continue
		}
		seen[t.Number] = true
		if t.Done {
			closes = append(closes, fmt.Sprintf("Closes #%d", t.Number))
		} else {
			not = append(not, fmt.Sprintf("- #%d %s: not done (%s)", t.Number, t.Title, t.Why))
		}
	}
	if len(closes)+len(not) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Issues\n\n")
	if len(closes) > 0 {
		fmt.Fprintf(&b, "%s\n\n", strings.Join(closes, "\n"))
	}
	if len(not) > 0 {
		fmt.Fprintf(&b, "%s\n\n", strings.Join(not, "\n"))
	}
	return b.String()
}
