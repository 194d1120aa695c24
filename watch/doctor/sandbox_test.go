package doctor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

func TestFindBypassTellsAWrapperThatReplacesTheSandbox(t *testing.T) {
	loopShell := agent.Proc{PID: 10, Depth: 0, Argv: []string{"/bin/sh", "-c", "…"},
		Env: []string{"HOME=/sandbox", "ANTHROPIC_BASE_URL=http://127.0.0.1:9", "ANTHROPIC_API_KEY=sk-doctor", "GEMINI_CLI_HOME=/overlay", "PATH=/bin"}}
	withEnv := func(pid, ppid, depth int, argv []string, change ...string) agent.Proc {
		env := append([]string(nil), loopShell.Env...)
		env = append(env, change...) // the last one wins
		if len(change) == 1 && change[0] == "-ANTHROPIC_API_KEY" {
			env = []string{"HOME=/sandbox", "ANTHROPIC_BASE_URL=http://127.0.0.1:9", "GEMINI_CLI_HOME=/overlay", "PATH=/bin"}
		}
		return agent.Proc{PID: pid, PPID: ppid, Depth: depth, Argv: argv, Env: env}
	}
	claude := []string{"/opt/claude/bin/claude", "--settings", "/s.json"}
	for _, tc := range []struct {
		name  string
		procs []agent.Proc
		want  string // the changes, as printed; "" for none
		home  string
	}{
		{"the agent as doctor started it", []agent.Proc{loopShell, withEnv(11, 10, 1, claude)}, "", ""},
		{"a wrapper that execs the agent with its own HOME, key and API",
			[]agent.Proc{loopShell, withEnv(11, 10, 1, claude, "HOME=/home/me", "ANTHROPIC_API_KEY=sk-ant-mine", "ANTHROPIC_BASE_URL=https://api.example")},
			"HOME=/home/me, ANTHROPIC_API_KEY (its own), ANTHROPIC_BASE_URL=https://api.example", "/home/me"},
		{"a wrapper script that starts the agent without exec",
			[]agent.Proc{loopShell, withEnv(11, 10, 1, []string{"/bin/sh", "/home/me/bin/claude"}), withEnv(12, 11, 2, claude, "HOME=/home/me")},
			"HOME=/home/me", "/home/me"},
		{"a key the wrapper removes", []agent.Proc{loopShell, withEnv(11, 10, 1, claude, "-ANTHROPIC_API_KEY")}, "ANTHROPIC_API_KEY unset", "/sandbox"},
		// Claude Code starts git without its API key: the agent's own doing.
		{"what the agent starts", []agent.Proc{loopShell, withEnv(11, 10, 1, claude), withEnv(12, 11, 2, []string{"/usr/bin/git"}, "-ANTHROPIC_API_KEY")}, "", ""},
		{"a variable outside the sandbox", []agent.Proc{loopShell, withEnv(11, 10, 1, claude, "NODE_OPTIONS=--max-old-space-size=4096", "TMPDIR=/t")}, "", ""},
		{"no agent yet", []agent.Proc{loopShell}, "", ""},
	} {
		b := findBypass("claude", tc.procs)
		if tc.want == "" {
			if b != nil {
				t.Errorf("%s: a bypass %+v", tc.name, b)
			}
			continue
		}
		if b == nil {
			t.Errorf("%s: no bypass found", tc.name)
			continue
		}
		var got []string
		for _, c := range b.Changes {
			got = append(got, c.String())
		}
		if strings.Join(got, ", ") != tc.want || b.Home != tc.home || b.Config != tc.home+"/.claude.json" {
			t.Errorf("%s: %q, HOME %q, config %q; want %q, HOME %q", tc.name, got, b.Home, b.Config, tc.want, tc.home)
		}
		if strings.Contains(fmt.Sprintf("%+v", b), "sk-ant-mine") {
			t.Errorf("%s: a key's value kept: %+v", tc.name, b)
		}
	}
}

func TestTheReportOfABypassChecksNothingAndPointsAtTheAgentsOwnSettings(t *testing.T) {
	rep := &Report{Agent: "claude", Command: []string{"/home/me/bin/claude"}, Version: "2.1.330 (Claude Code)",
		Signals: notChecked("the agent ran with its own HOME"),
		Bypass: &Bypass{Changes: []Change{{Name: "HOME", Value: "/home/me"}, {Name: "ANTHROPIC_API_KEY", Secret: true}},
			Home: "/home/me", Config: "/home/me/.claude.json", Program: []string{"/opt/claude/bin/claude", "--settings", "/s.json"}}}
	rep.Works, rep.Fixes = Works(rep.Signals)
	var b strings.Builder
	rep.WriteText(&b)
	text := b.String()
	for _, want := range []string{"! sandbox", "gives the agent its own HOME and model API: HOME=/home/me, ANTHROPIC_API_KEY (its own)",
		"Doctor could not check claude through /home/me/bin/claude", "its own settings: /home/me/.claude.json",
		"ralph-watch doctor --agent claude -- /opt/claude/bin/claude (the program it started)"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, never := range []string{"✗", "would not work", "would work", "sk-x", "~/.claude.json", "--settings"} {
		if strings.Contains(text, never) {
			t.Errorf("text holds %q:\n%s", never, text)
		}
	}
	b.Reset()
	if err := rep.WriteJSON(&b); err != nil || !strings.Contains(b.String(), `"bypass":{"changes":[{"name":"HOME","value":"/home/me"}`) ||
		!strings.Contains(b.String(), `"status":"untried"`) {
		t.Errorf("json: %v\n%s", err, b.String())
	}
}
