package report

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
)

// Fan is what the page of a fan shows: its record, what each task took,
// the queue's history, and where each loop's own page is.
type Fan struct {
	State   *fan.State
	Status  string // running, stopped or ended
	Works   []fan.Work
	Events  []fan.Event
	Reports map[string]string // loop name: its page, as a link from the fan's
	Now     time.Time
}

// WriteFan writes the page of a fan to w: one row per task (the loops that
// worked it, iterations, attempts, landing tries, the commit that landed it
// or why it waits for review, cost), one per loop linking to its own page,
// and the queue's history. It fetches nothing and needs no script.
func WriteFan(w io.Writer, f Fan) (int, error) {
	p := &page{now: f.Now}
	s := f.State
	p.s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p.s("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p.s("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
	p.f("<title>ralph fan %s: report</title>\n", esc(s.Name))
	p.s("<style>\n" + pageCSS + "\ntr.task-landed td:first-child{border-left:4px solid #7dcea0}tr.task-needs-review td:first-child,tr.task-skipped td:first-child{border-left:4px solid #c0392b}\n</style>\n</head>\n<body>\n")
	fanHeader(p, f)
	fanTasks(p, f)
	fanLoops(p, f)
	fanQueue(p, f)
	p.f("<footer>Made by ralph-watch report at %s. Each loop's own page (its iterations, casts and log) is linked from its row.</footer>\n",
		esc(f.Now.Format(time.RFC3339)))
	p.s("</body>\n</html>\n")
	return io.WriteString(w, p.b.String())
}

func fanHeader(p *page, f Fan) {
	s := f.State
	total, landed, review, working := s.Counts()
	skipped := 0
	loops := 0
	for _, w := range f.Works {
		if w.State == fan.Skipped {
			skipped++
		}
		loops += len(w.Runs)
	}
	p.f("<header>\n<h1>ralph fan <code>%s</code></h1>\n<dl class=\"facts\">\n", esc(s.Name))
	fact := func(k, v string) { p.f("<dt>%s</dt><dd>%s</dd>\n", esc(k), v) }
	fact("status", esc(f.Status))
	fact("plan", "<code>"+esc(s.Plan)+"</code> in <code>"+esc(s.Repo)+"</code>")
	fact("branch", "<code>"+esc(s.Into)+"</code> from <code>"+esc(short(s.Base))+"</code>")
	fact("tasks", esc(fmt.Sprintf("%d of %d landed, %d waiting for review, %d skipped, %d working, %d queued", landed, total, review, skipped, working, len(s.Queue))))
	fact("loops", esc(fmt.Sprintf("%d started, at most %d at once", loops, s.Max)))
	fact("spent", esc(fan.Spent(f.Works).Words()))
	p.s("</dl>\n</header>\n")
}

// fanTasks is one row per task of the plan.
func fanTasks(p *page, f Fan) {
	p.s("<section id=\"tasks\">\n<h2>Tasks</h2>\n<table>\n<thead><tr><th>task</th><th>title</th><th>verdict</th><th>loop's verdict</th><th>loops</th>" +
		"<th>iterations</th><th>attempts</th><th>merge tries</th><th>landed</th><th>cost</th></tr></thead>\n<tbody>\n")
	for _, w := range f.Works {
		var loops []string
		for _, r := range w.Runs {
			loops = append(loops, loopLink(r.Name, f.Reports))
		}
		landed := "-"
		switch {
		case w.Landed != "" && w.State == fan.Landed:
			landed = "<code>" + esc(short(w.Landed)) + "</code>"
		case w.Why != "":
			landed = "<details><summary>" + esc(firstLine(w.Why)) + "</summary><pre>" + esc(w.Why) + "</pre>"
			if w.Branch != "" {
				landed += "<p>its work: branch <code>" + esc(w.Branch) + "</code></p>"
			}
			landed += "</details>"
		}
		verdict := dash(w.Verdict)
		if w.Reason != "" {
			verdict = fmt.Sprintf("<span title=\"%s\">%s</span>", esc(w.Reason), esc(w.Verdict))
		} else {
			verdict = esc(verdict)
		}
		p.f("<tr id=\"task-%s\" class=\"task-%s\"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td></tr>\n",
			esc(w.ID), esc(w.State), esc(w.ID), esc(w.Title), esc(w.State), verdict, dash(strings.Join(loops, " ")),
			w.Iterations, w.Attempts, w.Merges, landed, esc(dash(w.Spent.Compact())))
	}
	p.s("</tbody>\n</table>\n")
	p.s("<p class=\"note\"><i>verdict</i> is the fan's: landed on its branch, waiting for review, skipped; <i>loop's verdict</i>, the last loop's on the task.</p>\n</section>\n")
}

// fanLoops is one row per loop the fan started, linking to its own page.
func fanLoops(p *page, f Fan) {
	p.s("<section id=\"loops\">\n<h2>Loops</h2>\n<table>\n<thead><tr><th>loop</th><th>task</th><th>iterations</th><th>ended</th><th>spent</th><th>report</th></tr></thead>\n<tbody>\n")
	for _, w := range f.Works {
		for _, r := range w.Runs {
			ended := r.Ended()
			if ended == "" {
				ended = "not ended (" + r.State.Status + ")"
			}
			page := "-"
			if link, ok := f.Reports[r.Name]; ok {
				page = fmt.Sprintf("<a href=\"%s\">%s</a>", esc(href(link)), esc(link))
			}
			p.f("<tr><td><code>%s</code></td><td><a href=\"#task-%s\">%s</a></td><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				esc(r.Name), esc(w.ID), esc(w.ID), len(r.Iterations), esc(ended), esc(r.Spent()), page)
		}
	}
	p.s("</tbody>\n</table>\n</section>\n")
}

// fanQueue is the merge queue's history, queue.jsonl.
func fanQueue(p *page, f Fan) {
	p.s("<section id=\"queue\">\n<h2>Merge queue</h2>\n")
	if len(f.Events) == 0 {
		p.s("<p class=\"note\">Nothing was offered to the queue yet.</p>\n</section>\n")
		return
	}
	p.s("<table>\n<thead><tr><th>at</th><th>task</th><th>event</th><th>commit</th><th>why</th></tr></thead>\n<tbody>\n")
	for _, e := range f.Events {
		why := "-"
		if e.Why != "" {
			why = "<details><summary>" + esc(firstLine(e.Why)) + "</summary><pre>" + esc(e.Why) + "</pre></details>"
		}
		p.f("<tr><td>%s</td><td><a href=\"#task-%s\">%s</a></td><td>%s</td><td><code>%s</code></td><td>%s</td></tr>\n",
			esc(e.At), esc(e.Task), esc(e.Task), esc(e.Event), esc(dash(short(e.Commit))), why)
	}
	p.s("</tbody>\n</table>\n</section>\n")
}

// loopLink is a loop's name, linked to its own page when it has one.
func loopLink(name string, reports map[string]string) string {
	if link, ok := reports[name]; ok {
		return fmt.Sprintf("<a href=\"%s\"><code>%s</code></a>", esc(href(link)), esc(name))
	}
	return "<code>" + esc(name) + "</code>"
}

// href is a file's path as a link: each segment escaped.
func href(path string) string { return (&url.URL{Path: filepath.ToSlash(path)}).String() }

func short(commit string) string { return commit[:min(len(commit), 10)] }

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
