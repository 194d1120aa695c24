package watch

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

// loopPane is the pane a loop runs in, from the loop's start to its end: its
// output stream, its remain-on-exit, the agent's process in it, and how the
// loop tells a closed pane from a server gone.
type loopPane struct {
	cfg   *Config // read only
	tmux  tmux.Client
	clock clock.Clock
	rec   *recorder

	stream      *Stream
	streamTried bool   // the pane's output was asked for (a dead pane cannot be piped)
	prevRemain  string // the pane's own remain-on-exit before the loop
	hadRemain   bool
	agentPID    int  // the pane's process of the latest iteration
	agentPastes bool // an agent in it turned on bracketed paste: the next one is ready only once it does too
}

// takeOver sets the pane's remain-on-exit (the pane's own kept for
// giveBack) and starts reading its output.
func (p *loopPane) takeOver() error {
	if r := p.rec.st.RemainOnExit; p.cfg.Resume && r != nil {
		p.prevRemain, p.hadRemain = r.Value, r.Set // the pane has the last watcher's "on"
	} else {
		p.prevRemain, p.hadRemain, _ = p.tmux.PaneOption(p.cfg.Pane, "remain-on-exit")
		p.rec.paneRemain(state.PaneOption{Value: p.prevRemain, Set: p.hadRemain})
	}
	if err := p.tmux.SetPaneOptions(p.cfg.Pane, []tmux.Option{{Name: "remain-on-exit", Value: "on"}}); err != nil {
		return err
	}
	pane, err := p.tmux.Pane(p.cfg.Pane)
	if err == nil {
		p.rec.paneServer(pane.ServerPID)
	}
	if err == nil && pane.Dead {
		return nil // tmux pipes no dead pane: the stream opens with the next agent
	}
	p.openStream()
	return nil
}

// hold gives a dead pane a placeholder process, so that its output can
// be piped before the agent starts: the pipe lasts through respawns.
func (p *loopPane) hold(pane tmux.Pane) tmux.Pane {
	if !pane.Dead {
		return pane
	}
	if _, err := p.tmux.Respawn(tmux.RespawnRequest{Pane: p.cfg.Pane, Dir: p.cfg.Dir,
		Command: []string{"/bin/sh", "-c", "exec sleep 2147483647"}}); err != nil {
		return pane
	}
	if p, err := p.tmux.Pane(p.cfg.Pane); err == nil {
		return p
	}
	return pane
}

// ReadOutput starts reading the pane's output if it never was asked for:
// a pane started or resumed dead, which tmux does not pipe, gets a
// placeholder first (see hold). It returns the pane as it is then.
func (p *loopPane) ReadOutput(pane tmux.Pane) tmux.Pane {
	if p.streamTried {
		return pane
	}
	pane = p.hold(pane)
	p.openStream()
	return pane
}

// Output is the pane's output stream; nil when it is not read.
func (p *loopPane) Output() iteration.Output {
	if p.stream == nil {
		return nil // not a nil *Stream in an interface
	}
	return p.stream
}

// AgentStarted notes the process of the iteration's agent, to end what it
// leaves if the pane goes away.
func (p *loopPane) AgentStarted(pid int) { p.agentPID = pid }

func (p *loopPane) AgentPID() int     { return p.agentPID }
func (p *loopPane) AgentPastes() bool { return p.agentPastes }
func (p *loopPane) SetAgentPastes()   { p.agentPastes = true }

// openStream starts reading the pane's output; without it the done pattern
// is not checked and the screen is polled.
func (p *loopPane) openStream() {
	stream, err := OpenStream(p.tmux, p.cfg.Pane, p.rec.store.Path(state.OutputFIFO))
	if err != nil {
		p.rec.warnf("cannot read the pane's output (%v); the done pattern will not be checked", err)
	}
	p.stream, p.streamTried = stream, true
}

// giveBack stops reading the pane and gives back its remain-on-exit, unless the
// loop is only paused or the pane is gone.
func (p *loopPane) giveBack(res Result) {
	var wg sync.WaitGroup
	defer wg.Wait()
	if p.stream != nil {
		wg.Add(1)
		go func() { // two tmux calls at once: a stopped loop is waited for
			defer wg.Done()
			p.stream.Close(p.tmux, p.cfg.Pane)
		}()
	}
	p.endLeftovers(res)
	if r := res.Reason; r != contract.ReasonInterrupted && r != contract.ReasonPaused && r != contract.ReasonPaneClosed && r != contract.ReasonServerGone {
		if p.cfg.EndCommand != "" { // an agent on its way out goes back to the shell when it exits
			if err := p.rec.store.WriteFile(state.AfterExitFile, []byte(p.cfg.EndCommand)); err != nil {
				p.rec.warnf("leave the end command for the agent's exit: %v", err)
			}
		}
		if pid := ended.BackToShell(p.tmux, p.cfg.Pane, p.cfg.Dir, p.cfg.EndCommand); pid > 0 {
			_ = os.Remove(p.rec.store.Path(state.AfterExitFile)) // the agent was gone already
			p.rec.shellStarted(pid)                              // the pane runs a shell now, not the agent
		}
		restore := p.prevRemain
		if !p.hadRemain {
			restore = "" // unset: back to the window's value
		}
		_ = p.tmux.SetPaneOptions(p.cfg.Pane, []tmux.Option{{Name: "remain-on-exit", Value: restore}})
	}
}

// endLeftovers ends what the last agent left behind once the loop is over:
// children that ignore SIGHUP and SIGTERM outlive a dead agent, a closed pane
// and a killed server, and would run on unseen. A live agent in a live pane
// runs on, and a paused loop's agent is the person's.
func (p *loopPane) endLeftovers(res Result) {
	switch res.Reason {
	case contract.ReasonInterrupted, contract.ReasonPaused:
		return
	case contract.ReasonPaneClosed, contract.ReasonServerGone:
		if p.agentPID > 0 {
			agent.EndSession(p.clock, p.agentPID, killGrace)
		}
		return
	}
	if pane, err := p.tmux.Pane(p.cfg.Pane); err == nil && pane.Dead {
		p.EndAgent(pane)
	}
}

// EndAgent ends whatever runs in the pane, its children included.
func (p *loopPane) EndAgent(pane tmux.Pane) {
	if !pane.Dead {
		agent.EndTreeOn(p.clock, pane.PID, killGrace)
		return
	}
	// The pane's process is gone; end what it left behind in its session,
	// unless its pid already belongs to someone else.
	if _, err := os.Stat("/proc/" + strconv.Itoa(pane.PID)); err != nil {
		agent.EndTreeOn(p.clock, pane.PID, killGrace)
	}
}

// serverGoneWait is how long a killed server may take to stop answering.
const serverGoneWait = 200 * time.Millisecond

// Gone tells a closed pane from a dead server.
func (p *loopPane) Gone(err error) iteration.Ending {
	if tmux.NoServer(err) || errors.Is(err, iteration.ErrNewServer) {
		return iteration.EndServerGone
	}
	if errors.Is(err, tmux.ErrNoPane) {
		// A server shutting down drops its panes first: ask again a moment later.
		<-p.clock.After(serverGoneWait)
	}
	pane, perr := p.tmux.Pane(p.cfg.Pane)
	if tmux.NoServer(perr) || perr == nil && !p.Same(pane) {
		return iteration.EndServerGone
	}
	return iteration.EndPaneGone
}

// Same says whether pane lives in the server the loop started in.
func (p *loopPane) Same(pane tmux.Pane) bool {
	return pane.ServerPID == 0 || p.rec.st.ServerPID == 0 || pane.ServerPID == p.rec.st.ServerPID
}

// saveScreen keeps the pane's last screen of the iteration for a post-mortem.
func (p *loopPane) saveScreen() {
	if screen, err := p.tmux.Capture(tmux.CaptureRequest{Pane: p.cfg.Pane, Start: -1000, Join: true}); err == nil {
		_ = os.WriteFile(p.rec.store.Path(state.LastScreen), []byte(screen), 0o600)
	}
}
