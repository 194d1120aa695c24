package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// trial runs the loop l in a fresh pane (no old output in its history) until
// it ends by itself, and tells when it ended.
func (s *subject) trial(l loopSpec) (time.Time, error) {
	pane, err := s.srv.newPane()
	if err != nil {
		return time.Time{}, err
	}
	defer func() { _, _ = s.srv.tmux("kill-pane", "-t", pane) }()
	l.pane = pane
	cmd, err := s.start(l)
	if err != nil {
		return time.Time{}, err
	}
	return cmd.finish(60 * time.Second)
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
		stamp := s.file(fmt.Sprintf("done-%d.stamp", i))
		ended, err := s.trial(loopSpec{prompt: prompt, mode: "arg", done: true, maxIterations: 1,
			agent: []string{s.bins.agent, "done", stamp}})
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
	defer func() { _, _ = s.srv.tmux("kill-pane", "-t", pane) }()
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
		stamp := s.file(fmt.Sprintf("deliver-%d.stamp", i))
		if _, err := s.trial(loopSpec{prompt: prompt, mode: "type", maxIterations: 1,
			agent: []string{s.bins.agent, "receive", strconv.Itoa(deliverSize), stamp}}); err != nil {
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
