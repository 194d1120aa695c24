package tmuxtest

import (
	"os/exec"
	"testing"
)

// Each tier runs the tests it names and skips the others: a real-tmux test
// (Require), a real agent's test (Agent, then Require, in the test or in
// its subtest), and, in the agents tier, a test picked by its name that
// asked for no agent. (-short skips every agent: make unit checks only
// that they skip.)
func TestRealAgentAndTmuxTestsRunOnlyInTheirTier(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Setenv(TmuxVar, "")         // Require needs Main only when it is set
	t.Setenv("RALPH_TEST_SH", "") // "sh" stands for an agent, found on PATH
	tests := map[string]func(t *testing.T, ran *bool){
		"tmux":  func(t *testing.T, ran *bool) { Require(t); *ran = true },
		"agent": func(t *testing.T, ran *bool) { Agent(t, "sh"); Require(t); *ran = true },
		"agent's subtest": func(t *testing.T, ran *bool) {
			Agent(t, "sh")
			t.Run("sub", func(t *testing.T) { Require(t); *ran = true })
		},
	}
	for _, c := range []struct {
		tier        string
		tmux, agent bool // whether each runs
	}{
		{"", true, true},
		{"unit", false, false},
		{"tmux", true, false},
		{"agents", false, true},
	} {
		t.Setenv(TierVar, c.tier)
		agent := c.agent && !testing.Short()
		for name, want := range map[string]bool{"tmux": c.tmux, "agent": agent, "agent's subtest": agent} {
			ran := false
			t.Run(c.tier+" "+name, func(t *testing.T) { tests[name](t, &ran) })
			if ran != want {
				t.Errorf("%s=%q: the %s test ran: %v, want %v", TierVar, c.tier, name, ran, want)
			}
		}
	}
}
