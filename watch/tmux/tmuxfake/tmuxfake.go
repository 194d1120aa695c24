// Package tmuxfake answers "what would tmux have done?" without a server: a
// tmux.Client kept in memory whose panes run small Go programs a test
// scripts, so the loop's decisions can be tested in virtual time. The real
// server stays the integration layer (package tmuxtest).
//
// A fake pane has no process: its PID is 0, which the loop's process checks
// take for "nothing to look up or end".
package tmuxfake

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Program is what runs in a fake pane. Each hook is told one event and acts
// on the pane through its Term; a nil hook ignores the event. Hooks run with
// the client locked and before the call that caused them returns, so what a
// program draws in answer to a paste is on the screen when Paste returns.
type Program struct {
	Start func(t *Term)              // right after the respawn
	Paste func(t *Term, text string) // a bracketed paste
	Key   func(t *Term, key string)  // one key of send-keys: "Enter", "C-u", or text
	// Tick comes before each call that names the pane, so a program can
	// act (exit, crash, draw) in the moments between the loop's steps.
	Tick func(t *Term)
}

// Fault is what a test has happen to the server before a call (see Before).
type Fault int

// The faults a Before hook can cause.
const (
	NoFault         Fault = iota
	PaneClosed            // the pane is killed, as kill-pane does
	ServerStopped         // the server is gone
	ServerRestarted       // a new server answers for the old pane ids
)

// Call is one operation the client was asked for, recorded in order.
type Call struct {
	Op   string // respawn, paste, send-keys, pipe-pane, set-option, message, later
	Pane string
	Args []string // the command, the text, the keys, "NAME=VALUE", the message
}

// Client is a tmux.Client in memory.
type Client struct {
	// Launch picks the program for a respawned command (the agent's own
	// argv when the command is the loop's wrapper, see Unwrap); nil, or a
	// nil result, runs a program that does nothing until it is replaced.
	Launch func(argv []string) *Program
	// Height is the screen's height in lines; 24 if 0.
	Height int
	// Before, when set, is told each call that names a pane, before it
	// runs, with the client locked; the fault it returns happens first.
	Before func(pane string) Fault
	// Crashed is told when a write reaches a dead pane, which crashes tmux
	// 3.3a; a test sets it to fail (the server is stopped either way).
	Crashed func(why string)

	mu      sync.Mutex
	stopped bool // StopServer: every call fails
	crashes []string
	server  int // the server's pid as panes report it; RestartServer changes it
	ops     int // calls of any method of tmux.Client
	panes   map[string]*pane
	next    int
	calls   []Call
	globals map[string]string
}

var _ tmux.Client = (*Client)(nil)

// New returns a client with no panes.
func New(launch func(argv []string) *Program) *Client {
	return &Client{Launch: launch, panes: map[string]*pane{}, globals: map[string]string{}}
}

// enter locks the client and counts one call of tmux.Client; the caller
// defers the unlock it returns.
func (c *Client) enter() (unlock func()) {
	c.mu.Lock()
	c.ops++
	return c.mu.Unlock
}

func (c *Client) record(op, pane string, args ...string) {
	c.calls = append(c.calls, Call{Op: op, Pane: pane, Args: args})
}

// pane finds a pane by id, after the test's fault and the program's tick;
// the lock is held.
func (c *Client) pane(id string) (*pane, error) {
	if c.Before != nil && !c.stopped {
		switch c.Before(id) {
		case PaneClosed:
			c.remove(id)
		case ServerStopped:
			c.stopped = true
			for _, p := range c.panes {
				p.term.closePipe()
			}
		case ServerRestarted:
			c.server++
		}
	}
	if c.stopped {
		return nil, noServer()
	}
	if p := c.panes[id]; p != nil {
		if t := p.term; !t.dead && t.program.Tick != nil {
			t.program.Tick(t)
			c.reap(p)
		}
	}
	if p := c.panes[id]; p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("%w: %s", tmux.ErrNoPane, id)
}

type pane struct {
	id, session, window string
	options             map[string]string
	term                *Term
}

func (c *Client) info(p *pane) tmux.Pane {
	t := p.term
	info := tmux.Pane{ID: p.id, Dead: t.dead, Path: t.Dir, Session: p.session, Window: p.window, ServerPID: 1000 + c.server,
		HistorySize: len(t.history), Cursor: t.cursor()}
	if t.dead && t.signal > 0 {
		info.DeadSignal = strconv.Itoa(t.signal)
	} else if t.dead {
		info.DeadStatus = strconv.Itoa(t.code)
	}
	return info
}

// Version implements tmux.Client.
func (c *Client) Version() (string, error) { return "3.4", nil }

// Pane implements tmux.Client.
func (c *Client) Pane(target string) (tmux.Pane, error) {
	defer c.enter()()
	p, err := c.pane(target)
	if err != nil {
		return tmux.Pane{}, err
	}
	return c.info(p), nil
}

// NewWindow implements tmux.Client: a live pane whose program does nothing.
func (c *Client) NewWindow(req tmux.NewWindowRequest) (string, error) {
	defer c.enter()()
	if c.stopped {
		return "", noServer()
	}
	if c.panes == nil {
		c.panes, c.globals = map[string]*pane{}, map[string]string{}
	}
	id := "%" + strconv.Itoa(c.next)
	c.next++
	c.panes[id] = &pane{id: id, session: req.Session, window: strconv.Itoa(len(c.panes)),
		options: map[string]string{}, term: &Term{Dir: req.Dir, height: c.height(), program: &Program{}}}
	return id, nil
}

func (c *Client) height() int {
	if c.Height > 0 {
		return c.Height
	}
	return 24
}

// Respawn implements tmux.Client: the screen is cleared (the history too
// when asked), the pipe stays, and the launched program starts.
func (c *Client) Respawn(req tmux.RespawnRequest) (int, error) {
	defer c.enter()()
	p, err := c.pane(req.Pane)
	if err != nil {
		return 0, err
	}
	c.record("respawn", req.Pane, req.Command...)
	t := p.term
	t.respawn(req)
	argv, nonce, prompt := Unwrap(req.Command)
	t.Argv, t.nonce, t.Stdin = argv, nonce, ""
	if prompt != "" {
		t.Stdin = readFile(prompt) // the agent reads it from its stdin, or takes it as its last argument
		if strings.Contains(req.Command[2], `"$p"`) {
			t.Argv = append(append([]string(nil), argv...), t.Stdin)
		}
	}
	t.program = &Program{}
	if c.Launch != nil {
		if prog := c.Launch(t.Argv); prog != nil {
			t.program = prog
		}
	}
	if t.program.Start != nil {
		t.program.Start(t)
	}
	c.reap(p)
	return 0, nil
}

// Capture implements tmux.Client.
func (c *Client) Capture(req tmux.CaptureRequest) (string, error) {
	defer c.enter()()
	p, err := c.pane(req.Pane)
	if err != nil {
		return "", err
	}
	return p.term.capture(req.Start), nil
}

// Snapshot implements tmux.Client.
func (c *Client) Snapshot(req tmux.CaptureRequest) (tmux.Pane, string, error) {
	defer c.enter()()
	p, err := c.pane(req.Pane)
	if err != nil {
		return tmux.Pane{}, "", err
	}
	return c.info(p), p.term.capture(req.Start), nil
}

// Paste implements tmux.Client: the program's Paste hook is told the text.
func (c *Client) Paste(id, buffer string, text []byte) error {
	defer c.enter()()
	p, err := c.pane(id)
	if err != nil {
		return err
	}
	if err := c.write(p, tmux.PasteCommand(id, buffer)); err != nil {
		return err
	}
	c.record("paste", id, string(text))
	if t := p.term; t.program.Paste != nil {
		t.program.Paste(t, string(text))
	}
	c.reap(p)
	return nil
}

// SendKeys implements tmux.Client: the program's Key hook is told each key.
func (c *Client) SendKeys(id string, keys ...string) error {
	defer c.enter()()
	p, err := c.pane(id)
	if err != nil {
		return err
	}
	if err := c.write(p, tmux.SendKeysCommand(id, keys...)); err != nil {
		return err
	}
	c.record("send-keys", id, keys...)
	for _, k := range keys {
		if t := p.term; !t.dead && t.program.Key != nil { // a key can end the program
			t.program.Key(t, k)
		}
	}
	c.reap(p)
	return nil
}

// SetPaneOptions implements tmux.Client.
func (c *Client) SetPaneOptions(id string, options []tmux.Option) error {
	defer c.enter()()
	p, err := c.pane(id)
	if err != nil {
		return err
	}
	for _, o := range options {
		c.record("set-option", id, o.Name+"="+o.Value)
		if o.Value == "" {
			delete(p.options, o.Name)
		} else {
			p.options[o.Name] = o.Value
		}
	}
	return nil
}

// PaneOption implements tmux.Client.
func (c *Client) PaneOption(id, name string) (string, bool, error) {
	defer c.enter()()
	p, err := c.pane(id)
	if err != nil {
		return "", false, err
	}
	v, ok := p.options[name]
	return v, ok, nil
}

// PipePane implements tmux.Client for the one command the loop gives,
// "exec cat > 'PATH'": what the pane's programs write goes to PATH.
func (c *Client) PipePane(id, command string) error {
	defer c.enter()()
	p, err := c.pane(id)
	if err != nil {
		return err
	}
	c.record("pipe-pane", id, command)
	p.term.closePipe()
	if command == "" {
		return nil
	}
	path, ok := catTarget(command)
	if !ok {
		return fmt.Errorf("tmuxfake: pipe-pane %q: only exec cat > 'PATH' is understood", command)
	}
	return p.term.openPipe(path)
}

// Nudge implements tmux.Client; a fake pane's exit status is never lost.
func (c *Client) Nudge() error {
	defer c.enter()()
	if c.stopped {
		return noServer()
	}
	return nil
}

// SocketPath implements tmux.Client.
func (c *Client) SocketPath() (string, error) { return "/tmuxfake/default", nil }

// Message implements tmux.Client: recorded.
func (c *Client) Message(id, text string) error {
	defer c.enter()()
	if c.stopped {
		return noServer()
	}
	c.record("message", id, text)
	return nil
}

// GlobalOption implements tmux.Client.
func (c *Client) GlobalOption(name string) (string, error) {
	defer c.enter()()
	if c.stopped {
		return "", noServer()
	}
	return c.globals[name], nil
}

// Later implements tmux.Client: recorded, never run.
func (c *Client) Later(d time.Duration, command string) error {
	defer c.enter()()
	if c.stopped {
		return noServer()
	}
	c.record("later", "", d.String(), command)
	return nil
}
