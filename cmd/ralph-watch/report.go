package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/report"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func reportCommand(e env) *ffcli.Command {
	fs := newFlags("report")
	out := fs.String("o", "", "write the page to `FILE` (default report.html in the loop's state folder)")
	open := fs.Bool("open", false, "open the page once written (xdg-open, or open on macOS)")
	var tail time.Duration
	config.DurationVar(fs, &tail, "cast-tail", "keep only this much of the end of each cast (default: whole casts, the large ones cut to their last 2m)")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch report NAME [-o FILE] [--open] [--cast-tail D]",
		ShortHelp:  "write one self-contained HTML page of a loop's run",
		LongHelp: `
Write the run of a loop as one HTML file that needs no server and fetches
nothing (it works as a mail attachment): a timeline of the iterations (how
long each took, how it ended, its checks, tokens and cost, the cost so far
against the budget) drawn as SVG, a table of them with the files each
changed, each iteration's cast playable in place with asciinema's web
player (embedded in the page), and the log. The timeline and the table
read without JavaScript. Casts are cut to their last minutes when the run's
casts are large, and the page says so: a 200-iteration run stays within a
few MB. Written to report.html in the loop's state folder unless -o says.

A fan's name (ralph-watch fan) writes the fan's page: a row per task (its
verdict, the loops that worked it, their iterations and attempts, the
queue's landing tries, the commit that landed it or why it waits for
review, the cost) and per loop, linking each loop's own page, written as
above in its state folder. The fan's page is report.html in the fan's
folder (fans/NAME) unless -o says. A loop of the same name comes first.

Examples:
  ralph-watch report myproj-3 --open
  ralph-watch report myproj-3 -o night.html
  ralph-watch report myproj-3 -o night.html --cast-tail 1m
  ralph-watch report web --open        # the fan web`,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return control.Errorf(contract.ExitUsage, "report takes one loop name, got %d arguments", len(args))
			}
			if tail < 0 {
				return control.Errorf(contract.ExitUsage, "invalid --cast-tail %s: use 0 or more", tail)
			}
			if f, ok := fanArg(e, args); ok {
				return reportFan(e, f, *out, tail, *open)
			}
			l, err := loopArg(e, args, "report")
			if err != nil {
				return err
			}
			path := *out
			if path == "" {
				path = l.Store.Path(state.ReportFile)
			}
			if path, err = filepath.Abs(path); err != nil {
				return control.Errorf(contract.ExitUsage, "-o %s: %v", *out, err)
			}
			start := time.Now()
			page, err := writeReport(e, l.Name, path, tail)
			if err != nil {
				return err
			}
			trimmed := ""
			if page.Trimmed > 0 {
				trimmed = fmt.Sprintf(", %d trimmed to their end", page.Trimmed)
			}
			fmt.Fprintf(e.Stdout, "[ralph] %s: report of %d iterations (%d casts%s), %s in %s: %s\n", l.Name, page.Iterations, page.Casts, trimmed,
				size(page.Bytes), time.Since(start).Round(time.Millisecond), path)
			if *open {
				return openFile(path)
			}
			return nil
		},
	})
}

// writeReport writes the page of loop name to path and keeps where in its
// state folder (status shows it).
func writeReport(e env, name, path string, tail time.Duration) (report.Page, error) {
	run, err := history.Load(state.Root(e.Getenv), name)
	if err != nil {
		return report.Page{}, control.Errorf(contract.ExitFailed, "%v", err)
	}
	var buf bytes.Buffer
	page, err := report.Write(&buf, run, report.Options{CastTail: tail})
	if err != nil {
		return page, control.Errorf(contract.ExitFailed, "report %s: %v", name, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return page, control.Errorf(contract.ExitFailed, "write report: %v", err)
	}
	rec := control.ReportRecord{Path: path, At: state.Stamp(time.Now()), Iterations: page.Iterations, Bytes: int64(page.Bytes)}
	if data, err := json.MarshalIndent(rec, "", "  "); err == nil {
		_ = run.Store.WriteFile(state.ReportRecord, append(data, '\n'))
	}
	return page, nil
}

// size is a byte count for a person: 812 KB, 2.4 MB.
func size(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KB", (n+1023)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// openFile shows path with the desktop's program for it.
func openFile(path string) error {
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	cmd := exec.Command(opener, path)
	if err := cmd.Start(); err != nil {
		return control.Errorf(contract.ExitFailed, "open %s: %v (open it in a browser yourself)", path, err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
