package watch_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// harness is one loop on a private server, with its output and state.
type harness struct {
	t     *testing.T
	srv   *tmuxtest.Server
	cfg   watch.Config
	store *state.Store
	out   tmuxtest.Buffer
}

func newHarness(t *testing.T, prompt string, command []string) *harness {
	t.Helper()
	srv := tmuxtest.Start(t)
	h := &harness{t: t, srv: srv}
	promptFile := filepath.Join(srv.Dir, "PROMPT.md")
	if err := os.WriteFile(promptFile, []byte(prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	h.cfg = watch.Config{
		Name:              "test",
		Pane:              srv.NewPane(),
		Dir:               srv.Dir,
		Command:           command,
		PromptFile:        promptFile,
		PromptMode:        agent.ModeType,
		MaxIterations:     3,
		InactivityTimeout: 30 * time.Second,
		PollInterval:      200 * time.Millisecond,
		ReadyTimeout:      10 * time.Second,
		Lines:             20,
	}
	store, err := state.Open(filepath.Join(srv.Dir, "state"), "test")
	if err != nil {
		t.Fatal(err)
	}
	h.store = store
	return h
}

func (h *harness) agent(script string) []string { return h.srv.FakeAgent("agent", script) }

// savePrompt is the fake agent's step that saves the prompt it read, for received.
func (h *harness) savePrompt() string {
	return "save " + filepath.Join(h.srv.Dir, "got-{{iteration}}") + "\n"
}

// received is the prompt the agent of iteration i saved with savePrompt; "" if none.
func (h *harness) received(i int) string {
	data, _ := os.ReadFile(filepath.Join(h.srv.Dir, "got-"+strconv.Itoa(i)))
	return string(data)
}

// loop is the loop the harness is set up for; wake tells it of a request
// or a hook's report, or is nil.
func (h *harness) loop(wake <-chan os.Signal) *watch.Loop {
	return &watch.Loop{Config: h.cfg, Tmux: h.srv.Client, Store: h.store, Out: &h.out, Err: &h.out, Wake: wake}
}

// run runs the loop to its end, failing the test if it takes over timeout.
func (h *harness) run(timeout time.Duration) watch.Result {
	h.t.Helper()
	return h.runWoken(nil, timeout)
}

// runWoken is run with wake telling the loop of a request or a hook's report.
func (h *harness) runWoken(wake <-chan os.Signal, timeout time.Duration) watch.Result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res := h.loop(wake).Run(ctx)
	if ctx.Err() != nil {
		h.t.Fatalf("loop still running after %s; output:\n%s", timeout, h.out.String())
	}
	return res
}

func (h *harness) state() *state.State {
	h.t.Helper()
	st, err := h.store.Load()
	if err != nil {
		h.t.Fatal(err)
	}
	return st
}

func (h *harness) wantOutput(lines ...string) {
	h.t.Helper()
	for _, l := range lines {
		if !strings.Contains(h.out.String(), l) {
			h.t.Errorf("output lacks %q; output:\n%s", l, h.out.String())
		}
	}
}

// wantLogged fails the test unless iterations.log holds every one of lines.
func (h *harness) wantLogged(lines ...string) {
	h.t.Helper()
	data, _ := os.ReadFile(h.store.Path(state.LogFile))
	for _, l := range lines {
		if !strings.Contains(string(data), l) {
			h.t.Errorf("iterations.log lacks %q:\n%s", l, data)
		}
	}
}

func (h *harness) iterationsLog() string {
	data, _ := os.ReadFile(h.store.Path(state.LogFile))
	return string(data)
}

func (h *harness) gitInit() { gitInit(h.t, h.srv.Dir) }

func (h *harness) git(args ...string) string { return git(h.t, h.srv.Dir, args...) }

func (h *harness) wantResult(got watch.Result, code int, reason string) {
	h.t.Helper()
	if got.Code != code || string(got.Reason) != reason {
		h.t.Errorf("result = %+v, want code %d reason %q; output:\n%s", got, code, reason, h.out.String())
	}
}

// trickyPrompt has everything a shell, tmux or a terminal likes to eat.
const trickyPrompt = "line one;\n\tindented with a tab;\nunicode: ünïcødé ✓ 日本語\n#{pane_id} $HOME ~ $(echo no) `no`\nEnter C-c \\; ';' \"quoted\"\n\nlast line without newline;"

func TestTypeModeDeliversThePromptByteForByte(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("a line of a hundred kilobytes of prompt, with tabs\tand ünïcødé; ", 1700)[:100<<10]
	for _, tc := range []struct{ name, prompt string }{
		{"tricky", trickyPrompt},
		{"100KB", big},
		{"one word", "go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tc.prompt, nil)
			h.cfg.Command = h.agent("ready\nread\n" + h.savePrompt() + "exit 0\n")
			h.cfg.MaxIterations = 2
			res := h.run(60 * time.Second)
			h.wantResult(res, contract.ExitDone, "max_iterations")
			for i := 1; i <= 2; i++ {
				if got := h.received(i); got != tc.prompt {
					t.Errorf("iteration %d received %d bytes, want %d; first difference at %d\n%s", i, len(got), len(tc.prompt), firstDiff(got, tc.prompt), h.out.String())
				}
			}
			h.wantOutput("[ralph] test: starting iteration 1/2", "[ralph] test: iteration 2 completed (exit: 0", "[ralph] test: loop complete after 2 iterations")
		})
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestArgAndStdinModesPassThePromptByteForByte(t *testing.T) {
	for _, mode := range []string{agent.ModeArg, agent.ModeStdin} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, trickyPrompt, nil)
			got := filepath.Join(h.srv.Dir, "got")
			if mode == agent.ModeArg {
				h.cfg.Command = []string{"/bin/sh", "-c", `printf %s "$1" > "$0"`, got}
			} else {
				h.cfg.Command = []string{"/bin/sh", "-c", `cat > "$0"`, got}
			}
			h.cfg.PromptMode = mode
			h.cfg.MaxIterations = 1
			h.wantResult(h.run(30*time.Second), contract.ExitDone, "max_iterations")
			data, _ := os.ReadFile(got)
			if string(data) != trickyPrompt {
				t.Errorf("agent received %q\nwant %q", data, trickyPrompt)
			}
		})
	}
}

// echoes are agents that show the prompt (which names the done token) back
// in the ways terminals and TUIs do, before the agent's own work.
const donePrompt = "Work through the plan in PLAN.md. When every task is finished, print RALPH_DONE_42 on a line of its own.\n"

func TestDonePatternIgnoresTheEchoedPromptAndStopsOnTheAgentsToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, before string }{
		{"plain output", ""},
		{"clear", "print \\e[H\\e[2J"},
		{"clear with scrollback erase", "print \\e[H\\e[2J\\e[3J"},
		{"alternate screen", "alt"},
		{"history trimmed", "flood 600k"},
		{"redraws the prompt", "redraw\nredraw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, donePrompt, nil)
			h.cfg.Command = h.agent("print agent ready\nready\nread\necho\n" + tc.before + "\nprint working\niter 2 print RALPH_DONE_42\nexit 0\n")
			h.cfg.MaxIterations = 4
			h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
			h.cfg.CheckDoneContinuous = true
			res := h.run(60 * time.Second)
			h.wantResult(res, contract.ExitDone, "done_pattern")
			if st := h.state(); st.CurrentIteration != 2 {
				t.Errorf("stopped in iteration %d, want 2; output:\n%s", st.CurrentIteration, h.out.String())
			}
			h.wantOutput("[ralph] test: done pattern matched, stopping loop")
		})
	}
}

func TestDonePatternSurvivesAWidthChange(t *testing.T) {
	t.Parallel()
	h := newHarness(t, donePrompt, nil)
	h.cfg.Command = h.agent("ready\nread\necho\nsleep 1500ms\nredraw\nprint working\niter 2 print RALPH_DONE_42\nexit 0\n")
	h.cfg.MaxIterations = 3
	h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
	go func() {
		for i := 0; i < 20; i++ {
			time.Sleep(300 * time.Millisecond)
			_, _ = h.srv.Tmux("resize-window", "-t", h.cfg.Pane, "-x", []string{"40", "120"}[i%2])
		}
	}()
	res := h.run(60 * time.Second)
	h.wantResult(res, contract.ExitDone, "done_pattern")
	if st := h.state(); st.CurrentIteration != 2 {
		t.Errorf("stopped in iteration %d, want 2; output:\n%s", st.CurrentIteration, h.out.String())
	}
}
