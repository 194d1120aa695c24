package watch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// killable is a watcher's tmux that can be killed as kill -9 kills the
// watcher: from the call at which at says so, that call and every later
// one never return (the watcher does nothing more, writes nothing more)
// until release, after which they fail as with the server gone, so the
// dead loop's goroutine ends once the test has checked what it left.
type killable struct {
	tmux.Client
	at func(method string, args ...string) bool // called before each call, in order

	mu       sync.Mutex
	dead     bool
	killed   chan struct{} // closed at the kill
	released chan struct{}
}

func newKillable(c tmux.Client, at func(method string, args ...string) bool) *killable {
	return &killable{Client: c, at: at, killed: make(chan struct{}), released: make(chan struct{})}
}

// gate is every call's way in: it kills the watcher when at says so.
func (k *killable) gate(method string, args ...string) error {
	k.mu.Lock()
	if !k.dead && k.at(method, args...) {
		k.dead = true
		close(k.killed)
	}
	dead := k.dead
	k.mu.Unlock()
	if dead {
		<-k.released
		return &tmux.Error{Args: []string{method}, Msg: "no server running (the watcher was killed)"}
	}
	return nil
}

func (k *killable) release() { close(k.released) }

func (k *killable) Version() (string, error) {
	if err := k.gate("version"); err != nil {
		return "", err
	}
	return k.Client.Version()
}

func (k *killable) Pane(target string) (tmux.Pane, error) {
	if err := k.gate("pane", target); err != nil {
		return tmux.Pane{}, err
	}
	return k.Client.Pane(target)
}

func (k *killable) NewWindow(req tmux.NewWindowRequest) (string, error) {
	if err := k.gate("new-window"); err != nil {
		return "", err
	}
	return k.Client.NewWindow(req)
}

func (k *killable) Respawn(req tmux.RespawnRequest) (int, error) {
	if err := k.gate("respawn", req.Command...); err != nil {
		return 0, err
	}
	return k.Client.Respawn(req)
}

func (k *killable) Capture(req tmux.CaptureRequest) (string, error) {
	if err := k.gate("capture"); err != nil {
		return "", err
	}
	return k.Client.Capture(req)
}

func (k *killable) Snapshot(req tmux.CaptureRequest) (tmux.Pane, string, error) {
	if err := k.gate("snapshot"); err != nil {
		return tmux.Pane{}, "", err
	}
	return k.Client.Snapshot(req)
}

func (k *killable) Paste(pane, buffer string, text []byte) error {
	if err := k.gate("paste", string(text)); err != nil {
		return err
	}
	return k.Client.Paste(pane, buffer, text)
}

func (k *killable) SendKeys(pane string, keys ...string) error {
	if err := k.gate("send-keys", keys...); err != nil {
		return err
	}
	return k.Client.SendKeys(pane, keys...)
}

func (k *killable) SetPaneOptions(pane string, options []tmux.Option) error {
	if err := k.gate("set-option"); err != nil {
		return err
	}
	return k.Client.SetPaneOptions(pane, options)
}

func (k *killable) PaneOption(pane, name string) (string, bool, error) {
	if err := k.gate("show-option", name); err != nil {
		return "", false, err
	}
	return k.Client.PaneOption(pane, name)
}

func (k *killable) PipePane(pane, command string) error {
	if err := k.gate("pipe-pane"); err != nil {
		return err
	}
	return k.Client.PipePane(pane, command)
}

func (k *killable) Nudge() error {
	if err := k.gate("nudge"); err != nil {
		return err
	}
	return k.Client.Nudge()
}

func (k *killable) SocketPath() (string, error) {
	if err := k.gate("socket"); err != nil {
		return "", err
	}
	return k.Client.SocketPath()
}

func (k *killable) Message(pane, text string) error {
	if err := k.gate("message"); err != nil {
		return err
	}
	return k.Client.Message(pane, text)
}

func (k *killable) GlobalOption(name string) (string, error) {
	if err := k.gate("global-option", name); err != nil {
		return "", err
	}
	return k.Client.GlobalOption(name)
}

func (k *killable) Later(d time.Duration, command string) error {
	if err := k.gate("later"); err != nil {
		return err
	}
	return k.Client.Later(d, command)
}

// startKillable runs the loop on k in the background: the watcher to kill.
func (u *unit) startKillable(k *killable) <-chan watch.Result {
	done := make(chan watch.Result, 1)
	loop := &watch.Loop{Config: u.cfg, Tmux: k, Store: u.store, Clock: u.vc, Out: &u.out, Err: &u.out, Wake: u.wake}
	go func() { done <- loop.Run(context.Background()) }()
	return done
}

// killed runs the loop on k until k kills it; the result comes once released.
func (u *unit) killed(k *killable) <-chan watch.Result {
	u.t.Helper()
	dead := u.startKillable(k)
	select {
	case <-k.killed:
	case res := <-dead:
		u.t.Fatalf("the watcher ended (%+v) before it was killed; output:\n%s", res, u.out.String())
	case <-time.After(unitTimeout):
		u.t.Fatalf("the watcher was never killed; output:\n%s", u.out.String())
	}
	return dead
}

// iteration is the loop's iteration by its record, 0 before it has one.
func (u *unit) iteration() int {
	st, err := u.store.Load()
	if err != nil {
		return 0
	}
	return st.CurrentIteration
}

// killStep is a step of an iteration's start at which its watcher is killed,
// as a choice of the call to kill it at, once the agent of iteration 2 is due.
type killStep struct {
	name string
	at   func(method string, args ...string) (kill, next bool) // next: the step after this call
}

// killSteps are every step of a start at which a kill loses something.
var killSteps = []killStep{
	{"before its respawn", func(m string, _ ...string) (bool, bool) { return m == "respawn", false }},
	{"after its respawn, before it is ready", func(m string, _ ...string) (bool, bool) { return false, m == "respawn" }},
	{"after it is ready, before the paste", func(m string, _ ...string) (bool, bool) { return m == "paste", false }},
	{"between the paste and the Enter", func(m string, a ...string) (bool, bool) {
		return m == "send-keys" && len(a) > 0 && a[0] == "Enter", false
	}},
	{"after the Enter, before the record", func(m string, a ...string) (bool, bool) {
		return false, m == "send-keys" && len(a) > 0 && a[0] == "Enter"
	}},
}

// killAt is killable's at for step in iteration n, which iteration tells.
func killAt(step killStep, n int, iteration func() int) func(string, ...string) bool {
	next := false
	return func(method string, args ...string) bool {
		if next {
			return true
		}
		if iteration() < n {
			return false
		}
		kill, after := step.at(method, args...)
		next = after
		return kill
	}
}

// logText is iterations.log.
func (u *unit) logText() string { return strings.Join(u.logLines(), "\n") }

// A watcher killed at any step of an iteration's start, then resumed: the
// prompt of each iteration reaches its agent once, and no iteration ends
// without its prompt delivered.
func TestUnitAWatcherKilledAtAnyStepOfAStartDeliversEachPromptOnceAfterResume(t *testing.T) {
	for _, step := range killSteps {
		t.Run(step.name, func(t *testing.T) {
			u := newUnit(t, "go {{iteration}}", func(int) *tmuxfake.Program {
				return repl(func(t *tmuxfake.Term, input string) {
					t.Write("went: " + input)
					t.Exit(0)
				})
			})
			u.cfg.MaxIterations = 3
			k := newKillable(u.tmux, killAt(step, 2, u.iteration))
			dead := u.killed(k)
			u.cfg.Resume = true
			u.wantResult(u.run(), contract.ExitDone, "max_iterations")
			if got := u.pastes(); strings.Join(got, "|") != "go 1|go 2|go 3" {
				t.Errorf("pasted %q, want each iteration's prompt once", got)
			}
			screen := u.tmux.Screen(u.cfg.Pane)
			for n := 1; n <= 3; n++ {
				if c := strings.Count(u.logText(), fmt.Sprintf("[END] iteration %d ", n)); c != 1 {
					t.Errorf("iteration %d ended %d times\n%s", n, c, u.logText())
				}
			}
			if strings.Count(screen, "went: go 3") != 1 {
				t.Errorf("screen:\n%s", screen)
			}
			k.release()
			<-dead
		})
	}
}

// Killed after the Enter that sent the prompt to an agent that shows no
// echo of it: its prompt-submit hook says it went, and it is not typed again.
func TestUnitAWatcherKilledAfterTheSubmitTheHookSawDoesNotTypeThePromptAgain(t *testing.T) {
	var u *unit
	u = newUnit(t, "go {{iteration}}", func(int) *tmuxfake.Program {
		iteration, input := "", ""
		return &tmuxfake.Program{
			Start: func(t *tmuxfake.Term) {
				for _, e := range t.Env {
					if v, ok := strings.CutPrefix(e, "RALPH_ITERATION="); ok {
						iteration = v
					}
				}
				t.Write("> ")
			},
			Paste: func(t *tmuxfake.Term, text string) { input += text }, // shown nowhere
			Key: func(t *tmuxfake.Term, key string) {
				if key != "Enter" || input == "" {
					return
				}
				_ = agent.RecordHook(u.store, agent.HookPromptSubmit, iteration, "")
				t.Write("\nworking\n")
				input = "" // working on, as long as the loop lets it
			},
		}
	})
	u.cfg.MaxIterations, u.cfg.InactivityTimeout = 3, time.Minute
	k := newKillable(u.tmux, killAt(killSteps[4], 2, u.iteration))
	dead := u.killed(k)
	if !u.state().PromptPending {
		t.Fatalf("killed after the Enter, the record should still say the prompt is being typed")
	}
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if got := u.pastes(); strings.Join(got, "|") != "go 1|go 2|go 3" {
		t.Errorf("pasted %q, want each iteration's prompt once", got)
	}
	u.wantOutput("the agent took the prompt before the last watcher stopped")
	k.release()
	<-dead
}

// A server killed mid-iteration, then restore (which records the iteration
// cut short) and the resumed watcher: the cut iteration gets its receipt,
// with what its agent wrote to its session.
func TestUnitAnIterationARestartCutShortGetsItsReceiptWithWhatTheAgentWrote(t *testing.T) {
	u := newUnit(t, "work", nil)
	path := filepath.Join(u.cfg.Dir, "session.jsonl")
	if err := u.store.WriteFile(state.TranscriptFile, []byte(path+"\n")); err != nil {
		t.Fatal(err)
	}
	u.launch(func(int) *tmuxfake.Program {
		return repl(func(t *tmuxfake.Term, input string) {
			line := fmt.Sprintf(`{"type":"assistant","timestamp":"%s","message":{"id":"msg_%d","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":10,"output_tokens":5}}}`,
				u.clock.Now().UTC().Format(time.RFC3339Nano), len(u.started()))
			if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
				fmt.Fprintln(f, line)
				f.Close()
			}
			u.mark("answered")
			t.Write("working on\n")
		})
	})
	u.cfg.Agent = knownAgent()
	u.cfg.Agent.Name = "claude"
	u.cfg.MaxIterations = 1
	k := newKillable(u.tmux, func(string, ...string) bool { _, ok := u.marked("answered"); return ok })
	dead := u.killed(k)
	// What restore does for a loop whose server went away (control.Rearm.revive).
	st := u.state()
	st.LastIterationEnded = state.Stamp(u.clock.Now())
	if err := u.store.Save(st); err != nil {
		t.Fatal(err)
	}
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	rs := u.receipts()
	if len(rs) != 1 || rs[0].Iteration != 1 || rs[0].Source != path || rs[0].Usage.Output != 5 || rs[0].CostUSD == nil {
		t.Errorf("receipts %+v, want iteration 1's with what its agent wrote", rs)
	}
	k.release()
	<-dead
}

// Killed between the paste and the Enter, to an agent that shows nothing of
// a paste and reports no hook: the text is in its input, so the resumed
// watcher presses Enter alone; pasting it again would send it twice.
func TestUnitAWatcherKilledBetweenThePasteAndTheEnterOfANonEchoingAgentPastesOnce(t *testing.T) {
	var submitted []string
	u := newUnit(t, "go {{iteration}}", func(int) *tmuxfake.Program {
		input := ""
		return &tmuxfake.Program{
			Start: func(t *tmuxfake.Term) { t.Write("> ") },
			Paste: func(t *tmuxfake.Term, text string) { input += text }, // shown nowhere
			Key: func(t *tmuxfake.Term, key string) {
				if key != "Enter" || input == "" {
					return
				}
				submitted = append(submitted, input)
				t.Write("\nwent: " + input + "\n")
				t.Exit(0)
			},
		}
	})
	u.cfg.MaxIterations = 3
	k := newKillable(u.tmux, killAt(killSteps[3], 2, u.iteration))
	dead := u.killed(k)
	u.cfg.Resume = true
	u.wantResult(u.run(), contract.ExitDone, "max_iterations")
	if got := strings.Join(submitted, "|"); got != "go 1|go 2|go 3" {
		t.Errorf("the agent was sent %q, want each iteration's prompt once", got)
	}
	k.release()
	<-dead
}
