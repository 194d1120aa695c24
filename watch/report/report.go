// Package report writes one self-contained HTML page of a loop's run: the
// iterations on a timeline drawn as inline SVG (how long each took, how it
// ended, its checks, tokens and cost, the cost so far against the budget),
// a table of them with the files each changed, every iteration's cast
// playable in place with asciinema's web player (embedded: the page fetches
// nothing), and the log. The timeline and table read without JavaScript.
package report

import (
	_ "embed"
	"fmt"
	"html"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// The asciinema web player, copied from its npm package by `make player`
// (third_party: upstream's files as they are, not ours to edit).
var (
	//go:embed third_party/asciinema-player/asciinema-player.min.js
	playerJS string
	//go:embed third_party/asciinema-player/asciinema-player.css
	playerCSS string
	//go:embed third_party/asciinema-player/VERSION
	playerVersion string
)

// Options say how big the page may grow.
type Options struct {
	// CastBudget is about how many bytes all casts together may take;
	// a cast over its share is cut to its end. 0: DefaultCastBudget.
	CastBudget int
	// CastTail, when set, keeps only each cast's last CastTail. 0: a cast
	// is cut only when over its share, to its last DefaultTail, then to
	// its share.
	CastTail time.Duration
	Now      func() time.Time
}

// The default size of a page's casts.
const (
	DefaultCastBudget = 3 << 20
	DefaultTail       = 2 * time.Minute
	minCastShare      = 12 << 10
)

// Page is a written report.
type Page struct {
	Iterations int
	Casts      int // casts embedded
	Trimmed    int // casts cut to their end
	Bytes      int
}

// Write writes the page of run to w.
func Write(w io.Writer, run *history.Run, opts Options) (Page, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CastBudget <= 0 {
		opts.CastBudget = DefaultCastBudget
	}
	var casts []embedded
	ncasts := 0
	for _, it := range run.Iterations {
		if it.Cast != "" {
			ncasts++
		}
	}
	t := trim{Tail: opts.CastTail, Bytes: max(minCastShare, opts.CastBudget/max(ncasts, 1))}
	for _, it := range run.Iterations {
		if it.Cast == "" {
			continue
		}
		first := trim{Tail: opts.CastTail}
		if info, err := os.Stat(it.Cast); err == nil && opts.CastTail == 0 && info.Size() > int64(t.Bytes)*2 {
			first = t.withTail(DefaultTail) // far over its share: no need to read it whole first
		}
		e, err := embedCast(it.Cast, it.N, first)
		if err == nil && opts.CastTail == 0 && e.Bytes > t.Bytes && first.Tail == 0 {
			// Over its share: its last minutes, then its share of them.
			e, err = embedCast(it.Cast, it.N, t.withTail(DefaultTail))
		} else if err == nil && opts.CastTail > 0 && e.Bytes > t.Bytes {
			e, err = embedCast(it.Cast, it.N, t.withTail(opts.CastTail))
		}
		if err != nil {
			continue // a cast that cannot be read is left out: the table says none
		}
		casts = append(casts, e)
	}
	p := &page{run: run, casts: casts, files: changedFiles(run), now: opts.Now(), trim: t, tail: opts.CastTail}
	text := p.render()
	n, err := io.WriteString(w, text)
	out := Page{Iterations: len(run.Iterations), Casts: len(casts), Bytes: n}
	for _, c := range casts {
		if c.Trimmed {
			out.Trimmed++
		}
	}
	return out, err
}

type page struct {
	run   *history.Run
	casts []embedded
	files map[int][]string
	now   time.Time
	trim  trim
	tail  time.Duration
	b     strings.Builder
}

func (p *page) f(format string, a ...any) { fmt.Fprintf(&p.b, format, a...) }
func (p *page) s(text string)             { p.b.WriteString(text) }

var esc = html.EscapeString

var cssComment = regexp.MustCompile(`(?s)/\*.*?\*/`)

func (p *page) render() string {
	run := p.run
	p.s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p.s("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	// Nothing may be fetched: no network at view time, whatever the page holds.
	p.s("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'unsafe-inline'; img-src data:; font-src data:; worker-src blob:; connect-src data: blob:\">\n")
	p.f("<title>ralph loop %s: report</title>\n", esc(run.Name))
	p.s("<style>\n" + pageCSS + "\n" + cssComment.ReplaceAllString(playerCSS, "") + "\n</style>\n</head>\n<body>\n")
	p.header()
	p.timeline()
	p.goalSection()
	p.table()
	p.tasksSection()
	p.followSection()
	p.castSection()
	p.logSection()
	p.f("<footer>Made by ralph-watch report at %s. Casts play with the asciinema web player (%s), embedded in this page.</footer>\n",
		esc(p.now.Format(time.RFC3339)), esc(playerName()))
	if len(p.casts) > 0 {
		p.s("<script>\n" + strings.ReplaceAll(playerJS, "</script", "<\\/script") + "\n</script>\n")
		p.s("<script>\n" + pageJS + "\n</script>\n")
	}
	p.s("</body>\n</html>\n")
	return p.b.String()
}

// playerName is the embedded player's name and version.
func playerName() string {
	if f := strings.Fields(playerVersion); len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return "asciinema-player"
}

// header is the run in one paragraph.
func (p *page) header() {
	run, st := p.run, p.run.State
	p.f("<header>\n<h1>ralph loop <code>%s</code></h1>\n<dl class=\"facts\">\n", esc(run.Name))
	fact := func(k, v string) { p.f("<dt>%s</dt><dd>%s</dd>\n", esc(k), v) }
	ended := run.Ended()
	if ended == "" {
		ended = "not ended (" + esc(st.Status) + ")"
	}
	fact("iterations", fmt.Sprintf("%d", len(run.Iterations)))
	fact("ended", esc(ended))
	if st.Agent != "" {
		fact("agent", esc(st.Agent))
	}
	if len(st.Command) > 0 {
		fact("command", "<code>"+esc(strings.Join(st.Command, " "))+"</code>")
	}
	if st.Worktree != "" {
		fact("branch", "<code>"+esc(st.WorktreeBranch)+"</code> in <code>"+esc(st.Worktree)+"</code>")
	} else if st.Dir != "" {
		fact("folder", "<code>"+esc(st.Dir)+"</code>")
	}
	if first, last := span(run); !first.IsZero() {
		fact("ran", esc(first.Format("2006-01-02 15:04"))+" to "+esc(last.Format("2006-01-02 15:04"))+" ("+esc(took(last.Sub(first)))+")")
	}
	fact("spent", esc(run.Spent()))
	if b := budgetText(run); b != "" {
		fact("budget", esc(b))
	}
	passed, failed := 0, 0
	for _, it := range run.Iterations {
		if pa, all := it.ChecksPassed(); all > 0 {
			if pa == all {
				passed++
			} else {
				failed++
			}
		}
	}
	if passed+failed > 0 {
		fact("checks", checksText(passed, failed))
	}
	if n := len(st.Verdicts); n > 0 {
		last := st.Verdicts[n-1]
		fact("judge", fmt.Sprintf("<a href=\"#goal\">%s</a> after iteration %d (%d %s)", esc(verdictWords(last)), last.Iteration, n, map[bool]string{true: "verdict", false: "verdicts"}[n == 1]))
	}
	p.s("</dl>\n</header>\n")
}

// checksText says how the checks went over the iterations they ran after.
func checksText(passed, failed int) string {
	iterations := func(n int) string {
		if n == 1 {
			return "1 iteration"
		}
		return fmt.Sprintf("%d iterations", n)
	}
	switch {
	case failed == 0:
		return "all passed after each of " + iterations(passed)
	case passed == 0:
		return "a check failed after each of " + iterations(failed)
	}
	return fmt.Sprintf("all passed after %s, a check failed after %d", iterations(passed), failed)
}

// span is when the run's first iteration started and its last ended.
func span(run *history.Run) (first, last time.Time) {
	for _, it := range run.Iterations {
		if !it.Started.IsZero() && (first.IsZero() || it.Started.Before(first)) {
			first = it.Started
		}
		if it.Ended.After(last) {
			last = it.Ended
		}
	}
	if last.Before(first) {
		last = first
	}
	return first, last
}

func budgetText(run *history.Run) string {
	var parts []string
	if run.State.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", run.State.MaxTokens))
	}
	if run.State.MaxCostUSD > 0 {
		parts = append(parts, receipt.Dollars(run.State.MaxCostUSD))
	}
	return strings.Join(parts, ", ")
}

func took(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Minute:
		return d.Round(time.Second).String()
	default:
		return d.Round(time.Second).String()
	}
}

// followSection is what ralph-watch follow did after the pull request:
// the last look and each round of fixes; nothing when it never followed.
func (p *page) followSection() {
	if p.run.Store == nil {
		return
	}
	f, _ := p.run.Store.Follow()
	if f == nil {
		return
	}
	p.s("<section id=\"follow\">\n<h2>Pull request</h2>\n")
	p.f("<p><a href=\"%s\">#%d</a> %s: checks %s; reviews %s", esc(f.URL), f.PR, esc(f.Shown), esc(dash(f.Checks)), esc(dash(f.Reviews)))
	if f.Ended != "" {
		p.f("; following ended %s", esc(f.Ended))
	}
	p.s(".</p>\n")
	if len(f.Rounds) == 0 {
		p.s("<p class=\"note\">No round of fixes.</p>\n</section>\n")
		return
	}
	p.s("<table>\n<thead><tr><th>round</th><th>iteration</th><th>what it fixed</th><th>state</th><th>pushed</th></tr></thead>\n<tbody>\n")
	for _, r := range f.Rounds {
		p.f("<tr><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td><code>%s</code></td></tr>\n", r.N, r.Iteration+1, esc(strings.Join(r.Reasons, ", ")), esc(r.State), esc(dash(short(r.Pushed))))
	}
	p.s("</tbody>\n</table>\n</section>\n")
}

// logSection is iterations.log, its end when it is long.
func (p *page) logSection() {
	const maxLog = 512 << 10
	log := p.run.Log
	p.s("<section id=\"log\">\n<h2>Log</h2>\n")
	if len(log) > maxLog {
		cut := len(log) - maxLog
		if i := strings.IndexByte(log[cut:], '\n'); i >= 0 {
			cut += i + 1
		}
		p.f("<p class=\"note\">The log's last %d KB of %d KB; all of it is <code>iterations.log</code> in the loop's state folder.</p>\n", (len(log)-cut)>>10, len(p.run.Log)>>10)
		log = log[cut:]
	}
	p.s("<pre>" + esc(log) + "</pre>\n</section>\n")
}

const pageCSS = `body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222;background:#fff}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
code{font-family:ui-monospace,monospace;font-size:.95em}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1em;margin:.5em 0}dl.facts dt{color:#666}dl.facts dd{margin:0}
table{border-collapse:collapse;width:100%;font-size:.92em}th,td{border-bottom:1px solid #eee;padding:.2em .45em;text-align:left;vertical-align:top}
th{background:#f6f6f6;position:sticky;top:0}td.files{max-width:28em;word-break:break-all}
tr.fail td:first-child{border-left:4px solid #c0392b}tr.done td:first-child{border-left:4px solid #2471a3}
tr.timeout td:first-child{border-left:4px solid #d68910}tr.ok td:first-child{border-left:4px solid #7dcea0}
span.pass{color:#1e8449}span.fail{color:#c0392b;font-weight:bold}
.note{color:#666;font-size:.92em}
svg.timeline{width:100%;height:auto;border:1px solid #eee;background:#fcfcfc}
svg .ok{fill:#7dcea0}svg .done{fill:#2471a3}svg .fail{fill:#c0392b}svg .timeout{fill:#d68910}svg .unknown{fill:#bbb}
svg .pass{fill:#1e8449}svg .cfail{fill:#c0392b}svg .none{fill:#ddd}svg .met{fill:#2471a3}svg .notmet{fill:#e59866}
blockquote.goal{margin:.5em 0;padding:.4em .8em;border-left:4px solid #2471a3;background:#f6f9fc;white-space:pre-wrap}
tr.met td:first-child{border-left:4px solid #2471a3}tr.notmet td:first-child{border-left:4px solid #e59866}td ul{margin:0;padding-left:1.1em}
svg .cost{fill:none;stroke:#6c3483;stroke-width:2}svg .budget{stroke:#c0392b;stroke-dasharray:6 4;stroke-width:1.5}
svg text{font:11px system-ui,sans-serif;fill:#555}svg .axis{stroke:#ccc}
.legend span{display:inline-block;margin-right:1em}.legend i{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:-.1em}
details.cast{margin:.4em 0;border:1px solid #eee;padding:.3em .6em}details.cast summary{cursor:pointer}
.player{margin:.5em 0;max-width:100%}
pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:40em;font-size:.85em}
footer{margin-top:2em;color:#888;font-size:.85em}`

// pageJS makes a player the first time a cast is opened: the page stays
// light however many casts it holds. #cast-N in the address opens that one.
const pageJS = `(function(){
  function play(d){
    var n=d.getAttribute('data-n'), el=document.getElementById('player-'+n);
    if(!el||el.getAttribute('data-made'))return;
    el.setAttribute('data-made','1');
    var text=document.getElementById('cast-data-'+n).textContent.replace(/^\s+/,'');
    // The poster is the iteration's last screen: what it ended on.
    AsciinemaPlayer.create({data:text},el,{fit:'width',idleTimeLimit:2,preload:true,poster:'npt:'+el.getAttribute('data-end')});
  }
  var all=document.querySelectorAll('details.cast');
  for(var i=0;i<all.length;i++){(function(d){d.addEventListener('toggle',function(){if(d.open)play(d);});})(all[i]);}
  function fromHash(){
    var m=/^#cast-(\d+)$/.exec(location.hash);
    if(!m)return;
    var d=document.getElementById('cast-'+m[1]);
    if(d){d.open=true;play(d);d.scrollIntoView();}
  }
  window.addEventListener('hashchange',fromHash);
  fromHash();
})();`
