package report

import (
	"fmt"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// iterationTook is how long an iteration took, as iterations.log says it.
func iterationTook(it *history.Iteration) string {
	if it.Duration <= 0 {
		return "-"
	}
	return checks.FormatDuration(it.Duration)
}

// outcome is the class of how an iteration ended: ok, done, fail, timeout;
// unknown when no end was logged (a loop stopped or paused in it).
func outcome(it *history.Iteration) string {
	switch {
	case strings.Contains(it.Ending, "timeout"): // a failure too, but this one says why
		return "timeout"
	case it.Failed:
		return "fail"
	case it.LoopEnded == string(contract.ReasonDonePattern) || it.LoopEnded == string(contract.ReasonDoneFile) || it.LoopEnded == string(contract.ReasonGoalMet):
		return "done" // the loop's work is done: not a loop that was stopped or ran out
	case it.Ending == "":
		return "unknown"
	}
	return "ok"
}

// table is one row per iteration.
func (p *page) table() {
	p.s("<section id=\"iterations\">\n<h2>Iterations</h2>\n<table>\n<thead><tr><th>#</th><th>started</th><th>took</th><th>ended</th><th>checks</th>" +
		"<th>tokens</th><th>cost</th><th>cost so far</th><th>changes</th><th>committed</th><th>cast</th></tr></thead>\n<tbody>\n")
	casts := map[int]bool{}
	for _, c := range p.casts {
		casts[c.Iteration] = true
	}
	var sum float64
	known := true
	for _, it := range p.run.Iterations {
		tokens, cost, so, changes := "-", "-", "-", "-"
		if r := it.Receipt; r != nil {
			if r.Reported() { // the judge's calls included
				tokens = fmt.Sprint(r.Tokens())
			}
			if usd, known := r.Cost(); known {
				cost = receipt.Dollars(usd)
				sum += usd
			}
			known = known && !r.Unpriced() // as the header's total: a receipt that reported nothing spent nothing seen
			changes = fmt.Sprintf("%d files +%d &minus;%d", r.Changes.Files, r.Changes.Insertions, r.Changes.Deletions)
		}
		if known {
			so = receipt.Dollars(sum)
		}
		checks := "-"
		if passed, all := it.ChecksPassed(); all > 0 {
			var names []string
			for _, c := range it.Checks {
				mark := "pass"
				if !c.Passed {
					mark = fmt.Sprintf("FAIL exit %d", c.Exit)
				}
				names = append(names, mark+": "+c.Command)
			}
			cls := "pass"
			if passed < all {
				cls = "fail"
			}
			checks = fmt.Sprintf("<span class=\"%s\" title=\"%s\">%d/%d</span>", cls, esc(strings.Join(names, "\n")), passed, all)
		}
		files := "-"
		if fs := p.files[it.N]; len(fs) > 0 {
			for i := range fs {
				fs[i] = "<code>" + esc(fs[i]) + "</code>"
			}
			files = strings.Join(fs, " ")
		}
		castCell := "-"
		if casts[it.N] {
			castCell = fmt.Sprintf("<a href=\"#cast-%d\">play</a>", it.N)
		}
		started := "-"
		if !it.Started.IsZero() {
			started = it.Started.Format("15:04:05")
		}
		ending := it.How()
		if ending == "" {
			ending = "-"
		}
		p.f("<tr id=\"it-%d\" class=\"%s\"><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"files\">%s</td><td>%s</td></tr>\n",
			it.N, outcome(it), it.N, started, esc(iterationTook(it)), esc(ending), checks, tokens, esc(cost), esc(so), changes, files, castCell)
	}
	p.s("</tbody>\n</table>\n")
	if len(p.files) == 0 {
		p.s("<p class=\"note\">Files per iteration are listed when the loop committed its iterations (<code>run --commit</code>) and its branch is still there.</p>\n")
	} else {
		p.s("<p class=\"note\"><i>changes</i> is what the iteration changed in the work tree; <i>committed</i>, the files of its commit, which also holds what earlier iterations left uncommitted (their checks failed).</p>\n")
	}
	p.s("</section>\n")
}
