package scripts_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// plugin is the plugin installed in a private server, and a client on it.
type plugin struct {
	t      *testing.T
	srv    *tmuxtest.Server
	dir    string // where the plugin is installed
	screen tmuxtest.Buffer
	seen   int // how much of screen was drawn before the last key
	tty    *os.File
}

// installTPM starts a private server with the plugin where tpm clones it
// (~/.tmux/plugins/ralph.tmux), ralph-watch built.
func installTPM(t *testing.T) (*tmuxtest.Server, *plugin) {
	t.Helper()
	srv := tmuxtest.Start(t)
	return srv, install(t, srv, filepath.Join(srv.Dir, "home", ".tmux", "plugins", "ralph.tmux"), true)
}

// install copies ralph.tmux, scripts/ and a built ralph-watch into dir the
// way a tpm clone and its first build leave them.
func install(t *testing.T, srv *tmuxtest.Server, dir string, withBinary bool) *plugin {
	t.Helper()
	files, _ := filepath.Glob("*.sh")
	for _, f := range append(files, "../ralph.tmux") {
		to := filepath.Join(dir, "scripts", f)
		if f == "../ralph.tmux" {
			to = filepath.Join(dir, "ralph.tmux")
		}
		copyFile(t, f, to)
	}
	if withBinary {
		copyFile(t, tmuxtest.Build(t, "cmd/ralph-watch"), filepath.Join(dir, "bin", "ralph-watch"))
	}
	return &plugin{t: t, srv: srv, dir: dir}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(from)
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := tmuxtest.WriteExecutable(to, b, info.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}

// source runs ralph.tmux as tpm does: from run-shell, in another folder,
// with its output thrown away.
func (p *plugin) source() {
	p.t.Helper()
	path := strings.ReplaceAll(shQuote(filepath.Join(p.dir, "ralph.tmux")), "#", "##")
	p.srv.Must("run-shell", "cd / && "+path+" >/dev/null 2>&1")
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// attach attaches a real client to session main through a pseudo-terminal.
func (p *plugin) attach() {
	p.t.Helper()
	cmd := exec.Command("tmux", "-S", p.srv.Socket, "attach-session", "-t", "main")
	cmd.Env = append(p.srv.Env, "TERM=xterm-256color")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		p.t.Fatal(err)
	}
	p.tty = tty
	go func() { _, _ = io.Copy(&p.screen, tty) }()
	p.t.Cleanup(func() {
		if p.t.Failed() {
			var shown []string
			for _, line := range strings.Split(p.messages(), "\n") {
				if strings.Contains(line, " message: ") || strings.Contains(line, " key ") {
					shown = append(shown, line)
				}
			}
			p.t.Logf("tmux messages:\n%s", strings.Join(shown, "\n"))
		}
		tty.Close()
		cmd.Process.Kill()
		_ = cmd.Wait()
	})
	tmuxtest.Eventually(p.t, 10*time.Second, "the client to attach", func() bool {
		out, _ := p.srv.Tmux("list-clients", "-F", "#{client_name}")
		return strings.TrimSpace(out) != ""
	})
	// A key typed before the client has put its terminal in raw mode is
	// flushed with the cooked input (CI lost the first key so): the client
	// draws only after that.
	tmuxtest.Eventually(p.t, 10*time.Second, "the client to draw", func() bool {
		return p.screen.String() != ""
	})
}

// press types the prefix and a key on the client. A key the server never
// logged (the client was still setting up its terminal, as CI saw twice) is
// typed again, a few times at most.
func (p *plugin) press(key string) {
	p.t.Helper()
	p.seen = len(p.screen.String())
	keys := func() int { return strings.Count(p.messages(), " key ") }
	before := keys()
	for try := 0; try < 3; try++ {
		if _, err := p.tty.Write([]byte("\x02" + key)); err != nil {
			p.t.Fatal(err)
		}
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if keys() > before {
				return
			}
		}
	}
}

// shown is what the client drew since the last key was pressed.
func (p *plugin) shown() string {
	return p.screen.String()[p.seen:]
}

// load sets options and starts tmux as a person's config does: the plugin
// sourced, then a client attached.
func (p *plugin) load(options map[string]string) {
	p.t.Helper()
	p.configure(options)
	p.source()
	p.attach()
}

// startWithLoopKey starts pane's loop from the loop key's menu and waits
// until it runs.
func (p *plugin) startWithLoopKey(pane string) {
	p.t.Helper()
	p.press("A")
	p.choose("Start the loop", "y")
	p.waitOption(pane, "@ralph-state", "running")
}

// atPrompt waits until pane's shell has drawn its prompt.
func (p *plugin) atPrompt(pane string) {
	p.t.Helper()
	tmuxtest.Eventually(p.t, 10*time.Second, "a shell prompt", func() bool { return strings.TrimSpace(p.srv.Capture(pane)) != "" })
}

// choose waits until the client shows a menu line, then types its key. The
// loop key runs a script that asks ralph-watch first: on a machine busy with
// real agents the menu can take seconds.
func (p *plugin) choose(line, key string) {
	p.t.Helper()
	tmuxtest.Eventually(p.t, 30*time.Second, "the menu line "+line, func() bool {
		return strings.Contains(p.shown(), line)
	})
	if _, err := p.tty.Write([]byte(key)); err != nil {
		p.t.Fatal(err)
	}
}

// waitOption waits until a pane option has a value.
func (p *plugin) waitOption(pane, name, want string) {
	p.t.Helper()
	p.waitOptionWithin(30*time.Second, pane, name, want)
}

// waitOptionWithin is waitOption with its own bound: a real agent's start
// (OpenCode's takes 10 s of CPU) is slower than a fake's on a busy machine.
func (p *plugin) waitOptionWithin(bound time.Duration, pane, name, want string) {
	p.t.Helper()
	tmuxtest.Eventually(p.t, bound, name+" = "+want, func() bool { return p.srv.Option(pane, name) == want })
}

// wantLive fails a test whose loop is live but whose watcher does not say
// so in @ralph-live, the one option the scripts read.
func wantLive(t *testing.T, srv *tmuxtest.Server, pane string) {
	t.Helper()
	if srv.Option(pane, "@ralph-live") != "1" {
		t.Fatalf("the watcher does not say the loop of %s is live (@ralph-live %q, @ralph-state %q)",
			pane, srv.Option(pane, "@ralph-live"), srv.Option(pane, "@ralph-state"))
	}
}

// messages is the server's message log: what display-message showed.
func (p *plugin) messages() string {
	out, _ := p.srv.Tmux("show-messages")
	return out
}

func (p *plugin) waitMessage(text string) {
	p.t.Helper()
	tmuxtest.Eventually(p.t, 30*time.Second, "the message "+text, func() bool { return strings.Contains(p.messages(), text) })
}

// statusRight is the status line's right side as the client draws it.
func (p *plugin) statusRight() string {
	return p.srv.Must("display-message", "-p", "-t", "main:", "#{E:status-right}")
}

// settings the tmux configuration gives before tpm runs the plugin.
func (p *plugin) configure(options map[string]string) {
	for name, value := range options {
		p.srv.Must("set-option", "-g", name, value)
	}
}

// project makes a folder with a prompt file and a window on it, current on
// the attached client; it returns the folder and the window's pane.
func (p *plugin) project(name, prompt string) (string, string) {
	p.t.Helper()
	dir := filepath.Join(p.srv.Dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "PROMPT.md"), []byte(prompt), 0o644); err != nil {
		p.t.Fatal(err)
	}
	pane := strings.TrimSpace(p.srv.Must("new-window", "-P", "-F", "#{pane_id}", "-t", "main:", "-c", tmux.Escape(tmux.EscapeFormat(dir))))
	return dir, pane
}

// command is a fake agent as @ralph-command takes it: one shell line.
func command(argv []string) string {
	var words []string
	for _, w := range argv {
		words = append(words, shQuote(w))
	}
	return strings.Join(words, " ")
}

// noMessage fails the test if the plugin said any of texts.
func (p *plugin) noMessage(texts ...string) {
	p.t.Helper()
	for _, text := range texts {
		if strings.Contains(p.messages(), text) {
			p.t.Errorf("the plugin said %q:\n%s", text, p.messages())
		}
	}
}
