package control

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ralph-tmux/ralph.tmux/watch/finish"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// What happened after the loop, as status and list show it: whether its
// work is landed (finish) and whether it has a report.

// Landed is whether the loop's work is landed: "merged", "rebased", "pr",
// "patch", "no", or "" for a loop without a branch of its own; and in words.
func (l *Loop) Landed() (word, detail string) {
	if l.Store == nil {
		return "", ""
	}
	return finish.Read(l.Store, l.State)
}

// ReportRecord is where report last wrote a loop's page.
type ReportRecord struct {
	Path       string `json:"path"`
	At         string `json:"at"`
	Iterations int    `json:"iterations"`
	Bytes      int64  `json:"bytes"`
}

// Report is the loop's report, if one was made and is still there.
func (l *Loop) Report() (ReportRecord, bool) {
	if l.Store == nil {
		return ReportRecord{}, false
	}
	var r ReportRecord
	data, err := os.ReadFile(l.Store.Path(state.ReportRecord))
	if err != nil || json.Unmarshal(data, &r) != nil || r.Path == "" {
		return ReportRecord{}, false
	}
	if _, err := os.Stat(r.Path); err != nil {
		return ReportRecord{}, false
	}
	return r, true
}

// writeAfter shows the loop's landing and report in status.
func writeAfter(w io.Writer, l *Loop) {
	if word, detail := l.Landed(); word != "" {
		fmt.Fprintf(w, "Landed: %s (%s)\n", word, detail)
	}
	if r, ok := l.Report(); ok {
		fmt.Fprintf(w, "Report: %s (%s, %d iterations)\n", r.Path, r.At, r.Iterations)
	}
}

// afterJSON adds the landing and the report to status --json's object.
func afterJSON(m map[string]any, l *Loop) {
	word, detail := l.Landed()
	m["landed"], m["landed_detail"] = word, detail
	m["report"] = nil
	if r, ok := l.Report(); ok {
		m["report"] = r.Path
	}
}

// afterColumns are list's LANDED and REPORT cells.
func afterColumns(l *Loop) (landed, report string) {
	landed, report = "-", "-"
	if word, _ := l.Landed(); word != "" {
		landed = word
	}
	if _, ok := l.Report(); ok {
		report = "yes"
	}
	return landed, report
}
