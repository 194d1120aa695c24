package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The states a person meets, as status, list and the pane tell them, and
// what pause, resume and stop do in each.

// listRow is the list's row for a loop.
func (c *cli) listRow(name string) string {
	c.t.Helper()
	for _, line := range strings.Split(c.want([]string{"list"}, 0, "", ""), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name {
			return strings.Join(f, " ")
		}
	}
	return ""
}

// shown waits for the loop to show word in its state, status, list and pane.
func (c *cli) shown(name, word string) *state.State {
	c.t.Helper()
	st := c.until(name, "state "+word, func(st *state.State) bool { return st.Shown == word })
	c.want([]string{"status", name}, 0, "Status: "+word+"\n", "")
	if row := c.listRow(name); !strings.HasPrefix(row, name+" "+word+" ") {
		c.t.Errorf("list row %q, want %s", row, word)
	}
	if got := c.srv.Option(st.PaneID, "@ralph-state"); got != word {
		c.t.Errorf("@ralph-state = %q, want %s", got, word)
	}
	return st
}

func TestANeedsInputLoopCanBePausedResumedAndStopped(t *testing.T) {
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint Do you want to proceed?\nprint ❯ 1. Yes\nprint   2. No\nquiet\n")
	pane := c.detach("ask", append([]string{"--agent", "claude", "--turn-hook=false", "--ready-pattern", "^❯ ", "--max-iterations", "3", "--"}, agent...)...)
	c.shown("ask", "needs-input")
	c.want([]string{"status", "ask"}, 0, "Waiting for: an answer in the pane (the agent is asking a question)\n", "")
	if live := c.srv.Option(pane, "@ralph-live"); live != "1" {
		t.Errorf("@ralph-live = %q while the question waits", live)
	}
	c.want([]string{"pause", "ask"}, 0, "paused ralph loop for ask", "")
	c.shown("ask", "paused")
	c.want([]string{"resume", "ask"}, 0, "resumed ralph loop for ask", "")
	c.shown("ask", "needs-input") // the same question, adopted
	c.want([]string{"stop", "ask"}, 0, "stopped ralph loop for ask", "")
	c.shown("ask", "stopped")
	if live := c.srv.Option(pane, "@ralph-live"); live != "" {
		t.Errorf("@ralph-live = %q once stopped", live)
	}
}

func TestAWaitingLoopShowsTheIterationToComeAndWaitsOnAfterAPause(t *testing.T) {
	c := newCLI(t)
	reset := time.Now().Add(2 * time.Hour)
	agent := c.srv.FakeAgentAs("claude", "limited", fmt.Sprintf("print Claude AI usage limit reached|%d\nexit 1\n", reset.Unix()))
	pane := c.detach("wait", append([]string{"--agent", "claude", "--prompt-mode", "arg", "--max-iterations", "3", "--"}, agent...)...)
	st := c.shown("wait", "waiting")
	c.want([]string{"status", "wait"}, 0, "Iteration: 1/3\n", "")
	c.want([]string{"status", "wait"}, 0, "Waiting for: limit reset ("+reset.Format("15:04")+")\n", "")
	if row := c.listRow("wait"); !strings.Contains(row, " 1/3 ") {
		t.Errorf("list row %q, want iteration 1/3", row)
	}
	if got := c.srv.Option(pane, "@ralph-status"); got != "⏳ 1/3 waiting for limit reset ("+reset.Format("15:04")+")" {
		t.Errorf("@ralph-status = %q", got)
	}
	c.want([]string{"pause", "wait"}, 0, "paused ralph loop for wait", "")
	c.shown("wait", "paused")
	c.want([]string{"resume", "wait"}, 0, "resumed ralph loop for wait", "")
	again := c.shown("wait", "waiting")
	if again.WaitingUntil != st.WaitingUntil {
		t.Errorf("waiting until %s after resume, was %s", again.WaitingUntil, st.WaitingUntil)
	}
	time.Sleep(time.Second)
	if n := strings.Count(c.log("wait"), "[START]"); n != 1 {
		t.Errorf("%d iterations started; resume must wait for the reset:\n%s", n, c.log("wait"))
	}
	c.want([]string{"stop", "wait"}, 0, "stopped ralph loop for wait", "")
	c.shown("wait", "stopped")
}

func TestAStartingLoopSaysWhatItWaitsForAndCanBeStopped(t *testing.T) {
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "print loading\nready\nread\nquiet\n")
	c.detach("slow", append([]string{"--ready-pattern", "NEVER", "--ready-timeout", "60s", "--max-iterations", "3", "--"}, agent...)...)
	c.shown("slow", "starting")
	status := c.want([]string{"status", "slow"}, 0, "Waiting for: the agent to be ready (its input box to show, ", "")
	if !strings.Contains(status, "s of 60s)\n") {
		t.Errorf("status does not say how long of the ready timeout:\n%s", status)
	}
	// Paused before the prompt was typed, resume waits for the same agent to be ready.
	c.want([]string{"pause", "slow"}, 0, "paused ralph loop for slow", "")
	if st := c.shown("slow", "paused"); st.CurrentIteration != 1 || !st.PromptUntyped {
		t.Errorf("paused while starting: iteration %d, prompt untyped %v", st.CurrentIteration, st.PromptUntyped)
	}
	c.want([]string{"resume", "slow"}, 0, "resumed ralph loop for slow", "")
	c.shown("slow", "starting")
	if n := strings.Count(c.log("slow"), "[START] iteration 1/3"); n != 1 {
		t.Errorf("iteration 1 started %d times, want once:\n%s", n, c.log("slow"))
	}
	c.want([]string{"stop", "--kill", "slow"}, 0, "stopped ralph loop for slow", "")
	st := c.shown("slow", "stopped")
	tmuxtest.Eventually(t, 10*time.Second, "the pane back at a shell", func() bool {
		return strings.TrimSpace(c.srv.Must("display", "-p", "-t", st.PaneID, "#{pane_dead} #{pane_current_command}")) == "0 "+endShell()
	})
}

func TestStoppingAnEndedLoopSaysSoInOneLine(t *testing.T) {
	c := newCLI(t)
	c.runLoop("over", "--prompt-mode", "arg", "--max-iterations", "1", "--done-pattern", "FIN", "--", "sh", "-c", "echo FIN")
	code, stdout, stderr := c.run(nil, "stop", "over")
	if code != 0 || stdout != "ralph loop for over has already ended (done); nothing to stop\n" || stderr != "" {
		t.Errorf("stop of an ended loop: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	c.want([]string{"status", "over"}, 0, "Status: done\n", "")
}

func TestCleanTakesAnEndedLoopOffTheStatusLineAtOnce(t *testing.T) {
	c := newCLI(t)
	c.runLoop("gone", "--prompt-mode", "arg", "--max-iterations", "1", "--", "sh", "-c", "true")
	st := c.state("gone")
	if got := c.srv.Option(st.PaneID, "@ralph-state"); got != "done" {
		t.Fatalf("@ralph-state = %q before clean", got)
	}
	other := c.srv.NewPane()
	c.srv.Must("set-option", "-p", "-t", other, "@ralph-name", "someone-else")
	c.want([]string{"clean", "gone"}, 0, "cleaned ralph state for gone", "")
	if got := strings.TrimSpace(c.srv.Must("show-options", "-p", "-t", st.PaneID)); strings.Contains(got, "@ralph") {
		t.Errorf("options left after clean:\n%s", got)
	}
	if got := c.srv.Option(other, "@ralph-name"); got != "someone-else" {
		t.Errorf("clean touched another pane: %q", got)
	}
}

func TestDoneIsNoticedAtOnceWithTheDefaults(t *testing.T) {
	c := newCLI(t)
	// The agent prints the token and sits there: only a match while it runs ends the loop soon.
	agent := c.srv.FakeAgent("agent", "ready\nread\nprint all tasks complete\nprint RALPH_DONE\nquiet\n")
	start := time.Now()
	c.runLoop("quick", append([]string{"--max-iterations", "3", "--done-pattern", "RALPH_DONE", "--"}, agent...)...)
	if took := time.Since(start); took > 60*time.Second {
		t.Errorf("took %s, the inactivity timeout's time", took)
	}
	log := c.log("quick")
	if strings.Contains(log, "[TIMEOUT]") || !strings.Contains(log, "reason=done_pattern") {
		t.Errorf("log:\n%s", log)
	}
	c.want([]string{"status", "quick"}, 0, "Status: done\n", "")
}
