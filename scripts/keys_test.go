package scripts_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// An agent that asks the person a question and waits for the answer.
const askingAgent = `print   ? for shortcuts
ready
read
echo
print Bash command
print   rm -rf build
print Do you want to proceed?
print ❯ 1. Yes
print   2. No
quiet
`

// While a loop needs input, and while it waits hours for a usage limit to
// reset, every key acts on it: the pause key pauses and resumes it (a
// resumed limit wait goes back to waiting), the loop key says it is looping,
// the stop key ends it. None of them calls it ended.
func TestKeysWorkWhileALoopNeedsInputOrWaitsForALimit(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(3 * time.Hour).Unix()
	for _, tc := range []struct {
		name, state, script string
		options             map[string]string
	}{
		{"needs input", "needs-input", askingAgent, map[string]string{"@ralph-agent": "claude"}},
		{"waiting for a limit", "waiting", fmt.Sprintf("print Claude AI usage limit reached|%d\nexit 1\n", reset),
			map[string]string{"@ralph-agent": "claude", "@ralph-prompt-mode": "arg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, p := installTPM(t)
			agent := srv.FakeAgentAs("claude", "agent", tc.script) // a claude of its own name takes -p
			options := map[string]string{"status-right": "#{ralph_status}", "@ralph-command": command(agent), "@ralph-max-iterations": "3"}
			for k, v := range tc.options {
				options[k] = v
			}
			p.configure(options)
			_, pane := p.project("project", "do the next task\n")
			p.source()
			p.attach()
			p.press("A")
			p.choose("Start the loop", "y")
			p.waitOption(pane, "@ralph-state", tc.state)
			wantLive(t, srv, pane)

			p.press("Z")
			p.waitOption(pane, "@ralph-state", "paused")
			p.press("Z")
			p.waitOption(pane, "@ralph-state", tc.state)

			p.press("A")
			p.choose("is looping this pane ("+tc.state+")", "q")
			p.press("Q")
			p.choose("Stop the loop (the agent runs on)", "y")
			p.waitOption(pane, "@ralph-state", "stopped")
			p.noMessage("has ended", "has already ended", "already running")
			if log := p.messages(); strings.Contains(log, "starting iteration 2") {
				t.Errorf("the loop moved on while it %s:\n%s", tc.name, log)
			}
		})
	}
}

// With the plugin's defaults (done pattern RALPH_DONE, checked while the
// agent runs) a loop whose agent prints RALPH_DONE and stays is done within
// moments, not after the 180 s inactivity timeout; the template the loop key
// writes asks for that same token. @ralph-check-done-continuous off passes
// --check-done-continuous=false.
func TestDoneIsNoticedAtOnceWithThePluginDefaults(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	agent := srv.FakeAgent("agent", "ready\nread\necho\nprint working on it\nsleep 1s\nprint RALPH_DONE\nsleep 120s\n")
	p.load(map[string]string{"status-right": "#{ralph_status}", "@ralph-command": command(agent)})
	_, pane := p.project("project", "do the next task\n")
	p.startWithLoopKey(pane)
	var printed time.Time
	tmuxtest.Eventually(t, 60*time.Second, "the loop to be done", func() bool {
		if printed.IsZero() && strings.Contains(srv.Capture(pane), "\nRALPH_DONE") {
			printed = time.Now()
		}
		return srv.Option(pane, "@ralph-state") == "done"
	})
	if printed.IsZero() {
		printed = time.Now()
	}
	t.Logf("done noticed %v after RALPH_DONE showed in the pane", time.Since(printed).Round(10*time.Millisecond))
	if late := time.Since(printed); late > 20*time.Second {
		t.Errorf("done noticed %v after the token: not checked while the agent runs", late)
	}
	st := loopState(t, srv, srv.Option(pane, "@ralph-name"))
	if st.DonePattern == nil || *st.DonePattern != "RALPH_DONE" || !st.CheckDoneContinuous {
		t.Errorf("loop state: done pattern %v, continuous %v", st.DonePattern, st.CheckDoneContinuous)
	}
	template, err := p.ralphWatch("template").Output()
	if err != nil || !strings.Contains(string(template), "RALPH_DONE") {
		t.Errorf("ralph-watch template does not ask for RALPH_DONE: %v\n%s", err, template)
	}

	srv.Must("set-option", "-g", "@ralph-check-done-continuous", "off")
	_, pane = p.project("after-exit", "do the next task\n")
	p.startWithLoopKey(pane)
	if st := loopState(t, srv, srv.Option(pane, "@ralph-name")); st.CheckDoneContinuous {
		t.Errorf("@ralph-check-done-continuous off: the loop checks continuously")
	}
}
