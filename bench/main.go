// Command bench measures ralph-watch against the reference poller (the
// seed's algorithm, bench/refpoll), side by side in the same run: each
// figure runs both at once, each on its own private tmux server, with the
// scripted agent in bench/agent. It prints a table and writes it as JSON.
//
//	go run ./bench [-json FILE] [-idle 60s] [-trials 20] [-loops 50]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
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
	jsonPath        string
	idle            time.Duration // each idle window
	samples         int           // idle windows are cut into this many samples
	trials, loops   int
	deliveryTrials  int
	keep            bool
	only            string
	ralphExtraFlags []string
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
		defer os.RemoveAll(work)
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

// bins are the programs under test, built from this checkout.
type bins struct{ watch, ref, agent string }

func build(work string) (bins, error) {
	b := bins{
		watch: filepath.Join(work, "bin", "ralph-watch"),
		ref:   filepath.Join(work, "bin", "refpoll"),
		agent: filepath.Join(work, "bin", "agent"),
	}
	for pkg, out := range map[string]string{"./cmd/ralph-watch": b.watch, "./bench/refpoll": b.ref, "./bench/agent": b.agent} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		if msg, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
		}
	}
	return b, nil
}

// server is a private tmux server with its own HOME, TMUX_TMPDIR and state folder.
type server struct {
	socket string
	env    []string
	pid    int
	once   sync.Once
}

func startServer(dir string) (*server, error) {
	for _, d := range []string{"home", "tmp", "state", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	s := &server{socket: filepath.Join(dir, "tmp", "bench.sock")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX") && !strings.HasPrefix(kv, "RALPH_") && !strings.HasPrefix(kv, "HOME=") {
			s.env = append(s.env, kv)
		}
	}
	s.env = append(s.env, "HOME="+filepath.Join(dir, "home"), "TMUX_TMPDIR="+filepath.Join(dir, "tmp"),
		"RALPH_STATE_DIR="+filepath.Join(dir, "state"))
	if _, err := s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "40"); err != nil {
		return nil, err
	}
	out, err := s.tmux("display-message", "-p", "#{pid}")
	if err != nil {
		return nil, err
	}
	s.pid, _ = strconv.Atoi(strings.TrimSpace(out))
	return s, nil
}

func (s *server) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", s.socket}, args...)...)
	cmd.Env = s.env
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out.String(), nil
}

func (s *server) newPane() (string, error) {
	out, err := s.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:")
	return strings.TrimSpace(out), err
}

// kill kills this private server, and nothing else.
func (s *server) kill() { s.once.Do(func() { s.tmux("kill-server") }) }

// panePIDs are the processes the panes run: not the server's own helpers.
func (s *server) panePIDs() map[int]bool {
	out, _ := s.tmux("list-panes", "-a", "-F", "#{pane_pid}")
	pids := map[int]bool{}
	for _, f := range strings.Fields(out) {
		if p, err := strconv.Atoi(f); err == nil {
			pids[p] = true
		}
	}
	return pids
}

// subject is one side of the comparison: ralph-watch or the reference.
type subject struct {
	name string
	bins bins
	dir  string
	srv  *server
	n    int // loops started, for unique names and files
}

// loopSpec is one loop to start.
type loopSpec struct {
	pane, prompt, mode string
	done               bool
	maxIterations      int
	restartNow         bool
	agent              []string
}

// loop is a running loop program.
type loop struct {
	cmd   *exec.Cmd
	ended chan struct{} // closed once it exited, at endedAt
	at    time.Time
}

// start starts a loop of this subject's program in the foreground.
func (s *subject) start(l loopSpec) (*loop, error) {
	s.n++
	name := fmt.Sprintf("bench-%d", s.n)
	var args []string
	if s.name == "ralph-watch" {
		args = []string{s.bins.watch, "run", "-S", s.srv.socket, "-t", l.pane, "--name", name,
			"--prompt-file", l.prompt, "--prompt-mode", l.mode, "--inactivity-timeout", "1h",
			"--max-iterations", strconv.Itoa(l.maxIterations)}
		if l.restartNow {
			args = append(args, "--restart-delay", "0")
		}
		if l.done {
			args = append(args, "--done-pattern", donePattern, "--check-done-continuous")
		}
	} else {
		args = []string{s.bins.ref, "-S", s.srv.socket, "-t", l.pane, "-prompt-file", l.prompt,
			"-mode", l.mode, "-inactivity", "1h", "-max-iterations", strconv.Itoa(l.maxIterations)}
		if l.restartNow {
			args = append(args, "-restart-delay", "0")
		}
		if l.done {
			args = append(args, "-done", donePattern)
		}
	}
	args = append(append(args, "--"), l.agent...)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = s.srv.env
	cmd.Dir = s.dir
	log, err := os.Create(filepath.Join(s.dir, "run", name+".log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	lp := &loop{cmd: cmd, ended: make(chan struct{})}
	go func() {
		cmd.Wait()
		lp.at = time.Now()
		log.Close()
		close(lp.ended)
	}()
	return lp, nil
}

// finish waits for a loop to end by itself and returns when it did.
func (lp *loop) finish(timeout time.Duration) (time.Time, error) {
	select {
	case <-lp.ended:
		return lp.at, nil
	case <-time.After(timeout):
		lp.cmd.Process.Kill()
		return time.Time{}, fmt.Errorf("loop did not end within %s", timeout)
	}
}

// stop ends a loop that would not end by itself.
func (lp *loop) stop() {
	lp.cmd.Process.Signal(os.Interrupt)
	select {
	case <-lp.ended:
	case <-time.After(5 * time.Second):
		lp.cmd.Process.Kill()
		<-lp.ended
	}
}

func (s *subject) file(name string) string { return filepath.Join(s.dir, "run", name) }

func (s *subject) writePrompt(name, text string) (string, error) {
	path := s.file(name)
	return path, os.WriteFile(path, []byte(text), 0o644)
}

// idle starts n loops whose agents sit still once they have the prompt, and
// measures the CPU the watchers and the server use, and their memory.
func (s *subject) idle(o options, n int) (map[string][]float64, error) {
	prompt, err := s.writePrompt("idle-prompt", "Work on the task in TASK.md.\n")
	if err != nil {
		return nil, err
	}
	mode := "type"
	if s.name == "reference" {
		mode = "arg" // the reference's typing is not what is measured here
	}
	var cmds []*loop
	var panes, stamps []string
	defer func() {
		for _, c := range cmds {
			c.stop()
		}
		for _, p := range panes {
			s.srv.tmux("kill-pane", "-t", p)
		}
	}()
	for i := 0; i < n; i++ {
		pane, err := s.srv.newPane()
		if err != nil {
			return nil, err
		}
		panes = append(panes, pane)
		stamp := s.file(fmt.Sprintf("idle-%d-%d.stamp", n, i))
		stamps = append(stamps, stamp)
		cmd, err := s.start(loopSpec{pane: pane, prompt: prompt, mode: mode, maxIterations: 1,
			agent: []string{s.bins.agent, "idle", stamp}})
		if err != nil {
			return nil, err
		}
		cmds = append(cmds, cmd)
	}
	// Every agent has its prompt and sits still.
	deadline := time.Now().Add(60*time.Second + time.Duration(n)*time.Second)
	for _, st := range stamps {
		for {
			if _, err := os.Stat(st); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("agent %s never got its prompt", st)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	time.Sleep(3 * time.Second)

	panePIDs := s.srv.panePIDs()
	serverPIDs := []int{s.srv.pid}
	for _, k := range ChildrenOf(s.srv.pid) {
		if !panePIDs[k] {
			serverPIDs = append(serverPIDs, k) // pipe-pane helpers
		}
	}
	var watcherPIDs []int
	for _, c := range cmds {
		watcherPIDs = append(watcherPIDs, c.cmd.Process.Pid)
	}
	total := func(pids []int) time.Duration {
		var t time.Duration
		for _, p := range pids {
			d, _ := CPU(p)
			t += d
		}
		return t
	}
	slice := o.idle / time.Duration(o.samples)
	perMinute := func(d time.Duration) float64 {
		return float64(d) / float64(time.Millisecond) / float64(n) * float64(time.Minute) / float64(slice)
	}
	var watcherCPU, serverCPU, bothCPU []float64
	w0, s0 := total(watcherPIDs), total(serverPIDs)
	for i := 0; i < o.samples; i++ {
		time.Sleep(slice)
		w1, s1 := total(watcherPIDs), total(serverPIDs)
		watcherCPU = append(watcherCPU, perMinute(w1-w0))
		serverCPU = append(serverCPU, perMinute(s1-s0))
		bothCPU = append(bothCPU, perMinute(w1-w0+s1-s0))
		w0, s0 = w1, s1
	}
	var rss, peak int64
	for _, p := range watcherPIDs {
		r, h, err := Memory(p)
		if err != nil {
			return nil, fmt.Errorf("read memory of watcher %d (did it end?): %w", p, err)
		}
		rss += r
		peak = max(peak, h)
	}
	if n == 1 {
		return map[string][]float64{
			"idle_cpu_pane":    bothCPU,
			"idle_cpu_watcher": watcherCPU,
			"idle_cpu_server":  serverCPU,
			"peak_rss_mb":      {float64(peak) / 1024},
		}, nil
	}
	core := make([]float64, len(bothCPU))
	for i, v := range bothCPU {
		core[i] = v * float64(n) / float64(time.Minute/time.Millisecond) * 100 // % of one core
	}
	return map[string][]float64{
		"many_cpu_core": core,
		"many_rss_mb":   {float64(rss) / 1024},
	}, nil
}

// doneLatency times, over trials, how long a loop takes to stop after its
// agent printed the done token.
func (s *subject) doneLatency(trials int) (map[string][]float64, error) {
	prompt, err := s.writePrompt("done-prompt", "Work through TASK.md. When every task is finished, print RALPH_DONE_42 on a line of its own.\n")
	if err != nil {
		return nil, err
	}
	var ms []float64
	for i := 0; i < trials; i++ {
		pane, err := s.srv.newPane() // a fresh pane: no old token in its history
		if err != nil {
			return nil, err
		}
		stamp := s.file(fmt.Sprintf("done-%d.stamp", i))
		cmd, err := s.start(loopSpec{pane: pane, prompt: prompt, mode: "arg", done: true, maxIterations: 1,
			agent: []string{s.bins.agent, "done", stamp}})
		if err != nil {
			return nil, err
		}
		ended, err := cmd.finish(60 * time.Second)
		s.srv.tmux("kill-pane", "-t", pane)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(stamp)
		if err != nil {
			return nil, fmt.Errorf("trial %d: the loop ended before the agent printed the token: %w", i, err)
		}
		t, err := ParseStamp(string(data))
		if err != nil {
			return nil, err
		}
		ms = append(ms, float64(ended.Sub(t[0]))/float64(time.Millisecond))
	}
	return map[string][]float64{"done_latency_ms": ms}, nil
}

// turnOver runs trials+1 short iterations back to back (restart delay 0) and
// times each gap from an agent's exit to the next agent's start.
func (s *subject) turnOver(trials int) (map[string][]float64, error) {
	prompt, err := s.writePrompt("turn-prompt", "Work on the task in TASK.md.\n")
	if err != nil {
		return nil, err
	}
	pane, err := s.srv.newPane()
	if err != nil {
		return nil, err
	}
	defer s.srv.tmux("kill-pane", "-t", pane)
	log := s.file("turn.log")
	cmd, err := s.start(loopSpec{pane: pane, prompt: prompt, mode: "arg", maxIterations: trials + 1, restartNow: true,
		agent: []string{s.bins.agent, "turn", log}})
	if err != nil {
		return nil, err
	}
	if _, err := cmd.finish(time.Duration(trials+1) * 4 * time.Second); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(log)
	if err != nil {
		return nil, err
	}
	gaps, err := TurnOvers(string(data))
	if err != nil {
		return nil, err
	}
	var ms []float64
	for _, g := range gaps {
		ms = append(ms, float64(g)/float64(time.Millisecond))
	}
	return map[string][]float64{"turnover_ms": ms}, nil
}

// delivery types a 100 KB prompt into a ready agent, over trials, and times
// it from the first byte to the last the agent received, and from the moment
// the agent was ready to the last byte.
func (s *subject) delivery(trials int) (map[string][]float64, error) {
	line := "Implement the next task from TASK.md, run the tests, and commit; keep notes. "
	text := strings.Repeat(line+"\n", deliverSize/len(line)+1)[:deliverSize]
	prompt, err := s.writePrompt("deliver-prompt", text)
	if err != nil {
		return nil, err
	}
	var transfer, fromReady []float64
	for i := 0; i < trials; i++ {
		pane, err := s.srv.newPane()
		if err != nil {
			return nil, err
		}
		stamp := s.file(fmt.Sprintf("deliver-%d.stamp", i))
		cmd, err := s.start(loopSpec{pane: pane, prompt: prompt, mode: "type", maxIterations: 1,
			agent: []string{s.bins.agent, "receive", strconv.Itoa(deliverSize), stamp}})
		if err != nil {
			return nil, err
		}
		_, err = cmd.finish(60 * time.Second)
		s.srv.tmux("kill-pane", "-t", pane)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(stamp)
		if err != nil {
			return nil, fmt.Errorf("trial %d: the agent did not receive the prompt: %w", i, err)
		}
		t, err := ParseStamp(string(data))
		if err != nil || len(t) != 3 {
			return nil, fmt.Errorf("trial %d: bad stamp %q", i, data)
		}
		transfer = append(transfer, float64(t[2].Sub(t[1]))/float64(time.Millisecond))
		fromReady = append(fromReady, float64(t[2].Sub(t[0]))/float64(time.Millisecond))
	}
	return map[string][]float64{"delivery_ms": transfer, "delivery_from_ready_ms": fromReady}, nil
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
