package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/finish"
	"github.com/ralph-tmux/ralph.tmux/watch/report"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// reportFan is report FAN: each of its loops' own page written in the
// loop's state folder, as report NAME writes it, then the fan's page, which
// links to them (report.html in the fan's folder unless out says).
func reportFan(e env, f aFan, out string, tail time.Duration, open bool) error {
	path := out
	if path == "" {
		path = filepath.Join(f.dir, state.ReportFile)
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return control.Errorf(contract.ExitUsage, "-o %s: %v", out, err)
	}
	start := time.Now()
	works := f.Works(f.root)
	reports := map[string]string{}
	for _, w := range works {
		for _, run := range w.Runs {
			page := run.Store.Path(state.ReportFile)
			if _, err := writeReport(e, run.Name, page, tail); err != nil {
				fmt.Fprintf(e.Stderr, "ralph-watch: warning: %v\n", err)
				continue
			}
			if rel, err := filepath.Rel(filepath.Dir(path), page); err == nil {
				page = rel
			}
			reports[run.Name] = page
		}
	}
	events, err := fan.Events(f.dir)
	if err != nil {
		fmt.Fprintf(e.Stderr, "ralph-watch: warning: read the queue's history: %v\n", err)
	}
	var buf bytes.Buffer
	n, err := report.WriteFan(&buf, report.Fan{State: f.State, Status: f.status(), Works: works, Events: events, Reports: reports, Now: time.Now()})
	if err != nil {
		return control.Errorf(contract.ExitFailed, "report %s: %v", f.Name, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return control.Errorf(contract.ExitFailed, "write report: %v", err)
	}
	rec := control.ReportRecord{Path: path, At: state.Stamp(time.Now()), Bytes: int64(n)}
	if data, err := json.MarshalIndent(rec, "", "  "); err == nil {
		_ = os.WriteFile(filepath.Join(f.dir, state.ReportRecord), append(data, '\n'), 0o600)
	}
	fmt.Fprintf(e.Stdout, "[ralph] %s: report of the fan, %d tasks and %d loops (each loop's own page in its state folder, linked), %s in %s: %s\n",
		f.Name, len(works), len(reports), size(n), time.Since(start).Round(time.Millisecond), path)
	if open {
		return openFile(path)
	}
	return nil
}

// writeFanAfter shows in status FAN its pull request and its page, as
// status NAME shows a loop's.
func writeFanAfter(w io.Writer, f aFan) {
	if word, detail := finish.Read(&state.Store{Dir: f.dir}, &state.State{}); word != "" {
		fmt.Fprintf(w, "Landed: %s (%s)\n", word, detail)
	}
	var r control.ReportRecord
	if data, err := os.ReadFile(filepath.Join(f.dir, state.ReportRecord)); err == nil && json.Unmarshal(data, &r) == nil && r.Path != "" {
		if _, err := os.Stat(r.Path); err == nil {
			fmt.Fprintf(w, "Report: %s (%s)\n", r.Path, r.At)
		}
	}
}

// status is the fan in a word: running, ended (no task left to start) or
// stopped (started again, it goes on).
func (f aFan) status() string {
	switch {
	case f.running():
		return "running"
	case f.Ended:
		return "ended"
	}
	return "stopped"
}
