package judge

import (
	"strings"
)

// Placeholders of goal mode in the prompt file.
const (
	GoalPlaceholder  = "{{goal}}"
	JudgePlaceholder = "{{judge}}"
)

// Headings of the blocks goal mode adds to a prompt that places neither.
const (
	GoalHeading    = "## The goal (the loop will have it judged)"
	MissingHeading = "## What the judge found missing"
)

// MissingNote is what the next iteration is told of a not-met verdict
// and of the protected paths put back: "" when there is nothing to tell.
func MissingNote(v Verdict, restored []string) string {
	var b strings.Builder
	if !v.Met {
		items := v.Missing
		if len(items) == 0 && v.Reason != "" {
			items = []string{"the judge gave no verdict (" + v.Reason + "): make the work's state plain in the repository"}
		}
		for _, m := range items {
			b.WriteString("- " + oneLine(m) + "\n")
		}
	}
	if len(restored) > 0 {
		b.WriteString("- the loop put back protected files you changed (" + strings.Join(restored, ", ") + "): meet the goal without changing them\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// Place puts goal mode into a composed prompt: the goal where template
// has {{goal}}, else in a block appended; the note where template has
// {{judge}} (empty when there is none), else under its heading, once.
func Place(template, prompt, goal, note string) string {
	goal = strings.TrimSpace(goal)
	if strings.Contains(template, GoalPlaceholder) {
		prompt = strings.ReplaceAll(prompt, GoalPlaceholder, goal)
	} else if goal != "" {
		prompt = join(prompt, GoalHeading+"\n\n"+goal+"\n\nThe loop ends when a judge, reading the diff and the checks alone, finds this goal met: your own word that it is done does not end it.")
	}
	if strings.Contains(template, JudgePlaceholder) {
		prompt = strings.ReplaceAll(prompt, JudgePlaceholder, note)
	} else if note != "" {
		prompt = join(prompt, MissingHeading+"\n\n"+note)
	}
	return prompt
}

// join puts b after a with one blank line between them.
func join(a, b string) string {
	if a = strings.TrimRight(a, "\n"); a == "" {
		return b
	}
	return a + "\n\n" + b
}
