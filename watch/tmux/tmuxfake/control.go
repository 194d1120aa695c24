package tmuxfake

import (
	"fmt"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// What a test does with the fake besides what the loop does: look at what
// was asked of it, have a program act, close a pane, stop the server.

// Calls returns the recorded calls of the given operations, all when none is named.
func (c *Client) Calls(ops ...string) []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Call
	for _, call := range c.calls {
		if len(ops) == 0 || contains(ops, call.Op) {
			out = append(out, call)
		}
	}
	return out
}

// Ops counts the calls made of the tmux.Client methods, so that a test can
// tell whether the code under test is busy or waits.
func (c *Client) Ops() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops
}

// SetGlobal sets a global option for GlobalOption to read.
func (c *Client) SetGlobal(name, value string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.globals[name] = value
}

// Act runs f on the pane's Term, as if its program acted on its own (a turn
// ends later, a question appears); false when there is no such pane, or
// no server: its programs ended with it.
func (c *Client) Act(id string, f func(t *Term)) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.panes[id]
	if p == nil || c.stopped {
		return false
	}
	f(p.term)
	c.reap(p)
	return true
}

// Screen is the pane's history and visible screen, as Capture with a deep start gives it.
func (c *Client) Screen(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.panes[id]; p != nil {
		return p.term.capture(-len(p.term.history))
	}
	return ""
}

// Close closes every pane's pipe.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.panes {
		p.term.closePipe()
	}
}

// ClosePane removes a pane, as kill-pane does: its pipe closes and every
// later call naming it fails with tmux.ErrNoPane.
func (c *Client) ClosePane(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remove(id)
}

// StopServer has every later call fail as it does when the tmux server is
// gone (tmux.NoServer reports the error).
func (c *Client) StopServer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	for _, p := range c.panes {
		p.term.closePipe()
	}
}

// StartServer starts a new server after StopServer: it answers again, with
// none of the old server's panes, another pid, and pane ids from %0 again.
func (c *Client) StartServer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range c.panes {
		c.remove(id)
	}
	c.stopped, c.next = false, 0
	c.server++
}

// RestartServer makes the panes answer from a new server, as a tmux server
// started again hands out the old pane ids: the same ids, another server pid.
func (c *Client) RestartServer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.server++
}

// reap closes a pane whose program ended, unless the pane's remain-on-exit
// is on, as tmux does (the fake knows no window or global options).
func (c *Client) reap(p *pane) {
	if p.term.dead && p.options["remain-on-exit"] != "on" {
		c.remove(p.id)
	}
}

func (c *Client) remove(id string) {
	if p := c.panes[id]; p != nil {
		p.term.closePipe()
		delete(c.panes, id)
	}
}

func noServer() error {
	return &tmux.Error{Args: []string{"fake"}, Msg: "no server running on /tmuxfake/default"}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// write judges a write into p as tmux 3.3a would run the command the real
// client sends (argv): guarded by tmux.IfAlive, it is refused on a dead
// pane; unguarded, it crashes the server.
func (c *Client) write(p *pane, argv []string) error {
	if _, ok := tmux.Guarded(argv, p.id); ok {
		if p.term.dead {
			c.record("refused", p.id, argv...)
			return fmt.Errorf("%w: %s", tmux.ErrPaneDead, p.id)
		}
		return nil
	}
	if !p.term.dead {
		return nil
	}
	why := fmt.Sprintf("tmux 3.3a would crash here: %s into dead pane %s", argv[0], p.id)
	c.crashes = append(c.crashes, why)
	c.stopped = true
	if c.Crashed != nil {
		c.Crashed(why)
	}
	return noServer()
}

// Crashes says which writes would have crashed tmux 3.3a.
func (c *Client) Crashes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.crashes...)
}
