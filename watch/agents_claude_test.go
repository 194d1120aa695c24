package watch_test

// Claude Code: its fixture, and the cases only it has (a long paste, a slow
// start, a rate-limited turn, a release no profile string matches).
// Checked with Claude Code 2.1.197 and 2.1.330.

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// claudeCode's turns end by its Stop hook, or by its idle screen (the input
// box, no "esc to interrupt") when the hook is off; with hooks it is ready by
// its SessionStart hook or its screen, whichever comes first. Without its
// profile a loop of it is ended by inactivity.
var claudeCode = agentFixture{
	name:     "claude",
	title:    "Claude Code",
	protocol: "anthropic",
	ends: []turnEnd{
		{name: "no profile"},
		{name: "turn hook true", profile: true, hook: true, via: contract.ViaHook, ready: []string{contract.ViaHook, contract.ViaPattern}},
		{name: "turn hook false", profile: true, via: contract.ViaScreen, ready: []string{contract.ViaHook, contract.ViaPattern}},
	},
	timeout:     150 * time.Second,
	doneReceipt: true,
	settings:    ".claude/settings.json",
}

// pastedContent is how Claude Code 2.1.330 sends a long paste: the text,
// byte for byte, between tags.
var pastedContent = regexp.MustCompile(`(?s)^\n*<pasted_content id="([^"]+)">\n(.*)</pasted_content id="([^"]+)">\n$`)

// unwrapPaste returns the pasted text of a turn, without the tags.
func unwrapPaste(text string) string {
	if m := pastedContent.FindStringSubmatch(text); m != nil && m[1] == m[3] {
		return m[2]
	}
	return text
}

// A paste of more than 2 newlines shows as "[Pasted text #1 +30 lines]" in
// the input box, then in full in the transcript, and reaches the API byte
// for byte; the token in its middle never stops the loop.
func TestClaudeCodeLongPromptReachesTheAPIByteForByte(t *testing.T) {
	t.Parallel()
	claude := claudeCode.find(t)
	var lines []string
	for i := 1; i <= 30; i++ {
		line := fmt.Sprintf("Step %d: read section %d of the plan and do what it says, then check the result.", i, i)
		if i == 15 {
			line = "When every task is finished, print RALPH_DONE_42 on a line of its own."
		}
		lines = append(lines, line)
	}
	long := strings.Join(lines, "\n") + "\n"
	r := newAgentRun(t, claudeCode, claude, long, "Still working on it.")
	defer r.explain()
	r.withoutProfile()
	r.cfg.MaxIterations = 1
	res := r.run(100 * time.Second)
	if res.Code != contract.ExitLimit || res.Reason != "max_iterations" {
		t.Errorf("result %+v, want exit 3 max_iterations", res)
	}
	r.wantPrompts(1, long)
}

// TestClaudeCodeSlowStart: after respawn-pane the pane's previous screen is
// kept as history. A ready check that counted it took the old screen for a
// ready agent 0.7 s after the respawn, and an agent slower to start (Claude
// Code takes 10+ s on a loaded machine) got the prompt in a cooked tty, where
// it sat unsent. The check now waits for the new agent's own output.
func TestClaudeCodeSlowStart(t *testing.T) {
	t.Parallel()
	claude := claudeCode.find(t)
	r := newAgentRun(t, claudeCode, claude, loopPrompt, "All tasks complete.\nRALPH_DONE_42")
	defer r.explain()
	r.withoutProfile()
	r.cfg.Command = []string{"/bin/sh", "-c", `sleep 3; exec "$0"`, claude}
	r.cfg.MaxIterations = 1
	res := r.run(90 * time.Second)
	if res.Code != contract.ExitDone || res.Reason != "done_pattern" {
		t.Errorf("result %+v, want exit 0 done_pattern", res)
	}
	r.wantPrompts(1, strings.TrimRight(loopPrompt, "\n"))
}

// A rate-limited turn: Claude Code's StopFailure hook says rate_limit (and
// its screen shows "API Error: … (429)"); the loop waits for the limit
// instead of counting a failure.
func TestClaudeCodeRateLimitedTurnWaitsForTheLimit(t *testing.T) {
	t.Parallel()
	claude := claudeCode.find(t)
	tmuxtest.Require(t)
	r := newAgentRun(t, claudeCode, claude, loopPrompt, "!limit 3600")
	defer r.explain()
	r.useTurnHook(turnHookWake(t))
	r.cfg.InactivityTimeout = 90 * time.Second
	r.cfg.LimitWait = time.Hour
	r.runUntil(120*time.Second, "waiting for limit reset")
	if !strings.Contains(r.out.String(), "usage limit reached (") {
		t.Errorf("the limit was not recognised:\n%s", r.out.String())
	}
	at, via, ok := r.ev.first(1, contract.EventLimit)
	t.Logf("limit known at %s by %s", at.Round(time.Millisecond), via)
	if !ok || via != contract.ViaHook && via != contract.ViaScreen {
		t.Errorf("no limit event by hook or screen: %s", r.ev.String())
	}
	if strings.Contains(r.out.String(), "failed (") {
		t.Errorf("a rate limit counted as a failure:\n%s", r.out.String())
	}
}

// A release whose footer and finished line no profile string matches (a
// profile made for another release, hooks off): the agent-agnostic signals
// (bracketed paste on, a still screen and cursor, Claude's processes idle in
// /proc) tell that it is ready and that its turn is over, long before any
// timeout.
func TestClaudeCodeWithStringsNoProfileMatchesIsReadAndEndedByTheIdleSignals(t *testing.T) {
	t.Parallel()
	claude := claudeCode.find(t)
	tmuxtest.Require(t)
	r := newAgentRun(t, claudeCode, claude, loopPrompt, "Still working on it.")
	defer r.explain()
	r.cfg.Agent.Ready = regexp.MustCompile(`a footer no release has drawn`)
	r.cfg.Agent.Finished = nil
	r.cfg.ReadyPattern = r.cfg.Agent.Ready
	res := r.run(150 * time.Second)
	if res.Code != contract.ExitLimit || res.Reason != "max_iterations" {
		t.Errorf("result %+v, want exit 3 max_iterations", res)
	}
	r.wantVia(2, turnEnd{via: contract.ViaIdle, ready: []string{contract.ViaIdle}})
	r.wantPrompts(2, strings.TrimRight(loopPrompt, "\n"))
}
