package report

import (
	"fmt"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// verdictsOf are the judge's verdicts by the iteration they were given
// after, in turn (goal mode: --goal).
func (p *page) verdictsOf(n int) []state.Verdict {
	var out []state.Verdict
	for _, v := range p.run.State.Verdicts {
		if v.Iteration == n {
			out = append(out, v)
		}
	}
	return out
}

// verdictWords is one verdict for a person: "goal met", or "goal not met:
// REASON" (the reason names the failing check, no JSON, exit N, timeout,
// or what is missing).
func verdictWords(v state.Verdict) string {
	if v.Met {
		return "goal met"
	}
	why := v.Reason
	if why == "" {
		why = strings.Join(v.Missing, "; ")
	}
	if why == "" {
		return "goal not met"
	}
	return "goal not met: " + why
}

// verdictClass is a verdict's mark on the timeline.
func verdictClass(v state.Verdict) string {
	if v.Met {
		return "met"
	}
	return "notmet"
}

// goalSection is goal mode's part of the page: the goal in the person's
// words and each of the judge's verdicts, linked to its iteration, with
// what was missing or why it was not met, and the evidence it named.
func (p *page) goalSection() {
	st := p.run.State
	if st.Goal == "" && len(st.Verdicts) == 0 {
		return
	}
	p.s("<section id=\"goal\">\n<h2>Goal</h2>\n")
	if st.Goal != "" {
		p.s("<blockquote class=\"goal\">" + esc(strings.TrimSpace(st.Goal)) + "</blockquote>\n")
	}
	if len(st.Verdicts) == 0 {
		p.s("<p class=\"note\">The judge was not asked.</p>\n</section>\n")
		return
	}
	p.s("<table>\n<thead><tr><th>iteration</th><th>verdict</th><th>missing, or why not met</th><th>evidence</th></tr></thead>\n<tbody>\n")
	for _, v := range st.Verdicts {
		verdict, why := "met", "-"
		if !v.Met {
			verdict = "not met"
			why = esc(v.Reason)
			if len(v.Missing) > 0 && (v.Reason == "" || v.Reason == strings.Join(v.Missing, "; ")) {
				why = list(v.Missing)
			}
			if why == "" {
				why = "-"
			}
		}
		evidence := "-"
		if len(v.Evidence) > 0 {
			evidence = list(v.Evidence)
		}
		p.f("<tr id=\"verdict-%d\" class=\"%s\"><td><a href=\"#it-%d\">%d</a></td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			v.Iteration, verdictClass(v), v.Iteration, v.Iteration, verdict, why, evidence)
	}
	p.s("</tbody>\n</table>\n</section>\n")
}

// list is items as an HTML list.
func list(items []string) string {
	var b strings.Builder
	b.WriteString("<ul>")
	for _, it := range items {
		fmt.Fprintf(&b, "<li>%s</li>", esc(it))
	}
	b.WriteString("</ul>")
	return b.String()
}
