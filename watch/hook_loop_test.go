package watch_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// events collects what a loop tells its listener.
type events struct {
	mu  sync.Mutex
	got []contract.Event
}

func (e *events) add(ev contract.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ev)
}

// has reports whether iteration told kind, known via.
func (e *events) has(iteration int, kind contract.EventKind, via string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.got {
		if ev.Iteration == iteration && ev.Kind == kind && ev.Via == via {
			return true
		}
	}
	return false
}

// timings prints, per iteration, when each thing was learned and how.
func (e *events) timings() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	last := 0
	for _, ev := range e.got {
		if ev.Iteration != last {
			fmt.Fprintf(&b, "iteration %d:", ev.Iteration)
			last = ev.Iteration
		}
		fmt.Fprintf(&b, " %s", ev.Kind)
		if ev.Via != "" {
			fmt.Fprintf(&b, "/%s", ev.Via)
		}
		fmt.Fprintf(&b, " %.2fs", ev.After.Seconds())
		if ev.Kind == contract.EventTurnEnd || ev.Kind == contract.EventExit {
			b.WriteString("\n")
			last = 0
		}
	}
	return b.String()
}

// first returns when iteration first told kind, and how it was known.
func (e *events) first(iteration int, kind contract.EventKind) (time.Duration, string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.got {
		if ev.Iteration == iteration && ev.Kind == kind {
			return ev.After, ev.Via, true
		}
	}
	return 0, "", false
}

// last returns when iteration last told kind, and how it was known.
func (e *events) last(iteration int, kind contract.EventKind) (time.Duration, string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.got) - 1; i >= 0; i-- {
		if ev := e.got[i]; ev.Iteration == iteration && ev.Kind == kind {
			return ev.After, ev.Via, true
		}
	}
	return 0, "", false
}

func (e *events) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, ev := range e.got {
		b.WriteString(string(ev.Kind) + "/" + ev.Via + " ")
	}
	return b.String()
}

// hooked prepares h to loop a fake Claude Code whose hooks call back into
// this process (the watcher a hook wakes); it returns the loop to run.
func (h *harness) hooked(script string) (*events, func(time.Duration) watch.Result) {
	h.t.Helper()
	wake := turnHookWake(h.t)
	h.cfg.Command = h.agentNamed("claude", script)
	h.asAgent("claude")
	h.cfg.TurnHook = true
	h.cfg.Executable = tmuxtest.Build(h.t, "cmd/ralph-watch")
	h.cfg.InactivityTimeout = 5 * time.Minute
	ev := &events{}
	h.cfg.Events = ev.add
	return ev, func(timeout time.Duration) watch.Result {
		h.t.Helper()
		return h.runWoken(wake, timeout)
	}
}

// newRelease draws no string the claude profile knows: no "? for
// shortcuts", no finished line, no "esc to interrupt". Only its hooks tell.
const newRelease = `hook SessionStart {"transcript_path":"/tmp/session/{{iteration}}.jsonl","source":"startup"}
print   ⏻ a footer no profile has seen
ready
read
hook UserPromptSubmit {"prompt":"x"}
echo
spinner 500ms
print ● Done with iteration {{iteration}}.
hook Stop
quiet
`

func TestHooksTellReadySubmitAndTurnEndWhenTheScreenSaysNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "do the work", nil)
	ev, run := h.hooked(newRelease)
	h.cfg.Agent.IdleGrace = 0 // only a hook may end the turn
	h.cfg.PollInterval = 10 * time.Second
	h.cfg.ReadyTimeout = time.Minute
	h.cfg.MaxIterations = 2
	res := run(60 * time.Second)
	h.wantResult(res, contract.ExitDone, "max_iterations")
	h.wantOutput("iteration 1 completed (turn ended", "iteration 2 completed (turn ended")
	if strings.Contains(h.out.String(), "did not become ready") || strings.Contains(h.out.String(), "did not report") {
		t.Errorf("a hook was not heard:\n%s", h.out.String())
	}
	for i := 1; i <= 2; i++ {
		for _, want := range []struct {
			kind contract.EventKind
			via  string
		}{{contract.EventReady, contract.ViaHook}, {contract.EventSubmitted, contract.ViaHook}, {contract.EventTurnEnd, contract.ViaHook}} {
			if !ev.has(i, want.kind, want.via) {
				t.Errorf("iteration %d: no %s event via %s; events: %s", i, want.kind, want.via, ev)
			}
		}
	}
	if b, _ := os.ReadFile(h.store.Path(state.TranscriptFile)); string(b) != "/tmp/session/2.jsonl\n" {
		t.Errorf("transcript file = %q, want the last session's", b)
	}
}

// A release whose footer no profile string matches, with hooks off: the
// agent-agnostic signals (bracketed paste on, a still screen and cursor,
// its processes idle) tell that it is ready and that its turn is over.
func TestScreenSignalsStandInWhenTheProfilesStringsDoNotMatch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "do the work", nil)
	h.cfg.Command = h.agent("print   ⏻ a footer no profile has seen\nready\nread\necho\nspinner 1s\nprint ● Done.\nready\nquiet\n")
	h.asAgent("claude")
	h.cfg.ReadyTimeout = 5 * time.Minute // far beyond the test's timeout
	h.cfg.InactivityTimeout = 5 * time.Minute
	ev := &events{}
	h.cfg.Events = ev.add
	h.cfg.MaxIterations = 2
	res := h.run(60 * time.Second)
	h.wantResult(res, contract.ExitDone, "max_iterations")
	h.wantOutput("iteration 1 completed (turn ended", "iteration 2 completed (turn ended")
	for i := 1; i <= 2; i++ {
		if !ev.has(i, contract.EventReady, contract.ViaIdle) || !ev.has(i, contract.EventTurnEnd, contract.ViaIdle) {
			t.Errorf("iteration %d: want ready and turn end by the idle signals; events: %s", i, ev)
		}
	}
}

// Claude Code's Stop hook can run before a busy machine has drawn the
// reply: the done token that comes 1.2 s after the hook, the agent
// still drawing meanwhile, is this iteration's and ends the loop.
func TestADoneTokenDrawnAfterTheTurnEndHookEndsTheLoop(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "do the work", nil)
	ev, run := h.hooked(`ready
read
echo
hook Stop
spinner 1200ms
print RALPH_DONE_AFTER_THE_HOOK
quiet
`)
	h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_AFTER_THE_HOOK`)
	h.cfg.MaxIterations = 2
	res := run(60 * time.Second)
	h.wantResult(res, contract.ExitDone, "done_pattern")
	if strings.Contains(h.out.String(), "starting iteration 2") {
		t.Errorf("the token drawn after the hook was missed:\n%s\nevents: %s", h.out.String(), ev)
	}
}

// Claude Code's Stop hook fired, and then it drew a notice that waits for
// a key (auto mode's "Enter to continue · Esc to cancel"): the loop asks
// the person rather than ending the turn, and once Enter is pressed the
// agent takes the box away (as Claude Code redraws it) and goes on, and
// its next Stop hook ends the iteration.
func TestABoxDrawnAfterTheStopHookIsAQuestionNotTheTurnsEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "do the work", nil)
	ev, run := h.hooked(`ready
read
echo
hook UserPromptSubmit {"prompt":"x"}
spinner 500ms
hook Stop
print ● Waiting for permission…
print ╭────────────────────────────────────────╮
print │ We're changing auto mode               │
print │ Enter to continue · Esc to cancel      │
print ╰────────────────────────────────────────╯
key
write \e[5A\e[J
print ● Ran it: ANSWERED_{{iteration}}
hook Stop
quiet
`)
	h.cfg.MaxIterations = 1
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		tmuxtest.Eventually(t, 60*time.Second, "the pane to show needs-input", func() bool {
			return h.srv.Option(h.cfg.Pane, contract.OptionState) == "needs-input"
		})
		time.Sleep(time.Second) // a turn's end taken from the hook would come meanwhile
		if strings.Contains(h.out.String(), "completed") {
			t.Errorf("the iteration ended with the box waiting:\n%s", h.out.String())
		}
		h.srv.Must("send-keys", "-t", h.cfg.Pane, "Enter")
	}()
	res := run(90 * time.Second)
	<-asked
	h.wantResult(res, contract.ExitDone, "max_iterations")
	h.wantOutput("the agent is asking a question", "iteration 1 completed (turn ended")
	if !strings.Contains(h.srv.Capture(h.cfg.Pane), "ANSWERED_1") {
		t.Errorf("the iteration ended before the box was answered:\n%s\nevents: %s", h.srv.Capture(h.cfg.Pane), ev)
	}
}
