// Command bench measures ralph-watch against the reference poller (the
// seed's algorithm, bench/refpoll), side by side in the same run: each
// figure runs both at once, each on its own private tmux server, with the
// scripted agent in bench/agent. It prints a table and writes it as JSON.
//
//	go run ./bench [-json FILE] [-idle 60s] [-trials 20] [-loops 50]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	donePattern = `RALPH_DONE_[0-9]+`
	deliverSize = 100 << 10
)

// options are the harness's knobs.
type options struct {
	jsonPath       string
	idle           time.Duration // each idle window
	samples        int           // idle windows are cut into this many samples
	trials, loops  int
	deliveryTrials int
	keep           bool
	only           string
}

func main() {
	var o options
	flag.StringVar(&o.jsonPath, "json", "bin/bench.json", "write the results here as JSON")
	flag.DurationVar(&o.idle, "idle", 60*time.Second, "length of each idle window")
	flag.IntVar(&o.samples, "samples", 4, "samples per idle window")
	flag.IntVar(&o.trials, "trials", 20, "done-latency trials and turn-overs")
	flag.IntVar(&o.loops, "loops", 50, "loops on one server for the many-loops figures")
	flag.IntVar(&o.deliveryTrials, "delivery-trials", 10, "100 KB delivery trials")
	flag.BoolVar(&o.keep, "keep", false, "keep the work folder (logs, stamps)")
	flag.StringVar(&o.only, "only", "", "run only the measurements whose name contains this")
	flag.Parse()
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench: error:", err)
		os.Exit(1)
	}
}

func run(o options, out io.Writer) error {
	work, err := os.MkdirTemp("", "ralph-bench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(out, "work folder:", work)
	} else {
		defer func() { _ = os.RemoveAll(work) }()
	}
	bins, err := build(work)
	if err != nil {
		return err
	}
	subjects := []*subject{
		{name: "ralph-watch", bins: bins, dir: filepath.Join(work, "ralph-watch")},
		{name: "reference", bins: bins, dir: filepath.Join(work, "reference")},
	}
	for _, s := range subjects {
		if s.srv, err = startServer(s.dir); err != nil {
			return err
		}
		defer s.srv.kill()
	}
	// An interrupt still kills the two private servers, and only them.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		for _, s := range subjects {
			s.srv.kill()
		}
		os.Exit(130)
	}()

	started := time.Now()
	r := &Report{Machine: machine(), Idle: o.idle.String(), Trials: o.trials, Loops: o.loops}
	steps := []struct {
		what string
		fn   func(*subject) (map[string][]float64, error)
	}{
		{"idle, one pane", func(s *subject) (map[string][]float64, error) { return s.idle(o, 1) }},
		{"done latency", func(s *subject) (map[string][]float64, error) { return s.doneLatency(o.trials) }},
		{"turn-over", func(s *subject) (map[string][]float64, error) { return s.turnOver(o.trials) }},
		{"delivery", func(s *subject) (map[string][]float64, error) { return s.delivery(o.deliveryTrials) }},
		{fmt.Sprintf("idle, %d loops", o.loops), func(s *subject) (map[string][]float64, error) { return s.idle(o, o.loops) }},
	}
	samples := map[string]map[string][]float64{} // subject -> figure -> samples
	for _, s := range subjects {
		samples[s.name] = map[string][]float64{}
	}
	for _, step := range steps {
		if !strings.Contains(step.what, o.only) {
			continue
		}
		fmt.Fprintf(out, "measuring %s ...\n", step.what)
		var wg sync.WaitGroup
		errs := make([]error, len(subjects))
		results := make([]map[string][]float64, len(subjects))
		for i, s := range subjects {
			wg.Add(1)
			go func(i int, s *subject) {
				defer wg.Done()
				results[i], errs[i] = step.fn(s)
			}(i, s)
		}
		wg.Wait()
		for i, s := range subjects {
			if errs[i] != nil {
				return fmt.Errorf("%s, %s: %w", step.what, s.name, errs[i])
			}
			for k, v := range results[i] {
				samples[s.name][k] = v
			}
		}
	}
	r.Seconds = int(time.Since(started).Seconds())
	r.Figures = figures(samples["ralph-watch"], samples["reference"])
	r.Print(out)
	if o.jsonPath != "" {
		data, _ := json.MarshalIndent(r, "", "  ")
		if err := os.MkdirAll(filepath.Dir(o.jsonPath), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(o.jsonPath, append(data, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(out, "results written to", o.jsonPath)
	}
	return nil
}

func machine() string {
	m := fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				m += ", " + strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	if out, err := exec.Command("tmux", "-V").Output(); err == nil {
		m += ", " + strings.TrimSpace(string(out))
	}
	return m + ", " + runtime.Version()
}
