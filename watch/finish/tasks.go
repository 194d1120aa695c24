package finish

import (
	"fmt"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/history"
)

// tasksDone is the plan's tasks by verdict, for a pull request's body: the
// ones done and the ones skipped with why; "" for a loop without a plan.
func tasksDone(run *history.Run) string {
	t := run.State.Tasks
	if t == nil || len(t.Items) == 0 {
		return ""
	}
	var done, skipped, open []string
	for _, item := range t.Items {
		line := fmt.Sprintf("- %s %s", item.ID, item.Title)
		switch item.State {
		case "done", "approved":
			done = append(done, line)
		case "skipped":
			if n := len(item.Verdicts); n > 0 && item.Verdicts[n-1].Reason != "" {
				line += " (" + item.Verdicts[n-1].Reason + ")"
			}
			skipped = append(skipped, line)
		default:
			open = append(open, line)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Tasks: %d of %d done\n\n", len(done), t.Total)
	for _, part := range []struct {
		what  string
		lines []string
	}{{"Done", done}, {"Skipped", skipped}, {"Open", open}} {
		if len(part.lines) > 0 {
			fmt.Fprintf(&b, "%s:\n\n%s\n\n", part.what, strings.Join(part.lines, "\n"))
		}
	}
	return b.String()
}
