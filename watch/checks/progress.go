package checks

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// ProgressSection is one iteration's section of the progress file.
func ProgressSection(iteration int, started string, d time.Duration, code, reason string, runs []CheckRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Iteration %d\n\n", iteration)
	if started != "" {
		fmt.Fprintf(&b, "- Started: %s\n", started)
	}
	fmt.Fprintf(&b, "- Duration: %s\n", FormatDuration(d))
	if code == "" {
		code = "none (the agent had not exited)"
	}
	fmt.Fprintf(&b, "- Exit: %s\n", code)
	fmt.Fprintf(&b, "- Ended by: %s\n", reason)
	if len(runs) == 0 {
		b.WriteString("- Checks: none\n")
		return b.String()
	}
	fmt.Fprintf(&b, "- Checks: %s\n", CheckSummary(runs))
	for _, r := range runs {
		if r.Passed() {
			fmt.Fprintf(&b, "  - pass: `%s`\n", r.Command)
		} else {
			fmt.Fprintf(&b, "  - fail (exit %d): `%s`\n", r.Code, r.Command)
		}
	}
	return b.String()
}

// FileTail is the end of a check's saved output, as TailText makes it.
func FileTail(path string, maxChars int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	keep := int64(4*maxChars + 4)
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	cut := info.Size() > keep
	if cut {
		_, _ = f.Seek(-keep, io.SeekEnd)
	}
	data, _ := io.ReadAll(f)
	return TailText(data, cut, maxChars)
}

// FormatDuration prints 3m 42s, 1h 2m, 5s.
func FormatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh %dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm %ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}

// CommitMessage is the message of the commit after an iteration: the
// loop's name, the iteration, with a plan its task and verdict (task: its
// subject, "task 2 done: Add the parser"; verdict: the whole verdict line),
// and how its checks went.
func CommitMessage(name string, iteration int, task, verdict string, runs []CheckRun) string {
	summary := "no checks"
	if len(runs) > 0 {
		var names []string
		for _, r := range runs {
			names = append(names, r.Command)
		}
		summary = CheckSummary(runs) + ": " + strings.Join(names, ", ")
	}
	subject := fmt.Sprintf("ralph %s: iteration %d", name, iteration)
	body := ""
	if task != "" {
		subject += ", " + task
		body = "Verdict: " + verdict + "\n"
	}
	if r := []rune(subject); len(r) > 100 {
		subject = string(r[:99]) + "…"
	}
	return fmt.Sprintf("%s\n\n%sChecks: %s.\n", subject, body, summary)
}
