package iteration

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// bench is one iteration run alone: the in-memory tmux, the virtual clock
// and Needs of the iteration's own making, no Loop. Its pane's output is
// not read: the screen tells everything.
type bench struct {
	t      *testing.T
	tmux   *tmuxfake.Client
	needs  Needs
	status *benchStatus
}

func newBench(t *testing.T, program *tmuxfake.Program, interrupts ...Interrupt) *bench {
	t.Helper()
	c := tmuxfake.New(func(argv []string) *tmuxfake.Program {
		if len(argv) > 0 && argv[0] == "agent" {
			return program
		}
		return nil
	})
	c.Crashed = func(why string) { t.Errorf("%s", why) }
	dir := t.TempDir()
	pane, err := c.NewWindow(tmux.NewWindowRequest{Session: "main", Name: "bench", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	// As the loop's pane: its agent's exit leaves it, for its exit status.
	if err := c.SetPaneOptions(pane, []tmux.Option{{Name: "remain-on-exit", Value: "on"}}); err != nil {
		t.Fatal(err)
	}
	store, err := state.Open(filepath.Join(dir, "state"), "bench")
	if err != nil {
		t.Fatal(err)
	}
	status := &benchStatus{}
	return &bench{t: t, tmux: c, status: status, needs: Needs{
		Settings: Settings{Name: "bench", Pane: pane, Dir: dir, Command: []string{"agent"}, PromptMode: agent.ModeType,
			Lines: 20, InactivityTimeout: time.Hour, ReadyTimeout: time.Hour, PollInterval: 200 * time.Millisecond},
		Tmux: c, Clock: clock.NewAuto(time.Date(2026, 3, 14, 9, 0, 0, 0, time.Local)),
		Record: &benchRecord{t: t, store: store}, Status: status, Pane: &benchPane{}, Hooks: benchHooks{},
		Cast: benchCast{}, Spend: benchSpend{}, Requests: benchRequests{}, Interrupts: interrupts,
	}}
}

// run runs the iteration to its outcome, bounded in real time.
func (b *bench) run(prompt string) Outcome {
	b.t.Helper()
	if err := os.WriteFile(b.needs.Record.Store().Path(state.PromptCopy), []byte(prompt), 0o600); err != nil {
		b.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return New(b.needs, Nonce()).Run(ctx, prompt)
}

func (b *bench) pastes() []string {
	var texts []string
	for _, c := range b.tmux.Calls("paste") {
		texts = append(texts, c.Args[0])
	}
	return texts
}

func TestAnIterationRunsAloneFromRespawnToItsOutcome(t *testing.T) {
	b := newBench(t, tmuxfake.REPL("> ", func(t *tmuxfake.Term, input string) {
		t.Write("fixed: " + input)
		t.Exit(3)
	}))
	it := b.run("fix the bug")
	if it.Ending != EndExit || it.Code != 3 || it.Untaken {
		t.Errorf("outcome %+v, want the agent's exit 3 after it took the prompt", it)
	}
	if want := []string{"fix the bug"}; !reflect.DeepEqual(b.pastes(), want) {
		t.Errorf("pasted %q, want the prompt once", b.pastes())
	}
	if want := []contract.Status{contract.StatusRunning}; !reflect.DeepEqual(b.status.shown, want) {
		t.Errorf("showed %v, want running once the agent took input", b.status.shown)
	}
}

// What may end an iteration is given to it, not asked of the loop: each
// interrupt in turn, and the first that ends it ends it.
func TestTheFirstInterruptThatEndsTheIterationEndsIt(t *testing.T) {
	var asked []string
	b := newBench(t, tmuxfake.REPL("> ", func(t *tmuxfake.Term, input string) {
		t.Write("working on it") // and never done
	}), benchInterrupt{"done file", EndNone, &asked}, benchInterrupt{"max time", EndMaxTime, &asked},
		benchInterrupt{"budget", EndBudget, &asked})
	it := b.run("work")
	if it.Ending != EndMaxTime {
		t.Errorf("ending %d, want EndMaxTime (%d)", it.Ending, EndMaxTime)
	}
	if want := []string{"done file", "max time"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("asked %q, want %q: the budget is never asked once max time ended it", asked, want)
	}
}

type benchInterrupt struct {
	name  string
	end   Ending
	asked *[]string
}

func (i benchInterrupt) Check() (Ending, bool) {
	*i.asked = append(*i.asked, i.name)
	return i.end, i.end != EndNone
}

type benchRecord struct {
	t      *testing.T
	store  *state.Store
	cursor Cursor
}

func (r *benchRecord) Iteration() int                   { return 1 }
func (r *benchRecord) Store() *state.Store              { return r.store }
func (r *benchRecord) Cursor() Cursor                   { return r.cursor }
func (r *benchRecord) SetCursor(c Cursor)               { r.cursor = c }
func (r *benchRecord) AgentState(agent.State)           {}
func (r *benchRecord) Save()                            {}
func (r *benchRecord) Heartbeat()                       {}
func (r *benchRecord) Sayf(format string, args ...any)  { r.t.Logf(format, args...) }
func (r *benchRecord) Warnf(format string, args ...any) { r.t.Logf("warning: "+format, args...) }
func (r *benchRecord) Log(event, message string)        { r.t.Logf("%s %s", event, message) }

type benchStatus struct{ shown []contract.Status }

func (s *benchStatus) Show(status contract.Status) { s.shown = append(s.shown, status) }
func (s *benchStatus) Starting()                   { s.shown = append(s.shown, contract.StatusStarting) }

type benchPane struct {
	pid    int
	pastes bool
}

func (p *benchPane) Output() Output                      { return nil }
func (p *benchPane) ReadOutput(pane tmux.Pane) tmux.Pane { return pane }
func (p *benchPane) EndAgent(tmux.Pane)                  {}
func (p *benchPane) Same(tmux.Pane) bool                 { return true }
func (p *benchPane) Gone(err error) Ending               { return EndPaneGone }
func (p *benchPane) AgentStarted(pid int)                { p.pid = pid }
func (p *benchPane) AgentPID() int                       { return p.pid }
func (p *benchPane) AgentPastes() bool                   { return p.pastes }
func (p *benchPane) SetAgentPastes()                     { p.pastes = true }

type benchHooks struct{}

func (benchHooks) Record(string) (agent.HookRecord, bool) { return agent.HookRecord{}, false }
func (benchHooks) Clear()                                 {}
func (benchHooks) Command() []string                      { return []string{"agent"} }
func (benchHooks) Plain() []string                        { return nil }
func (benchHooks) Env() []string                          { return nil }
func (benchHooks) On() bool                               { return false }
func (benchHooks) Reports(string) bool                    { return false }
func (benchHooks) Lost() bool                             { return false }
func (benchHooks) Lose()                                  {}
func (benchHooks) Drop()                                  {}

type benchCast struct{}

func (benchCast) Start(tmux.Pane, []string) {}
func (benchCast) Mark(contract.EventKind)   {}
func (benchCast) Resize(tmux.Pane)          {}

type benchSpend struct{}

func (benchSpend) NoteEnv(int) {}

type benchRequests struct{}

func (benchRequests) Take() (Ending, bool)   { return EndNone, false }
func (benchRequests) Wake() <-chan os.Signal { return nil }
