package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// claudeFolder is the folder Claude Code keeps a project's transcripts in,
// under its config folder: the project's path, every character but an
// ASCII letter or digit a '-'.
func claudeFolder(dir string) string {
	return regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(dir, "-")
}

func TestABudgetFromTheCommandLineStopsTheLoopAndStatusLogsAndListShowTheSpend(t *testing.T) {
	c := newCLI(t)
	// No hook tells this Claude's transcript: it is found where Claude Code keeps it.
	projects := filepath.Join(c.srv.Dir, "home", ".claude", "projects", claudeFolder(c.srv.Dir))
	if err := os.MkdirAll(projects, 0o700); err != nil {
		t.Fatal(err)
	}
	agent := c.srv.FakeAgentAs("claude", "spender", fmt.Sprintf(
		`append %s {"type":"assistant","timestamp":"{{now}}","message":{"id":"msg_{{iteration}}","model":"claude-test-1","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":4000,"output_tokens":1000}}}`+"\nprint done\nexit 0\n",
		filepath.Join(projects, "session.jsonl")))
	prices := filepath.Join(c.srv.Dir, "prices.json")
	os.WriteFile(prices, []byte(`{"claude-test-*": {"input": 10, "output": 20, "cache_read": 1, "cache_write": 12.5}}`), 0o644)
	code, stdout, stderr := c.run(nil, append([]string{"run", "-S", c.srv.Socket, "-t", c.pane(c.srv.Dir), "--name", "spent",
		"--agent", "claude", "--prompt-mode", "arg", "--turn-hook=false", "--restart-delay", "0", "--max-iterations", "5",
		"--max-tokens", "10000", "--prices", prices, "--"}, agent...)...)
	if code != 3 || !strings.Contains(stdout, "[ralph] spent: budget reached: 10000 tokens of 10000, stopping loop") {
		t.Fatalf("exit %d, want 3 at the budget\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if st := c.state("spent"); st.CurrentIteration != 2 || st.ExitReason == nil || *st.ExitReason != "budget" || st.MaxTokens != 10000 {
		t.Errorf("state: iteration %d, reason %v, max_tokens %d; want 2, budget, 10000", st.CurrentIteration, st.ExitReason, st.MaxTokens)
	}
	c.want([]string{"logs", "spent"}, 0, "[COST] iteration 2 tokens in=4000 out=1000 cache=0/0 turns=1 tools=0 cost=$0.060 files=0 +0 -0\n", "")
	status := c.want([]string{"status", "spent"}, 0, "Spent: 10000 tokens, $0.12 over 2 iterations\n", "")
	if !strings.Contains(status, "Budget: 10000 tokens (budget reached: 10000 tokens of 10000)\n") || !strings.Contains(status, "Exit reason: budget\n") {
		t.Errorf("status:\n%s", status)
	}
	c.want([]string{"status", "--json", "spent"}, 0, `"tokens": 10000`, "")
	if row := c.listRow("spent"); !strings.HasSuffix(row, "10k tok $0.12 - -") {
		t.Errorf("list row %q, want the spend before LANDED and REPORT", row)
	}
}
