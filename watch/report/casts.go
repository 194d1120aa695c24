package report

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/cast"
)

// A cast as the page embeds it: asciicast v2 text made HTML-safe (JSON's
// own escapes for <, > and &, so no "</script" can appear), trimmed when
// the run's casts would make the page too big.
type embedded struct {
	Iteration int
	Text      string        // the asciicast, header and events, one JSON value a line
	Length    time.Duration // what the embedded part plays
	Whole     time.Duration // what the iteration's cast recorded
	Trimmed   bool          // the cast's start was cut
	Bytes     int           // len(Text)
	WholeSize int64         // the cast file's size
}

// trim is how much of each cast the page keeps.
type trim struct {
	Tail  time.Duration // keep at most the last Tail of a cast; 0: by size only
	Bytes int           // keep at most about this many bytes of a cast
}

func (t trim) withTail(d time.Duration) trim { t.Tail = d; return t }

// embedCast reads the cast at path and keeps what t allows of its end.
func embedCast(path string, iteration int, t trim) (embedded, error) {
	e := embedded{Iteration: iteration}
	f, err := os.Open(path)
	if err != nil {
		return e, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil {
		e.WholeSize = info.Size()
	}
	h, events, err := cast.Read(f)
	if err != nil {
		return e, fmt.Errorf("read %s: %w", path, err)
	}
	lines := make([][]byte, len(events))
	size := 0
	for i, ev := range events {
		lines[i] = eventLine(ev, 0)
		size += len(lines[i]) + 1
	}
	if n := len(events); n > 0 {
		e.Whole = events[n-1].Time
	}
	first := 0
	if t.Tail > 0 && e.Whole > t.Tail {
		for first < len(events) && events[first].Time < e.Whole-t.Tail {
			size -= len(lines[first]) + 1
			first++
		}
	}
	for t.Bytes > 0 && size > t.Bytes && first < len(events)-1 {
		size -= len(lines[first]) + 1
		first++
	}
	e.Trimmed = first > 0
	var offset time.Duration
	if e.Trimmed {
		offset = events[first].Time
		for i := first; i < len(events); i++ {
			lines[i] = eventLine(events[i], offset)
		}
	}
	e.Length = e.Whole - offset
	header := map[string]any{"version": cast.Version, "width": h.Width, "height": h.Height}
	if h.Timestamp != 0 {
		header["timestamp"] = h.Timestamp + int64(offset/time.Second)
	}
	if h.Title != "" {
		header["title"] = h.Title
	}
	head, _ := json.Marshal(header)
	buf := append(head, '\n')
	for _, l := range lines[first:] {
		buf = append(append(buf, l...), '\n')
	}
	e.Text = string(buf)
	e.Bytes = len(buf)
	return e, nil
}

// eventLine is one event as a JSON line, its time made relative to offset.
func eventLine(ev cast.Event, offset time.Duration) []byte {
	data, _ := json.Marshal(ev.Data) // escapes <, >, & and the line separators
	secs := strconv.FormatFloat((ev.Time - offset).Seconds(), 'f', 6, 64)
	code, _ := json.Marshal(ev.Code)
	return []byte("[" + secs + ", " + string(code) + ", " + string(data) + "]")
}

// castSection holds every embedded cast, each opened into a player on demand.
func (p *page) castSection() {
	p.s("<section id=\"casts\">\n<h2>Casts</h2>\n")
	if len(p.casts) == 0 {
		p.s("<p class=\"note\">No casts were recorded (run with <code>--no-cast</code>, or casts removed by <code>--cast-limit</code>).</p>\n</section>\n")
		return
	}
	trimmed := 0
	for _, c := range p.casts {
		if c.Trimmed {
			trimmed++
		}
	}
	p.s("<noscript><p class=\"note\">Playing a cast needs JavaScript; in a terminal, <code>ralph-watch replay " + esc(p.run.Name) + " N</code> plays iteration N.</p></noscript>\n")
	if trimmed > 0 {
		how := fmt.Sprintf("to their last %s and about %d KB each", took(DefaultTail), p.trim.Bytes>>10)
		if p.tail > 0 {
			how = fmt.Sprintf("to their last %s (and about %d KB each)", took(p.tail), p.trim.Bytes>>10)
		}
		p.f("<p class=\"note trimmed\">To keep this page small, %d of %d casts are trimmed %s: each plays its iteration's end. The whole casts are in the loop's state folder (<code>ralph-watch replay %s N</code>).</p>\n",
			trimmed, len(p.casts), how, esc(p.run.Name))
	}
	for _, c := range p.casts {
		note := took(c.Whole)
		if c.Trimmed {
			note = fmt.Sprintf("the last %s of %s, %d KB of %d KB", took(c.Length), took(c.Whole), c.Bytes>>10, c.WholeSize>>10)
		}
		p.f("<details class=\"cast\" id=\"cast-%d\" data-n=\"%d\"><summary>Iteration %d <span class=\"note\">(%s)</span></summary>\n", c.Iteration, c.Iteration, c.Iteration, esc(note))
		p.f("<div class=\"player\" id=\"player-%d\" data-end=\"%.1f\"></div>\n", c.Iteration, c.Length.Seconds())
		p.f("<script type=\"application/x-asciicast\" id=\"cast-data-%d\">\n%s</script>\n</details>\n", c.Iteration, c.Text)
	}
	p.s("</section>\n")
}
