package main

import (
	"fmt"
	"io"
	"strings"
)

// Report is one run of the benchmark.
type Report struct {
	Machine string   `json:"machine"`
	Idle    string   `json:"idle_window"`
	Trials  int      `json:"trials"`
	Loops   int      `json:"loops"`
	Seconds int      `json:"seconds"`
	Figures []Figure `json:"figures"`
}

// Figure is one measured quantity for both sides, and its target.
type Figure struct {
	Key       string  `json:"key"`
	Name      string  `json:"name"`
	Unit      string  `json:"unit"`
	Watch     Summary `json:"ralph_watch"`
	Reference Summary `json:"reference"`
	Ratio     float64 `json:"ratio"` // ralph-watch median / reference median
	Target    string  `json:"target,omitempty"`
	Pass      *bool   `json:"pass,omitempty"`
}

// figure describes how a figure is shown and judged.
type figure struct {
	key, name, unit, target string
	pass                    func(w, r Summary) bool
}

var figureList = []figure{
	{"idle_cpu_pane", "idle CPU per pane (watcher+server)", "ms/min", "<= 1/10 of reference",
		func(w, r Summary) bool { return w.Median <= r.Median/10 }},
	{"idle_cpu_watcher", "  of which the watcher (reference: the seed's monitor)", "ms/min", "<= 1/20 of reference",
		func(w, r Summary) bool { return w.Median <= r.Median/20 }},
	{"idle_cpu_server", "  of which the tmux server", "ms/min", "", nil},
	{"done_latency_ms", "done latency", "ms", "p50 <= 50, p90 <= 250",
		func(w, r Summary) bool { return w.Median <= 50 && w.P90 <= 250 }},
	{"turnover_ms", "turn-over (restart delay 0)", "ms", "p50 <= 200",
		func(w, r Summary) bool { return w.Median <= 200 }},
	{"delivery_ms", "100 KB delivery, first to last byte", "ms", "p50 <= 50",
		func(w, r Summary) bool { return w.Median <= 50 }},
	{"delivery_from_ready_ms", "100 KB delivery, agent ready to last byte", "ms", "", nil},
	{"peak_rss_mb", "peak RSS, one watcher", "MB", "<= 15",
		func(w, r Summary) bool { return w.Max <= 15 }},
	{"many_cpu_core", "idle loops together: CPU (watchers+server)", "% core", "<= 1",
		func(w, r Summary) bool { return w.Median <= 1 }},
	{"many_rss_mb", "idle loops together: RSS of the watchers", "MB", "", nil},
}

// figures pairs both sides' samples and judges each figure.
func figures(watch, ref map[string][]float64) []Figure {
	var fs []Figure
	for _, f := range figureList {
		w, ok := watch[f.key]
		if !ok {
			continue
		}
		fig := Figure{Key: f.key, Name: f.name, Unit: f.unit, Watch: Summarize(w), Reference: Summarize(ref[f.key]), Target: f.target}
		if fig.Reference.Median > 0 {
			fig.Ratio = fig.Watch.Median / fig.Reference.Median
		}
		if f.pass != nil {
			pass := f.pass(fig.Watch, fig.Reference)
			fig.Pass = &pass
		}
		fs = append(fs, fig)
	}
	return fs
}

// Print writes the report as a Markdown table.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "\nMachine: %s\n", r.Machine)
	fmt.Fprintf(w, "Idle windows %s; %d done trials and turn-overs; %d loops; %d s in all.\n\n", r.Idle, r.Trials, r.Loops, r.Seconds)
	fmt.Fprintln(w, "| figure | unit | ralph-watch p50 / p90 / max | reference p50 / p90 / max | ratio | target | |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, f := range r.Figures {
		result := ""
		if f.Pass != nil {
			result = "MISS"
			if *f.Pass {
				result = "PASS"
			}
		}
		ratio := "-"
		if f.Ratio > 0 || f.Reference.Median > 0 {
			ratio = fmt.Sprintf("%.3g", f.Ratio)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", strings.TrimSpace(f.Name), f.Unit,
			triple(f.Watch), triple(f.Reference), ratio, f.Target, result)
	}
	fmt.Fprintln(w)
}

func triple(s Summary) string {
	if s.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%s / %s / %s", num(s.Median), num(s.P90), num(s.Max))
}

func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
