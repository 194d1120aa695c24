package tmuxtest

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The tests come in tiers, each a make target, named by TierVar:
//
//	unit    make unit: no real tmux and no agent (the in-memory tmux, the
//	        virtual clock, the simulation); Require and Start skip
//	tmux    make test: unit plus real tmux; Agent skips
//	agents  make test-agents: only the real agents' tests
//	(unset) go test by hand: everything it finds
//
// A test says what it needs by calling Start or Require (real tmux) and
// Agent (a real agent, before Start, in the test or a parent). The agents tier must run only the
// tests that call Agent, and the gate alone cannot see a test that never
// reaches tmuxtest: so make test-agents picks tests by name (go test -run
// AgentTests), and Agent fails any test whose name AgentTests does not
// match, in every tier, so that no agent test falls outside the pick and
// never runs. In that tier Start and Require skip a picked test that did
// not ask for an agent (a test of the Claude profile on a fake agent).

// TierVar names the tier of tests that runs: unit, tmux or agents.
const TierVar = "RALPH_TEST_TIER"

// AgentTests matches the names of the tests that run real agents: the
// Makefile's AGENT_TESTS is the same (cmd/ralph-watch's makefile_test.go).
const AgentTests = "RealAgent|Claude|Codex|Gemini|OpenCode|Copilot"

var agentTests = regexp.MustCompile(AgentTests)

var (
	askedMu sync.Mutex
	asked   = map[string]bool{} // the names of the tests that called Agent
)

// askedForAgent says whether the test or one of the tests it runs within
// called Agent (a subtest runs the agent its parent found).
func askedForAgent(t testing.TB) bool {
	askedMu.Lock()
	defer askedMu.Unlock()
	name := t.Name()
	for {
		if asked[name] {
			return true
		}
		i := strings.LastIndex(name, "/")
		if i < 0 {
			return false
		}
		name = name[:i]
	}
}

// tier is the tier that runs ("" when unset: every test).
func tier(t testing.TB) string {
	t.Helper()
	switch v := os.Getenv(TierVar); v {
	case "", "unit", "tmux", "agents":
		return v
	default:
		t.Fatalf("%s=%s: want unit, tmux or agents", TierVar, v)
		return ""
	}
}

// needsTmux skips the test when its tier runs no real tmux test like it.
func needsTmux(t testing.TB) {
	t.Helper()
	switch tier(t) {
	case "unit":
		t.Skip("needs real tmux: make test")
	case "agents":
		if !askedForAgent(t) {
			t.Skip("no real agent's test: make test")
		}
	}
}

// Agent returns the executable of the real agent name (claude, codex,
// gemini, opencode, copilot): $RALPH_TEST_<NAME>, else its program on PATH.
// It skips the test unless its tier runs real agents or no agent is found,
// and fails it when its name is not one AgentTests matches.
func Agent(t testing.TB, name string) string {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	if !agentTests.MatchString(top) {
		t.Fatalf("%s runs a real agent: its name must match %q (make test-agents runs those)", top, AgentTests)
	}
	if tier := tier(t); tier == "unit" || tier == "tmux" {
		t.Skip("a real agent's test: make test-agents")
	}
	if testing.Short() {
		t.Skip("real agents skipped in -short mode")
	}
	variable := "RALPH_TEST_" + strings.ToUpper(name)
	path := os.Getenv(variable)
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s: %v", variable, err)
		}
	} else {
		var err error
		if path, err = exec.LookPath(name); err != nil {
			t.Skipf("no %s executable (set %s=/path/to/%s)", name, variable, name)
		}
	}
	askedMu.Lock()
	if name := t.Name(); !asked[name] {
		asked[name] = true
		t.Cleanup(func() {
			askedMu.Lock()
			delete(asked, name)
			askedMu.Unlock()
		})
	}
	askedMu.Unlock()
	return path
}
