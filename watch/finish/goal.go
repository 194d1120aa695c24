package finish

import (
	"fmt"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// finalVerdict is the judge's last verdict on the run's goal (--goal);
// ok false when the loop had no goal or the judge was never asked.
func finalVerdict(run *history.Run) (state.Verdict, bool) {
	v := run.State.Verdicts
	if len(v) == 0 {
		return state.Verdict{}, false
	}
	return v[len(v)-1], true
}

// goalLine is the goal's final verdict in one line, for a terminal.
func goalLine(run *history.Run) string {
	v, ok := finalVerdict(run)
	if !ok {
		if run.State.Goal != "" {
			return "Goal: the judge was not asked\n"
		}
		return ""
	}
	if v.Met {
		return fmt.Sprintf("Goal: met (the judge, after iteration %d)\n", v.Iteration)
	}
	return fmt.Sprintf("Goal: not met (the judge, after iteration %d): %s\n", v.Iteration, whyNot(v))
}

// whyNot is why a verdict is not met: its reason, else what is missing.
func whyNot(v state.Verdict) string {
	if v.Reason != "" {
		return v.Reason
	}
	if len(v.Missing) > 0 {
		return strings.Join(v.Missing, "; ")
	}
	return "nothing named missing"
}

// goalMarkdown quotes the final verdict for a pull request's body: the
// goal in the person's words, met or not, the evidence the judge named,
// and what it found missing when not met.
func goalMarkdown(run *history.Run) string {
	goal := strings.TrimSpace(run.State.Goal)
	v, judged := finalVerdict(run)
	if goal == "" && !judged {
		return ""
	}
	var b strings.Builder
	switch {
	case !judged:
		b.WriteString("### Goal: not judged\n\n")
	case v.Met:
		fmt.Fprintf(&b, "### Goal: met (the judge's verdict after iteration %d)\n\n", v.Iteration)
	default:
		fmt.Fprintf(&b, "### Goal: not met (the judge's verdict after iteration %d)\n\n", v.Iteration)
	}
	if goal != "" {
		b.WriteString(quote(goal) + "\n\n")
	}
	if !judged {
		b.WriteString("The judge was never asked.\n\n")
		return b.String()
	}
	if len(v.Evidence) > 0 {
		b.WriteString("Evidence the judge named:\n\n")
		for _, e := range v.Evidence {
			fmt.Fprintf(&b, "- %s\n", oneLine(e))
		}
		b.WriteString("\n")
	} else if v.Met {
		b.WriteString("The judge named no evidence.\n\n")
	}
	if !v.Met {
		if len(v.Missing) > 0 {
			b.WriteString("Still missing:\n\n")
			for _, m := range v.Missing {
				fmt.Fprintf(&b, "- %s\n", oneLine(m))
			}
			b.WriteString("\n")
		}
		if v.Reason != "" && v.Reason != strings.Join(v.Missing, "; ") {
			fmt.Fprintf(&b, "Not met: %s.\n\n", oneLine(v.Reason))
		}
	}
	return b.String()
}

// quote is text as a Markdown block quote, line by line.
func quote(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// oneLine keeps a list item one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
