package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// committedRE finds the iterations whose work --commit committed.
var committedRE = regexp.MustCompile(`\[COMMIT\] iteration (\d+) committed`)

// tasksSection is one row per task of the loop's plan (--tasks): its
// verdict, attempts, the iterations that worked on it and what they took,
// cost and committed.
func (p *page) tasksSection() {
	t := p.run.State.Tasks
	if t == nil || len(t.Items) == 0 {
		return
	}
	committed := map[int]bool{}
	for _, m := range committedRE.FindAllStringSubmatch(p.run.Log, -1) {
		n, _ := strconv.Atoi(m[1])
		committed[n] = true
	}
	p.s("<section id=\"tasks\">\n<h2>Tasks</h2>\n")
	p.f("<p>%d of %d done, %d open, %d skipped: <code>%s</code></p>\n", t.Done, t.Total, t.Open, t.Skipped, esc(t.File))
	p.s("<table>\n<thead><tr><th>task</th><th>title</th><th>verdict</th><th>attempts</th><th>iterations</th><th>time</th><th>cost</th><th>commits</th></tr></thead>\n<tbody>\n")
	for _, item := range t.Items {
		var links []string
		var took time.Duration
		var cost float64
		costKnown, commits := len(item.Iterations) > 0, 0
		for _, n := range item.Iterations {
			links = append(links, fmt.Sprintf("<a href=\"#it-%d\">%d</a>", n, n))
			if committed[n] {
				commits++
			}
			for _, it := range p.run.Iterations {
				if it.N != n {
					continue
				}
				took += it.Duration
				if usd, known := receiptCost(it.Receipt); known {
					cost += usd
				} else {
					costKnown = false
				}
			}
		}
		verdict := item.State
		if n := len(item.Verdicts); n > 0 && item.Verdicts[n-1].Reason != "" {
			verdict = fmt.Sprintf("<span title=\"%s\">%s</span>", esc(item.Verdicts[n-1].Reason), esc(item.State))
		} else {
			verdict = esc(verdict)
		}
		costText := "-"
		if costKnown {
			costText = receipt.Dollars(cost)
		}
		iterations := strings.Join(links, " ")
		if iterations == "" {
			iterations = "-"
		}
		p.f("<tr class=\"task-%s\"><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td></tr>\n",
			esc(item.State), esc(item.ID), esc(item.Title), verdict, item.Attempts, iterations, esc(took.Round(time.Second).String()), esc(costText), commits)
	}
	p.s("</tbody>\n</table>\n</section>\n")
}

// receiptCost is an iteration's cost, its judge's calls included; known is
// false without a receipt, or when its cost is not known.
func receiptCost(r *receipt.Receipt) (usd float64, known bool) {
	if r == nil {
		return 0, false
	}
	return r.Cost()
}
