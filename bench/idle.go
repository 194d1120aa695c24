package main

import (
	"fmt"
	"os"
	"time"
)

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
			_, _ = s.srv.tmux("kill-pane", "-t", p)
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
