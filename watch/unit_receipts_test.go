package watch_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// lateTranscript is a Claude Code whose transcript its hook told: at the
// prompt it writes the prompt there, prints the done token, and writes its
// answer (10 in, 5 out) lag later, or never when lag is 0; it runs on.
func (u *unit) lateTranscript(lag time.Duration) string {
	path := filepath.Join(u.cfg.Dir, "session.jsonl")
	if err := u.store.WriteFile(state.TranscriptFile, []byte(path+"\n")); err != nil {
		u.t.Fatal(err)
	}
	write := func(line string) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			u.t.Error(err)
			return
		}
		defer f.Close()
		fmt.Fprintf(f, line+"\n", u.clock.Now().UTC().Format(time.RFC3339Nano))
	}
	u.launch(func(int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, input string) {
			write(`{"type":"user","timestamp":"%s","message":{"role":"user","content":"work"}}`)
			u.mark("done")
			t.Write("all tests pass\nRALPH_DONE\n")
			if lag > 0 {
				u.schedule(lag, func() {
					write(`{"type":"assistant","timestamp":"%s","message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"RALPH_DONE"}],"usage":{"input_tokens":10,"output_tokens":5}}}`)
				})
			}
		})
	})
	u.cfg.Agent = knownAgent()
	u.cfg.Agent.Name = "claude"
	u.cfg.DonePattern = regexp.MustCompile(`^RALPH_DONE$`)
	u.cfg.CheckDoneContinuous = true
	u.cfg.MaxIterations = 3
	return path
}

func (u *unit) receipts() []receipt.Receipt {
	u.t.Helper()
	rs, err := receipt.Load(u.store.Path(state.ReceiptsFile))
	if err != nil {
		u.t.Fatal(err)
	}
	return rs
}

// The done token is on screen before Claude Code writes the turn to its
// transcript: the receipt waits for the turn, and counts it.
func TestUnitTheDoneIterationsReceiptWaitsForTheTranscriptToHoldTheTurn(t *testing.T) {
	u := newUnit(t, "work until finished", nil)
	u.simulate()
	path := u.lateTranscript(300 * time.Millisecond)
	u.wantResult(u.run(), contract.ExitDone, "done_pattern")
	rs := u.receipts()
	if len(rs) != 1 || rs[0].Source != path || rs[0].Usage.Input != 10 || rs[0].Usage.Output != 5 || rs[0].Usage.Turns != 1 {
		t.Fatalf("receipts = %+v, want iteration 1 with 10 in, 5 out from %s", rs, path)
	}
	u.wantLog("[COST] iteration 1 tokens in=10 out=5")
}

// A transcript that never gets the turn holds the loop up a few seconds at
// most.
func TestUnitATranscriptThatNeverGetsTheTurnDelaysTheReceiptAFewSecondsAtMost(t *testing.T) {
	u := newUnit(t, "work until finished", nil)
	u.simulate()
	u.lateTranscript(0)
	u.wantResult(u.run(), contract.ExitDone, "done_pattern")
	done, ok := u.marked("done")
	if !ok {
		t.Fatal("the agent never printed the done token")
	}
	if took := clock.Since(u.clock, done); took > 5*time.Second {
		t.Errorf("the loop ended %s after the done token, want a few seconds at most", took)
	}
	if rs := u.receipts(); len(rs) != 1 || rs[0].Usage.Sum() != 0 {
		t.Errorf("receipts = %+v, want one with nothing in it", rs)
	}
}

// The watcher's beat: on the pane while its loop runs, renewed while it
// does, gone once it pauses (no watcher runs a paused loop), so that the
// status line marks only a loop whose watcher died.
func TestUnitTheWatchersBeatIsOnThePaneWhileTheLoopRunsAndGoneWhenItPauses(t *testing.T) {
	u := newUnit(t, "work", working(nil))
	u.cfg.Agent = knownAgent()
	u.cfg.BeatEvery = 50 * time.Millisecond // real time, as the status line's clock
	u.manual()                              // the loop waits, in real time, while the agent works
	done := u.start()
	running := func(st *state.State) bool { return st.Shown == contract.StatusRunning.String() }
	for st, _ := u.store.Load(); st == nil || !running(st); st, _ = u.store.Load() {
		u.clock.Advance(50 * time.Millisecond) // until the prompt is in
		time.Sleep(time.Millisecond)
	}
	beat := func() int64 {
		v, _, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionBeat)
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	if b := beat(); b < time.Now().Unix()-2 || b > time.Now().Unix() {
		t.Errorf("%s = %d while the loop runs, want about %d", contract.OptionBeat, b, time.Now().Unix())
	}
	_ = u.tmux.SetPaneOptions(u.cfg.Pane, []tmux.Option{{Name: contract.OptionBeat, Value: "1"}}) // as an old beat
	realSoon(t, "the beat renewed", func() bool { return beat() > 1 })
	_ = u.store.Request(state.RequestPause)
	var res watch.Result
	for paused := false; !paused; {
		select {
		case res = <-done:
			paused = true
		case <-time.After(time.Millisecond):
			u.clock.Advance(time.Second) // to the loop's next look at its requests
		}
	}
	u.wantResult(res, contract.ExitInterrupted, "paused")
	time.Sleep(150 * time.Millisecond) // three beats' time: none comes
	if v, ok, _ := u.tmux.PaneOption(u.cfg.Pane, contract.OptionBeat); ok && v != "" {
		t.Errorf("%s = %q on a paused loop, want none", contract.OptionBeat, v)
	}
}

// realSoon waits, in real time, until cond holds.
func realSoon(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// An agent started as `env HOME=… codex` that is gone before the loop could
// read its processes' environment: the command's own words tell its HOME.
func TestUnitACodexThatExitedAtOnceIsFoundUnderTheHomeItsCommandGave(t *testing.T) {
	u := newUnit(t, "write the file", nil)
	other := filepath.Join(u.cfg.Dir, "other-home")
	rollout := filepath.Join(other, ".codex", "sessions", "2026", "03", "14", "rollout-test.jsonl")
	if err := os.MkdirAll(filepath.Dir(rollout), 0o755); err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(filepath.Join("..", "testdata", "receipts", "codex-0.169.0.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	u.launch(func(int) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(term *tmuxfake.Term) {
			stamped := regexp.MustCompile(`"timestamp":"[^"]*"`).ReplaceAllString(string(fixture),
				`"timestamp":"`+u.clock.Now().UTC().Format(time.RFC3339Nano)+`"`)
			if err := os.WriteFile(rollout, []byte(strings.ReplaceAll(stamped, "/home/dev/proj", u.cfg.Dir)), 0o600); err != nil {
				t.Error(err)
			}
			term.Exit(0)
		}}
	})
	u.cfg.Command = []string{"env", "HOME=" + other, "codex", "exec"}
	u.cfg.PromptMode = agent.ModeArg
	u.cfg.Agent.Name = "codex"
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	want, err := receipt.ReadCodexFile(filepath.Join("..", "testdata", "receipts", "codex-0.169.0.jsonl"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if rs := u.receipts(); len(rs) != 1 || rs[0].Source != rollout || rs[0].Usage.Sum() != want.Sum() || want.Sum() == 0 {
		t.Errorf("receipts = %+v, want one from %s with %d tokens", rs, rollout, want.Sum())
	}
}
