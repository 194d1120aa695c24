package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// The timeline's drawing area, in SVG units (it scales to the page).
const (
	svgWidth   = 1000
	barsTop    = 24
	barsHeight = 130
	checksTop  = barsTop + barsHeight + 8
	checksH    = 10
	judgeTop   = checksTop + checksH + 4 // the judge's verdicts (--goal), when it gave any
	judgeH     = 10
	axisTop    = checksTop + checksH + 14
	costTop    = axisTop + 16
	costHeight = 90
	svgHeight  = costTop + costHeight + 22
	leftPad    = 46
	rightPad   = 10
)

// timeline draws the iterations side by side: a bar each, as tall as the
// iteration took and coloured by how it ended, its checks beneath, the
// judge's verdict after it (goal mode) beneath them, and below them the
// cost so far against the budget. Each bar links to its row
// and says everything in its tooltip: no script needed.
func (p *page) timeline() {
	its := p.run.Iterations
	p.s("<section id=\"timeline\">\n<h2>Timeline</h2>\n")
	if len(its) == 0 {
		p.s("<p class=\"note\">No iteration has run.</p>\n</section>\n")
		return
	}
	var longest time.Duration
	for _, it := range its {
		longest = max(longest, it.Duration)
	}
	longest = max(longest, time.Second)
	slot := float64(svgWidth-leftPad-rightPad) / float64(len(its))
	gap := min(slot*0.15, 2)
	judged := len(p.run.State.Verdicts) > 0
	down := 0 // the judge's row pushes what is below it down
	if judged {
		down = judgeH + 4
	}
	axisTop, costTop, svgHeight := axisTop+down, costTop+down, svgHeight+down
	p.f("<svg class=\"timeline\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"timeline of %d iterations\">\n", svgWidth, svgHeight, len(its))
	p.f("<text x=\"2\" y=\"14\">iteration time (longest %s)</text>\n", esc(took(longest)))
	p.f("<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", leftPad, barsTop+barsHeight, svgWidth-rightPad, barsTop+barsHeight)
	p.f("<text x=\"2\" y=\"%d\">checks</text>\n", checksTop+checksH-1)
	if judged {
		p.f("<text x=\"2\" y=\"%d\">judge</text>\n", judgeTop+judgeH-1)
	}

	// Cost so far, and the budget it runs against.
	budget := p.run.State.MaxCostUSD
	var cum []float64
	var sum float64
	_, costKnown := p.run.Total().Cost() // as the header says it
	for _, it := range its {
		if r := it.Receipt; r != nil {
			if usd, known := r.Cost(); known {
				sum += usd
			}
		}
		cum = append(cum, sum)
	}
	top := max(sum, budget)
	for i, it := range its {
		x := float64(leftPad) + float64(i)*slot
		h := float64(barsHeight) * it.Duration.Seconds() / longest.Seconds()
		h = max(h, 2)
		passed, all := it.ChecksPassed()
		p.f("<a href=\"#it-%d\"><g class=\"iteration\" data-n=\"%d\"><title>%s</title>", it.N, it.N, esc(p.tooltip(it.N, cum[i])))
		p.f("<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", outcome(it), x+gap/2, float64(barsTop+barsHeight)-h, slot-gap, h)
		check := "none"
		switch {
		case all > 0 && passed == all:
			check = "pass"
		case all > 0:
			check = "cfail"
		}
		p.f("<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>", check, x+gap/2, checksTop, slot-gap, checksH)
		p.s("</g></a>\n")
		if vs := p.verdictsOf(it.N); len(vs) > 0 {
			var words []string
			for _, v := range vs {
				words = append(words, verdictWords(v))
			}
			last := vs[len(vs)-1]
			p.f("<a href=\"#verdict-%d\"><rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>%s</title></rect></a>\n",
				it.N, verdictClass(last), x+gap/2, judgeTop, slot-gap, judgeH, esc(fmt.Sprintf("iteration %d: %s", it.N, strings.Join(words, "; then "))))
		}
	}
	// Iteration numbers, at most about 20 of them.
	step := max(1, (len(its)+19)/20)
	for i := 0; i < len(its); i += step {
		x := float64(leftPad) + (float64(i)+0.5)*slot
		p.f("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x, axisTop, its[i].N)
	}
	if costKnown && top > 0 {
		label := "cost so far: " + receipt.Dollars(sum)
		if budget > 0 {
			label += " of a " + receipt.Dollars(budget) + " budget"
		}
		p.f("<text x=\"2\" y=\"%d\">%s</text>\n", costTop-4, esc(label))
		y := func(v float64) float64 { return float64(costTop+costHeight) - float64(costHeight)*v/top }
		p.f("<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", leftPad, costTop+costHeight, svgWidth-rightPad, costTop+costHeight)
		if budget > 0 {
			p.f("<line class=\"budget\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"><title>budget %s</title></line>\n", leftPad, y(budget), svgWidth-rightPad, y(budget), esc(receipt.Dollars(budget)))
		}
		var pts []string
		pts = append(pts, fmt.Sprintf("%d,%d", leftPad, costTop+costHeight))
		for i := range its {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", float64(leftPad)+float64(i+1)*slot, y(cum[i])))
		}
		p.f("<polyline class=\"cost\" points=\"%s\"><title>cost so far</title></polyline>\n", strings.Join(pts, " "))
	} else {
		p.f("<text x=\"2\" y=\"%d\">cost: not known (the agent reported no usage, or a model's price is unknown)</text>\n", costTop+20)
	}
	p.s("</svg>\n")
	p.s("<p class=\"legend\"><span><i class=\"l-ok\" style=\"background:#7dcea0\"></i>ended</span><span><i style=\"background:#2471a3\"></i>done</span>" +
		"<span><i style=\"background:#d68910\"></i>timed out</span><span><i style=\"background:#c0392b\"></i>failed</span><span><i style=\"background:#bbb\"></i>not ended (stopped, paused)</span>" +
		"<span><i style=\"background:#1e8449\"></i>checks passed</span><span><i style=\"background:#c0392b\"></i>a check failed</span>")
	if judged {
		p.s("<span><i style=\"background:#2471a3\"></i>judge: goal met</span><span><i style=\"background:#e59866\"></i>judge: not met</span>")
	}
	p.s("<span><i style=\"background:#6c3483\"></i>cost so far</span></p>\n</section>\n")
}

// tooltip is everything about iteration n, for its bar's title.
func (p *page) tooltip(n int, cumulative float64) string {
	for _, it := range p.run.Iterations {
		if it.N != n {
			continue
		}
		parts := []string{fmt.Sprintf("iteration %d: %s", n, iterationTook(it))}
		if how := it.How(); how != "" {
			parts = append(parts, "ended "+how)
		}
		if passed, all := it.ChecksPassed(); all > 0 {
			parts = append(parts, fmt.Sprintf("checks %d/%d", passed, all))
		}
		for _, v := range p.verdictsOf(n) {
			parts = append(parts, verdictWords(v))
		}
		if r := it.Receipt; r != nil {
			if r.Reported() {
				parts = append(parts, fmt.Sprintf("%d tokens", r.Tokens()))
			}
			if usd, known := r.Cost(); known {
				parts = append(parts, receipt.Dollars(usd)+" (so far "+receipt.Dollars(cumulative)+")")
			}
			parts = append(parts, fmt.Sprintf("%d files +%d -%d", r.Changes.Files, r.Changes.Insertions, r.Changes.Deletions))
		}
		return strings.Join(parts, ", ")
	}
	return ""
}
