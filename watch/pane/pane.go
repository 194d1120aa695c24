// Package pane answers "what does the loop do to its pane, and what does
// the person see of it?": the pane taken over and given back (Pane), its
// output stream (Stream), the @ralph-* options, the watcher's beat and
// lifeline and the notices (Line), and each iteration's recording (Cast).
// None of them holds the loop's record: what they need of it comes as
// values (Kept, Facts, an iteration's number), and what they find for it
// goes back as values.
package pane

import (
	"errors"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/ended"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Given is what each of the pane's parts is given of the loop: its tmux,
// its clock, its folder (the FIFOs, casts, last screen) and where it warns.
type Given struct {
	Tmux  tmux.Client
	Clock clock.Clock
	Store *state.Store
	Warnf func(format string, a ...any)
}

// Settings are what the pane reads of the loop's settings (the fields of
// watch.Config of the same names), fixed once the loop takes the pane over.
type Settings struct {
	Pane, Dir  string
	EndCommand string // run in the pane once the agent exits, after the loop
	Resume     bool   // the loop resumed: the pane's own remain-on-exit is the record's
}

// Kept is what the loop's record keeps of its pane, for a later watcher to
// give it back.
type Kept struct {
	Remain    *state.PaneOption // the pane's own remain-on-exit before the loop; nil: not read yet
	ServerPID int               // the tmux server the loop runs in; 0: unknown
}

// killGrace is how long an agent asked to end has before it is killed.
const killGrace = 3 * time.Second

// Pane is the pane a loop runs in, from the loop's start to its end: its
// output stream, its remain-on-exit, the agent's process in it, and how the
// loop tells a closed pane from a server gone.
type Pane struct {
	Given
	cfg Settings

	stream      *Stream
	streamTried bool   // the pane's output was asked for (a dead pane cannot be piped)
	prevRemain  string // the pane's own remain-on-exit before the loop
	hadRemain   bool
	server      int  // the tmux server the loop runs in (as recorded); 0: unknown
	agentPID    int  // the pane's process of the latest iteration
	agentPastes bool // an agent in it turned on bracketed paste: the next one is ready only once it does too
}

// New gives a loop its pane, not taken over yet.
func New(g Given) *Pane { return &Pane{Given: g} }

// TakeOver sets the pane's remain-on-exit (the pane's own kept for
// GiveBack) and starts reading its output. kept is what the loop's record
// kept of the pane; what it keeps now is returned, an error or not.
func (p *Pane) TakeOver(cfg Settings, kept Kept) (Kept, error) {
	p.cfg, p.server = cfg, kept.ServerPID
	if r := kept.Remain; cfg.Resume && r != nil {
		p.prevRemain, p.hadRemain = r.Value, r.Set // the pane has the last watcher's "on"
	} else {
		p.prevRemain, p.hadRemain, _ = p.Tmux.PaneOption(cfg.Pane, "remain-on-exit")
	}
	if err := p.Tmux.SetPaneOptions(cfg.Pane, []tmux.Option{{Name: "remain-on-exit", Value: "on"}}); err != nil {
		return p.kept(), err
	}
	pane, err := p.Tmux.Pane(cfg.Pane)
	if err == nil {
		p.server = pane.ServerPID
	}
	if err == nil && pane.Dead {
		return p.kept(), nil // tmux pipes no dead pane: the stream opens with the next agent
	}
	p.openStream()
	return p.kept(), nil
}

// kept is what the loop's record keeps of the pane now.
func (p *Pane) kept() Kept {
	return Kept{Remain: &state.PaneOption{Value: p.prevRemain, Set: p.hadRemain}, ServerPID: p.server}
}

// hold gives a dead pane a placeholder process, so that its output can
// be piped before the agent starts: the pipe lasts through respawns.
func (p *Pane) hold(pane tmux.Pane) tmux.Pane {
	if !pane.Dead {
		return pane
	}
	if _, err := p.Tmux.Respawn(tmux.RespawnRequest{Pane: p.cfg.Pane, Dir: p.cfg.Dir,
		Command: []string{"/bin/sh", "-c", "exec sleep 2147483647"}}); err != nil {
		return pane
	}
	if p, err := p.Tmux.Pane(p.cfg.Pane); err == nil {
		return p
	}
	return pane
}

// ReadOutput starts reading the pane's output if it never was asked for:
// a pane started or resumed dead, which tmux does not pipe, gets a
// placeholder first (see hold). It returns the pane as it is then.
func (p *Pane) ReadOutput(pane tmux.Pane) tmux.Pane {
	if p.streamTried {
		return pane
	}
	pane = p.hold(pane)
	p.openStream()
	return pane
}

// Stream is the pane's output stream; nil when it is not read.
func (p *Pane) Stream() *Stream { return p.stream }

// Output is the pane's output stream; nil when it is not read.
func (p *Pane) Output() iteration.Output {
	if p.stream == nil {
		return nil // not a nil *Stream in an interface
	}
	return p.stream
}

// CloseOutput stops reading the pane's output for good: the screen alone
// tells what the agent does from now on.
func (p *Pane) CloseOutput() {
	if p.stream != nil {
		p.stream.Close(p.Tmux, p.cfg.Pane)
		p.stream = nil
	}
}

// AgentStarted notes the process of the iteration's agent, to end what it
// leaves if the pane goes away.
func (p *Pane) AgentStarted(pid int) { p.agentPID = pid }

func (p *Pane) AgentPID() int     { return p.agentPID }
func (p *Pane) AgentPastes() bool { return p.agentPastes }
func (p *Pane) SetAgentPastes()   { p.agentPastes = true }

// openStream starts reading the pane's output; without it the done pattern
// is not checked and the screen is polled.
func (p *Pane) openStream() {
	stream, err := OpenStream(p.Tmux, p.cfg.Pane, p.Store.Path(state.OutputFIFO))
	if err != nil {
		p.Warnf("cannot read the pane's output (%v); the done pattern will not be checked", err)
	}
	p.stream, p.streamTried = stream, true
}

// GiveBack stops reading the pane and gives back its remain-on-exit, unless
// the loop, ended for reason, is only paused or the pane is gone. It
// returns the pid of the shell it started in the pane, for the loop's
// record; 0: none.
func (p *Pane) GiveBack(reason contract.Reason) (shell int) {
	var wg sync.WaitGroup
	defer wg.Wait()
	if p.stream != nil {
		wg.Add(1)
		go func() { // two tmux calls at once: a stopped loop is waited for
			defer wg.Done()
			p.stream.Close(p.Tmux, p.cfg.Pane)
		}()
	}
	p.endLeftovers(reason)
	switch reason {
	case contract.ReasonInterrupted, contract.ReasonPaused, contract.ReasonPaneClosed, contract.ReasonServerGone:
		return 0 // a paused loop's pane stays the loop's; a gone one has nothing to give back
	}
	if p.cfg.EndCommand != "" { // an agent on its way out goes back to the shell when it exits
		if err := p.Store.WriteFile(state.AfterExitFile, []byte(p.cfg.EndCommand)); err != nil {
			p.Warnf("leave the end command for the agent's exit: %v", err)
		}
	}
	if pid := ended.BackToShell(p.Tmux, p.cfg.Pane, p.cfg.Dir, p.cfg.EndCommand); pid > 0 {
		_ = os.Remove(p.Store.Path(state.AfterExitFile)) // the agent was gone already
		shell = pid                                      // the pane runs a shell now, not the agent
	}
	restore := p.prevRemain
	if !p.hadRemain {
		restore = "" // unset: back to the window's value
	}
	_ = p.Tmux.SetPaneOptions(p.cfg.Pane, []tmux.Option{{Name: "remain-on-exit", Value: restore}})
	return shell
}

// endLeftovers ends what the last agent left behind once the loop is over:
// children that ignore SIGHUP and SIGTERM outlive a dead agent, a closed pane
// and a killed server, and would run on unseen. A live agent in a live pane
// runs on, and a paused loop's agent is the person's.
func (p *Pane) endLeftovers(reason contract.Reason) {
	switch reason {
	case contract.ReasonInterrupted, contract.ReasonPaused:
		return
	case contract.ReasonPaneClosed, contract.ReasonServerGone:
		if p.agentPID > 0 {
			agent.EndSession(p.Clock, p.agentPID, killGrace)
		}
		return
	}
	if pane, err := p.Tmux.Pane(p.cfg.Pane); err == nil && pane.Dead {
		p.EndAgent(pane)
	}
}

// EndAgent ends whatever runs in the pane, its children included.
func (p *Pane) EndAgent(pane tmux.Pane) {
	if !pane.Dead {
		agent.EndTreeOn(p.Clock, pane.PID, killGrace)
		return
	}
	// The pane's process is gone; end what it left behind in its session,
	// unless its pid already belongs to someone else.
	if _, err := os.Stat("/proc/" + strconv.Itoa(pane.PID)); err != nil {
		agent.EndTreeOn(p.Clock, pane.PID, killGrace)
	}
}

// serverGoneWait is how long a killed server may take to stop answering.
const serverGoneWait = 200 * time.Millisecond

// Gone tells a closed pane from a dead server.
func (p *Pane) Gone(err error) iteration.Ending {
	if tmux.NoServer(err) || errors.Is(err, iteration.ErrNewServer) {
		return iteration.EndServerGone
	}
	if errors.Is(err, tmux.ErrNoPane) {
		// A server shutting down drops its panes first: ask again a moment later.
		<-p.Clock.After(serverGoneWait)
	}
	pane, perr := p.Tmux.Pane(p.cfg.Pane)
	if tmux.NoServer(perr) || perr == nil && !p.Same(pane) {
		return iteration.EndServerGone
	}
	return iteration.EndPaneGone
}

// Same says whether pane lives in the server the loop started in.
func (p *Pane) Same(pane tmux.Pane) bool {
	return pane.ServerPID == 0 || p.server == 0 || pane.ServerPID == p.server
}

// SaveScreen keeps the pane's last screen of the iteration for a post-mortem.
func (p *Pane) SaveScreen() {
	if screen, err := p.Tmux.Capture(tmux.CaptureRequest{Pane: p.cfg.Pane, Start: -1000, Join: true}); err == nil {
		_ = os.WriteFile(p.Store.Path(state.LastScreen), []byte(screen), 0o600)
	}
}
