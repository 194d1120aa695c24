package watch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// unitStart is where the virtual clock of a unit test starts.
var unitStart = time.Date(2026, 3, 14, 9, 0, 0, 0, time.Local)

// unit is one loop run against the fake tmux, in virtual time: its waits
// take none, so a test of hours of backoff and limits takes milliseconds.
// Its clock is automatic unless the test picks another: it jumps to each
// timer as soon as the loop asks for it, which is right while nothing
// happens but what the loop causes. manual lets the test move it, to tell
// exactly when the loop goes on; simulate moves it as time passes, so the
// agent can act on its own at set times (plan).
type unit struct {
	t         *testing.T
	tmux      *tmuxfake.Client
	clock     *clock.Fake
	store     *state.Store
	cfg       watch.Config
	out       tmuxtest.Buffer
	vc        *virtual         // the loop's clock, over clock
	simulated bool             // a driver moves the clock (see simulate)
	interrupt func()           // ends the running loop as SIGINT would (set while it runs)
	quiet     int              // >0: the driver steps after this many polls with no call, without reading stacks (loops run side by side)
	wake      <-chan os.Signal // the loop's Wake
	agent     func(n int) *tmuxfake.Program

	mu       sync.Mutex
	events   []string             // what the loop learnt of the agent, when (virtual)
	launches []time.Time          // when (virtual) each agent was started
	marks    map[string]time.Time // when (virtual) a program noted something
}

// newUnit sets up a loop in type mode whose agent, at its nth start, runs
// agent(n) (set later by launch when nil); the loop's other commands (a
// held pane, a shell) run nothing. The agent's program is "agent" unless
// the test names another in cfg.Command.
func newUnit(t *testing.T, prompt string, program func(n int) *tmuxfake.Program) *unit {
	t.Helper()
	u := &unit{t: t, clock: clock.NewAuto(unitStart), agent: program}
	u.vc = &virtual{Fake: u.clock}
	u.tmux = tmuxfake.New(func(argv []string) *tmuxfake.Program {
		if len(argv) == 0 || argv[0] != u.cfg.Command[0] {
			return nil
		}
		u.mu.Lock()
		u.launches = append(u.launches, u.clock.Now())
		n, agent := len(u.launches), u.agent
		u.mu.Unlock()
		return agent(n)
	})
	u.tmux.Crashed = func(why string) { t.Errorf("%s", why) }
	dir := memDir(t)
	pane, err := u.tmux.NewWindow(tmux.NewWindowRequest{Session: "main", Name: "loop", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	promptFile := filepath.Join(dir, "PROMPT.md")
	if err := os.WriteFile(promptFile, []byte(prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	if u.store, err = state.Open(filepath.Join(dir, "state"), "unit"); err != nil {
		t.Fatal(err)
	}
	u.cfg = watch.Config{
		Name:              "unit",
		Pane:              pane,
		Dir:               dir,
		Command:           []string{"agent"},
		PromptFile:        promptFile,
		PromptMode:        agent.ModeType,
		MaxIterations:     1,
		InactivityTimeout: time.Hour,
		PollInterval:      200 * time.Millisecond,
		ReadyTimeout:      time.Hour, // virtual: the stable screen decides, never the timeout
		Lines:             20,
		Events: func(e contract.Event) {
			u.mu.Lock()
			defer u.mu.Unlock()
			u.events = append(u.events, fmt.Sprintf("%s %s %s %s", u.clock.Now().Format("15:04:05.000"), e.Kind, e.Via, e.Detail))
		},
	}
	t.Cleanup(func() {
		if t.Failed() {
			u.mu.Lock()
			defer u.mu.Unlock()
			t.Logf("what the loop learnt (virtual time, event, how):\n%s", strings.Join(u.events, "\n"))
		}
	})
	return u
}

// unitTimeout bounds a loop on the virtual clock in real time: it needs a
// few milliseconds, but a machine busy with a whole suite can starve it.
const unitTimeout = time.Minute

// run runs the loop to its end.
func (u *unit) run() watch.Result {
	u.t.Helper()
	res, ok := u.runFor(unitTimeout)
	if !ok {
		u.t.Fatalf("loop still running after %s; output:\n%s", unitTimeout, u.out.String())
	}
	return res
}

// runFor runs the loop; ok is false when it ran longer than timeout (real).
func (u *unit) runFor(timeout time.Duration) (res watch.Result, ok bool) {
	return u.runOn(u.tmux, nil, timeout)
}

// runOn runs the loop on client (the fake, or a killable over it); a
// simulated clock is driven until the loop ends or halt is closed (its
// watcher killed: the next watcher drives it).
func (u *unit) runOn(client tmux.Client, halt <-chan struct{}, timeout time.Duration) (res watch.Result, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	u.mu.Lock()
	u.interrupt = cancel
	u.mu.Unlock()
	if u.simulated {
		stop := make(chan struct{})
		defer close(stop)
		go u.drive(stop, halt)
	}
	loop := &watch.Loop{Config: u.cfg, Tmux: client, Store: u.store, Clock: u.vc, Out: &u.out, Err: &u.out, Wake: u.wake}
	res = loop.Run(ctx)
	u.tmux.Close()
	return res, !errors.Is(ctx.Err(), context.DeadlineExceeded) // an interrupt the test made is no timeout
}

// launch sets what the agent runs at its nth start.
func (u *unit) launch(agent func(n int) *tmuxfake.Program) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.agent = agent
}

// start runs the loop in the background; its result comes on the channel.
func (u *unit) start() <-chan watch.Result {
	done := make(chan watch.Result, 1)
	go func() {
		res, ok := u.runFor(unitTimeout)
		if !ok {
			u.t.Errorf("loop still running after %s; output:\n%s", unitTimeout, u.out.String())
		}
		done <- res
	}()
	return done
}

// waitFor waits (in real time, generously) until the loop's state says what
// cond wants, and returns it.
func (u *unit) waitFor(what string, cond func(*state.State) bool) *state.State {
	u.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if st, err := u.store.Load(); err == nil && cond(st) {
			return st
		}
	}
	u.t.Fatalf("the loop never reached %s; output:\n%s", what, u.out.String())
	return nil
}

// waitStarted waits until the agent has been started n times.
func (u *unit) waitStarted(n int) {
	u.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if len(u.started()) >= n {
			return
		}
	}
	u.t.Fatalf("the agent started %d times, never %d; output:\n%s", len(u.started()), n, u.out.String())
}

// mark notes, from a program, that name happened now (virtual).
func (u *unit) mark(name string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.marks == nil {
		u.marks = map[string]time.Time{}
	}
	u.marks[name] = u.clock.Now()
}

// marked is when name happened; ok is false when it has not.
func (u *unit) marked(name string) (at time.Time, ok bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	at, ok = u.marks[name]
	return at, ok
}

// started is when each agent was started, in virtual time.
func (u *unit) started() []time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]time.Time(nil), u.launches...)
}

// pastes are the texts pasted into the pane, in order.
func (u *unit) pastes() []string {
	var texts []string
	for _, c := range u.tmux.Calls("paste") {
		texts = append(texts, c.Args[0])
	}
	return texts
}

// keys are the keys sent to the pane, in order.
func (u *unit) keys() []string {
	var keys []string
	for _, c := range u.tmux.Calls("send-keys") {
		keys = append(keys, c.Args...)
	}
	return keys
}

func (u *unit) state() *state.State {
	u.t.Helper()
	st, err := u.store.Load()
	if err != nil {
		u.t.Fatal(err)
	}
	return st
}

// logLines are the lines of iterations.log.
func (u *unit) logLines() []string {
	data, err := os.ReadFile(u.store.Path(state.LogFile))
	if err != nil {
		u.t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// wantLog checks that iterations.log holds lines with these parts, in this order.
func (u *unit) wantLog(parts ...string) {
	u.t.Helper()
	lines := u.logLines()
	i := 0
	for _, line := range lines {
		if i < len(parts) && strings.Contains(line, parts[i]) {
			i++
		}
	}
	if i < len(parts) {
		u.t.Errorf("iterations.log lacks %q (in order); log:\n%s", parts[i], strings.Join(lines, "\n"))
	}
}

// wantOutput checks that the loop told the person these lines, in this order.
func (u *unit) wantOutput(parts ...string) {
	u.t.Helper()
	out := u.out.String()
	at := 0
	for _, p := range parts {
		i := strings.Index(out[at:], p)
		if i < 0 {
			u.t.Errorf("the output lacks %q (in order); output:\n%s", p, out)
			return
		}
		at += i + len(p)
	}
}

func (u *unit) wantResult(got watch.Result, code int, reason string) {
	u.t.Helper()
	if got.Code != code || string(got.Reason) != reason {
		u.t.Errorf("result = %+v, want code %d reason %q; output:\n%s", got, code, reason, u.out.String())
	}
}

// repl is an agent at a "> " prompt that answers each submitted line with reply.
func repl(reply func(t *tmuxfake.Term, input string)) *tmuxfake.Program {
	return tmuxfake.REPL("> ", reply)
}

// memDir is a test folder in memory where there is one (/dev/shm): the
// state's atomic writes sync to disk, which virtual time must not wait for.
func memDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "ralph-unit-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
