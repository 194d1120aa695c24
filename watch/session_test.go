package watch_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/pane"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The pane as a person uses it: one prompt, the agent's name on the window,
// a shell when the loop is over, states that survive a pause.

// pauseWhen runs the loop and asks it to pause once cond holds.
func (h *harness) pauseWhen(timeout time.Duration, what string, cond func() bool) watch.Result {
	h.t.Helper()
	wake := make(chan os.Signal, 1)
	go func() {
		tmuxtest.Eventually(h.t, timeout, what, cond)
		if err := h.store.Request(state.RequestPause); err != nil {
			h.t.Error(err)
		}
		wake <- syscall.SIGUSR1
	}()
	return h.runWoken(wake, timeout)
}

// pauseAfterIteration1 runs the loop and pauses it between iterations 1 and 2.
func (h *harness) pauseAfterIteration1() {
	h.t.Helper()
	h.cfg.RestartDelay = 3 * time.Second // the pause lands between iterations
	res := h.pauseWhen(60*time.Second, "iteration 1's end", func() bool {
		return strings.Contains(h.out.String(), "iteration 1 completed")
	})
	h.wantResult(res, contract.ExitInterrupted, "paused")
}

// newDoneHarness is a loop of an agent running script, which ends on the
// token RALPH_DONE, looked for all along or at each iteration's end.
func newDoneHarness(t *testing.T, script string, continuous bool) *harness {
	h := newHarness(t, "finish the plan", nil)
	h.cfg.Command = h.agent(script)
	h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE`)
	h.cfg.CheckDoneContinuous = continuous
	return h
}

// resume runs the paused loop again and checks how it ended.
func (h *harness) resume(code int, reason string) {
	h.t.Helper()
	h.cfg.Resume = true
	h.wantResult(h.run(60*time.Second), code, reason)
}

func TestAPromptArrivesExactlyOnce(t *testing.T) {
	t.Parallel()
	lines80 := strings.Repeat("a line of a long prompt\n", 80)
	big := strings.Repeat("a raw-mode agent reads this without echo; ", 2500)[:100<<10]
	for _, c := range []struct{ name, prompt, script string }{
		// 64 bytes, read and never drawn, by an agent in bracketed paste mode and by one that is not.
		{"non-echoing agent", strings.Repeat("x", 63) + "!", "ready\nnoecho\nread\nprint working on it\n"},
		{"non-echoing agent without bracketed paste", strings.Repeat("y", 63) + "!", "ready\nnopaste\nnoecho\nread\nprint working on it\n"},
		{"non-echoing raw agent, 100 KB", big, "ready\nnoecho\nread\nprint working on it\n"},
		{"collapsing agent", lines80, "ready\ncollapse\nread\nprint working on it\n"},
		{"slow starter", "a prompt for an agent\nslow to start", "print loading plugins\nsleep 2s\nready\nread\nprint working on it\n"},
		{"agent that drops its first input", "exactly once", "ready\ndrop-input 1500ms\nread\nprint working on it\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, c.prompt, nil)
			h.cfg.Command = h.agent(c.script + h.savePrompt() + "exit 0\n")
			h.cfg.MaxIterations = 1
			h.wantResult(h.run(90*time.Second), contract.ExitDone, "max_iterations")
			if got := h.received(1); got != c.prompt {
				t.Errorf("agent received %d bytes (%d copies?), want the %d-byte prompt once; output:\n%s",
					len(got), strings.Count(got, c.prompt[:20]), len(c.prompt), h.out.String())
			}
			if strings.Contains(h.out.String(), "pasting it again") && !strings.Contains(c.name, "drops") {
				t.Errorf("pasted again:\n%s", h.out.String())
			}
		})
	}
}

func TestTheWindowIsNamedAfterTheAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("ready\nread\nprint working\nsleep 5s\nexit 0\n")
	h.cfg.MaxIterations = 1
	h.srv.Must("set-option", "-g", "automatic-rename", "on")
	want := filepath.Base(h.cfg.Command[0])
	named := make(chan string, 1)
	go func() {
		var name string
		tmuxtest.Eventually(t, 30*time.Second, "the agent at work", func() bool {
			return strings.Contains(h.srv.Capture(h.cfg.Pane), "working")
		})
		name = strings.TrimSpace(h.srv.Must("display-message", "-p", "-t", h.cfg.Pane, "#{window_name}|#{pane_current_command}"))
		named <- name
	}()
	h.wantResult(h.run(60*time.Second), contract.ExitDone, "max_iterations")
	if got := <-named; got != want+"|"+want {
		t.Errorf("window name|pane command = %q, want %s|%s", got, want, want)
	}
}

func TestADoneSignalSurvivesPauseAndResume(t *testing.T) {
	t.Parallel()
	h := newDoneHarness(t, "ready\nread\nprint all tasks complete\nprint RALPH_DONE\nquiet\n", false) // done counts at the iteration's end: a pause comes first
	h.cfg.InactivityTimeout = 3 * time.Second
	h.cfg.IterationTimeout = 60 * time.Second
	res := h.pauseWhen(60*time.Second, "the done token", func() bool {
		return strings.Contains(h.srv.Capture(h.cfg.Pane), "RALPH_DONE")
	})
	h.wantResult(res, contract.ExitInterrupted, "paused")
	if st := h.state(); st.DoneMatch != "RALPH_DONE" || st.Shown != "paused" {
		t.Fatalf("paused state: done match %q, shown %q", st.DoneMatch, st.Shown)
	}
	h.resume(contract.ExitDone, "done_pattern")
	if st := h.state(); st.CurrentIteration != 1 || st.Shown != "done" {
		t.Errorf("ended at iteration %d shown %q, want 1 done; output:\n%s", st.CurrentIteration, st.Shown, h.out.String())
	}
	if strings.Contains(h.out.String(), "starting iteration 2") {
		t.Errorf("the loop ran on after its done signal:\n%s", h.out.String())
	}
}

// Paused between iterations, the agent gone and its pane dead: tmux pipes
// no dead pane, so the resumed watcher reads the output once the next agent
// runs, and that agent's done token ends the loop at once.
func TestAResumeOnADeadPaneStillSeesTheDoneToken(t *testing.T) {
	t.Parallel()
	h := newDoneHarness(t, "ready\nread\nprint working\niter 2 print all tasks complete\niter 2 print RALPH_DONE\niter 2 sleep 120s\nexit 0\n", true)
	h.pauseAfterIteration1()
	if p, err := h.srv.Client.Pane(h.cfg.Pane); err != nil || !p.Dead {
		t.Fatalf("the pane should be dead while paused: %+v %v", p, err)
	}
	h.resume(contract.ExitDone, "done_pattern")
	if strings.Contains(h.out.String(), "will not be checked") {
		t.Errorf("the resumed watcher gave up on the pane's output:\n%s", h.out.String())
	}
}

// The same through the end: the agent prints the token and exits at once.
// The pane goes back to a shell, and gets its own remain-on-exit back, not
// the "on" the first watcher left on it when it paused.
func TestAResumedLoopEndsAtAShellWithThePanesOwnRemainOnExit(t *testing.T) {
	t.Parallel()
	h := newDoneHarness(t, "ready\nread\nprint working\niter 2 print RALPH_DONE\nexit 0\n", true)
	h.cfg.EndCommand = "/bin/sh"
	h.pauseAfterIteration1()
	h.resume(contract.ExitDone, "done_pattern")
	if p, err := h.srv.Client.Pane(h.cfg.Pane); err != nil || p.Dead {
		t.Errorf("the pane is left dead after the loop: %+v %v", p, err)
	}
	if v, set, _ := h.srv.Client.PaneOption(h.cfg.Pane, "remain-on-exit"); set {
		t.Errorf("remain-on-exit is %q on the pane, want it unset as before the loop", v)
	}
}

func TestAnEndedLoopLeavesThePaneAtAShell(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", []string{"/bin/sh", "-c", "clear; echo worked; exit 0"})
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.MaxIterations = 1
	h.cfg.EndCommand = "/bin/sh"
	h.wantResult(h.run(30*time.Second), contract.ExitDone, "max_iterations")
	got := h.srv.Must("display-message", "-p", "-t", h.cfg.Pane, "#{pane_dead}|#{pane_current_command}|#{pane_current_path}")
	if want := "0|sh|" + h.srv.Dir; strings.TrimSpace(got) != want {
		t.Errorf("pane dead|command|folder = %q, want %q", strings.TrimSpace(got), want)
	}
	// The respawn cleared the screen; what the agent showed last is there again, once.
	tmuxtest.Eventually(t, 5*time.Second, "the agent's last output", func() bool {
		return strings.Count(h.srv.Capture(h.cfg.Pane), "worked") == 1
	})
	if shown := h.srv.Capture(h.cfg.Pane); strings.Contains(shown, "Pane is dead") {
		t.Errorf("tmux's dead-pane line came back:\n%s", shown)
	}
}

// endedWithALinger is a loop of one iteration that has ended, with the
// status line's linger set to 2 s.
func endedWithALinger(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, "go", []string{"/bin/sh", "-c", "exit 0"})
	h.cfg.PromptMode = agent.ModeArg
	h.cfg.MaxIterations = 1
	h.srv.Must("set-option", "-g", contract.LingerOption, "2")
	h.wantResult(h.run(30*time.Second), contract.ExitDone, "max_iterations")
	return h
}

func TestAnEndedLoopLeavesTheStatusLineAfterItsLinger(t *testing.T) {
	t.Parallel()
	h := endedWithALinger(t)
	if got := h.srv.Option(h.cfg.Pane, "@ralph-state") + "|" + h.srv.Option(h.cfg.Pane, "@ralph-live"); got != "done|" {
		t.Errorf("just ended: state|live = %q, want done|", got)
	}
	if h.srv.Option(h.cfg.Pane, "@ralph-ended") == "" {
		t.Error("no @ralph-ended")
	}
	tmuxtest.Eventually(t, 15*time.Second, "the options to go", func() bool {
		return strings.TrimSpace(h.srv.Must("show-options", "-p", "-t", h.cfg.Pane)) == ""
	})
}

func TestTheLingerKeepsALoopThatTookThePaneSince(t *testing.T) {
	t.Parallel()
	h := endedWithALinger(t)
	h.srv.Must("set-option", "-p", "-t", h.cfg.Pane, "@ralph-ended", "1") // as another loop's end would
	time.Sleep(4 * time.Second)
	if got := h.srv.Option(h.cfg.Pane, "@ralph-state"); got != "done" {
		t.Errorf("@ralph-state = %q after the linger of another loop's end", got)
	}
}

func TestTheLoopTellsThePersonOncePerEvent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	// A question that waits, is answered (any key), then the agent finishes.
	h.cfg.Command = h.agent("ready\nread\nprint Do you want to proceed?\nprint ❯ 1. Yes\nprint   2. No\nread\nprint done with it\nexit 0\n")
	h.asAgent("claude")
	h.cfg.ReadyPattern = regexp.MustCompile(`^❯ `) // the fake draws no "? for shortcuts"
	h.cfg.MaxIterations = 1
	h.cfg.InactivityTimeout = 60 * time.Second
	notes := filepath.Join(h.srv.Dir, "notes")
	h.srv.Must("set-option", "-g", pane.NotifyOption, `printf '%s|%s\n' "$RALPH_STATE" "$RALPH_MESSAGE" >> `+shQuote(notes))
	// A person's client, looking at another window: the loop's bell flag rises.
	attach(t, h.srv)
	other := strings.TrimSpace(h.srv.Must("new-window", "-d", "-P", "-F", "#{window_id}"))
	h.srv.Must("select-window", "-t", other)
	bell := make(chan string, 1)
	go func() {
		tmuxtest.Eventually(t, 30*time.Second, "needs input", func() bool {
			return h.srv.Option(h.cfg.Pane, "@ralph-state") == "needs-input"
		})
		time.Sleep(3 * time.Second) // several looks at the same question
		bell <- h.srv.Must("display-message", "-p", "-t", h.cfg.Pane, "#{window_bell_flag}")
		h.srv.Must("send-keys", "-t", h.cfg.Pane, "1", "Enter")
	}()
	h.wantResult(h.run(60*time.Second), contract.ExitDone, "max_iterations")
	if got := strings.TrimSpace(<-bell); got != "1" {
		t.Errorf("window_bell_flag = %q while a question waits", got)
	}
	var got string
	tmuxtest.Eventually(t, 10*time.Second, "two notices", func() bool {
		b, _ := os.ReadFile(notes)
		got = string(b)
		return strings.Count(got, "\n") >= 2
	})
	time.Sleep(500 * time.Millisecond)
	b, _ := os.ReadFile(notes)
	want := "needs-input|[ralph] test: needs input in iteration 1/1 (the agent is asking a question)\n" +
		"done|[ralph] test: done after 1 iteration\n"
	if string(b) != want {
		t.Errorf("notices:\n%s\nwant:\n%s", b, want)
	}
	shown := h.srv.Must("show-messages")
	for _, m := range []string{" message: [ralph] test: needs input in iteration 1/1", " message: [ralph] test: done after 1 iteration"} {
		if n := strings.Count(shown, m); n != 1 {
			t.Errorf("the client was shown %q %d times:\n%s", m, n, shown)
		}
	}
}

// attach attaches a client to session main through a pseudo-terminal, as a
// person looking at it.
func attach(t *testing.T, srv *tmuxtest.Server) {
	t.Helper()
	cmd := exec.Command("tmux", "-S", srv.Socket, "attach-session", "-t", "main")
	cmd.Env = append(srv.Env, "TERM=xterm-256color")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, tty) }()
	t.Cleanup(func() {
		tty.Close()
		cmd.Process.Kill()
		_ = cmd.Wait()
	})
	tmuxtest.Eventually(t, 10*time.Second, "the client to attach", func() bool {
		out, _ := srv.Tmux("list-clients", "-F", "#{client_name}")
		return strings.TrimSpace(out) != ""
	})
}

func TestAReadyPatternWithATrailingSpaceMatchesAndTheWaitShows(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "go", nil)
	h.cfg.Command = h.agent("print loading\nsleep 3s\nready\nread\n" + h.savePrompt() + "exit 0\n")
	h.cfg.ReadyPattern = regexp.MustCompile(`^❯ `)
	h.cfg.ReadyTimeout = 40 * time.Second
	h.cfg.MaxIterations = 1
	shown := make(chan string, 1)
	go func() {
		tmuxtest.Eventually(t, 30*time.Second, "loading", func() bool {
			return strings.Contains(h.srv.Capture(h.cfg.Pane), "loading")
		})
		st, _ := h.store.Load()
		shown <- h.srv.Option(h.cfg.Pane, "@ralph-state") + "|" + h.srv.Option(h.cfg.Pane, "@ralph-reason") + "|" + st.Shown
	}()
	start := time.Now()
	h.wantResult(h.run(60*time.Second), contract.ExitDone, "max_iterations")
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %s: the ready pattern did not match", took)
	}
	if strings.Contains(h.out.String(), "did not become ready") {
		t.Errorf("the ready pattern did not match:\n%s", h.out.String())
	}
	if got := h.received(1); got != "go" {
		t.Errorf("agent received %q", got)
	}
	if want := "starting|the agent to be ready (its input box to show)|starting"; <-shown != want {
		t.Errorf("while waiting: want %q", want)
	}
}

// An agent that prints the done token and exits only later, after the loop
// is over, leaves the pane at the end command, not dead, and the loop does
// not wait for it.
func TestAnAgentThatExitsAfterTheLoopEndedLeavesTheEndCommand(t *testing.T) {
	t.Parallel()
	h := newDoneHarness(t, "ready\nread\nprint working\nprint RALPH_DONE\nsleep 3s\nexit 0\n", true)
	h.cfg.EndCommand = "/bin/sh"
	h.wantResult(h.run(60*time.Second), contract.ExitDone, "done_pattern")
	if p, err := h.srv.Client.Pane(h.cfg.Pane); err != nil || p.Dead {
		t.Fatalf("the agent did not run on after the loop: %+v %v", p, err)
	}
	// The wrapper takes the file, then becomes the end command.
	deadline := time.Now().Add(30 * time.Second)
	for {
		command := strings.TrimSpace(h.srv.Must("display-message", "-p", "-t", h.cfg.Pane, "#{pane_dead} #{pane_current_command}"))
		_, err := os.Stat(h.store.Path(state.AfterExitFile))
		if command == "0 sh" && os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane after the agent's exit: %q, want a live sh; the end command's file: %v", command, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // the shell stays: it is the pane's now
	if command := strings.TrimSpace(h.srv.Must("display-message", "-p", "-t", h.cfg.Pane, "#{pane_dead} #{pane_current_command}")); command != "0 sh" {
		t.Errorf("pane after the end command started: %q, want a live sh", command)
	}
}
