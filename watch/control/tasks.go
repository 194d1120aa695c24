package control

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// maxTasksShown bounds the tasks status lists one a line; the counts cover all.
const maxTasksShown = 40

// WriteTasks shows a loop's plan: the counts, then each task with its
// state, attempts and the iterations that worked on it (the first
// maxTasksShown; all when all is set).
func WriteTasks(w io.Writer, t *state.Tasks, all bool) {
	if t == nil {
		return
	}
	fmt.Fprintf(w, "Tasks: %d of %d done, %d open, %d skipped (%s)\n", t.Done, t.Total, t.Open, t.Skipped, t.File)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, item := range t.Items {
		if i == maxTasksShown && !all {
			fmt.Fprintf(tw, "  … %d more ('ralph-watch tasks NAME' lists them all)\n", len(t.Items)-i)
			break
		}
		mark := ""
		if item.ID == t.Current && t.Mode != "" {
			mark = " ← " + t.Mode
		}
		if n := len(item.Verdicts); n > 0 && item.State != "done" && item.Verdicts[n-1].Reason != "" {
			mark += " (" + item.Verdicts[n-1].Reason + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\tattempts %d\t%s%s\n", item.State, item.ID, item.Title, item.Attempts, iterationsText(item.Iterations), mark)
	}
	_ = tw.Flush()
}

// iterationsText is "iterations 4, 5" or "".
func iterationsText(its []int) string {
	if len(its) == 0 {
		return ""
	}
	s := make([]string, len(its))
	for i, n := range its {
		s[i] = strconv.Itoa(n)
	}
	word := "iterations "
	if len(its) == 1 {
		word = "iteration "
	}
	return word + strings.Join(s, ", ")
}

// tasksColumn is list's TASKS: done of all, "-" without a plan.
func tasksColumn(l *Loop) string {
	if t := l.State.Tasks; t != nil && t.Total > 0 {
		return fmt.Sprintf("%d/%d", t.Done, t.Total)
	}
	return "-"
}

// tasksJSON leaves out of status --json's tasks what only the loop needs.
func tasksJSON(m map[string]any) {
	t, ok := m["tasks"].(map[string]any)
	if !ok {
		return
	}
	for _, k := range []string{"base", "before_tree", "before_head", "before_print"} {
		delete(t, k)
	}
}
