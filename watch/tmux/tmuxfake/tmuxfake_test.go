package tmuxfake_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// wrapper is the loop's command form in type mode.
func wrapper(nonce string, argv ...string) []string {
	script := `set -m; n=$1; shift; "$@"; rc=$?; printf '\033]7777;ralph-exit;%s;%s\007' "$n" "$rc"; exit "$rc"`
	return append([]string{"/bin/sh", "-c", script, "ralph", nonce}, argv...)
}

// newPane is a pane that remains when its program exits, as the loop has it.
func newPane(t *testing.T, c *tmuxfake.Client) string {
	t.Helper()
	id, err := c.NewWindow(tmux.NewWindowRequest{Session: "main", Name: "w", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetPaneOptions(id, []tmux.Option{{Name: "remain-on-exit", Value: "on"}}); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestAProgramAnswersPasteAndEnterAndItsExitIsPipedWithTheMarker(t *testing.T) {
	var argv []string
	c := tmuxfake.New(func(a []string) *tmuxfake.Program {
		argv = a
		return tmuxfake.REPL("> ", func(t *tmuxfake.Term, input string) {
			t.Write("you said " + input)
			t.Exit(3)
		})
	})
	id := newPane(t, c)
	fifo := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	piped := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		piped <- string(b)
	}()
	if err := c.PipePane(id, "exec cat > '"+fifo+"'"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Respawn(tmux.RespawnRequest{Pane: id, Command: wrapper("n1", "agent", "-x")}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(argv, []string{"agent", "-x"}) {
		t.Errorf("program launched with %q, want the agent's own argv", argv)
	}
	if err := c.Paste(id, "buf", []byte("hello")); err != nil {
		t.Error(err)
	}
	if screen, _ := c.Capture(tmux.CaptureRequest{Pane: id}); screen != "> hello\n" {
		t.Errorf("screen after the paste = %q", screen)
	}
	if err := c.SendKeys(id, "Enter"); err != nil {
		t.Error(err)
	}
	if err := c.PipePane(id, ""); err != nil {
		t.Error(err)
	}
	p, _ := c.Pane(id)
	if !p.Dead || p.DeadStatus != "3" || p.PID != 0 {
		t.Errorf("pane after the exit = %+v, want dead with status 3 and no pid", p)
	}
	if got := c.Screen(id); got != "> hello\nyou said hello\n" {
		t.Errorf("screen = %q", got)
	}
	r.Close() // the reader's own write end goes: what was read is all there is
	select {
	case got := <-piped:
		if want := "> hello\nyou said hello\033]7777;ralph-exit;n1;3\007"; got != want {
			t.Errorf("piped %q, want %q", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Error("the reader did not end")
	}
	if calls := c.Calls("paste", "send-keys"); len(calls) != 2 || calls[0].Args[0] != "hello" || calls[1].Args[0] != "Enter" {
		t.Errorf("calls = %+v", calls)
	}
}

func TestPipedOutputReachesTheReaderWithTheExitMarker(t *testing.T) {
	c := tmuxfake.New(func([]string) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(t *tmuxfake.Term) { t.Raw("\033[?2004h"); t.Write("hi\n"); t.Exit(0) }}
	})
	id := newPane(t, c)
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.PipePane(id, "exec cat > '"+path+"'"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Respawn(tmux.RespawnRequest{Pane: id, Command: wrapper("n2", "agent")}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	f, _ := os.Open(path)
	got, _ := io.ReadAll(f)
	f.Close()
	if want := "\033[?2004hhi\n\033]7777;ralph-exit;n2;0\007"; string(got) != want {
		t.Errorf("piped %q, want %q", got, want)
	}
}

func TestCaptureHonoursItsStartAndRespawnClearsTheScreen(t *testing.T) {
	c := tmuxfake.New(func(a []string) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(t *tmuxfake.Term) { t.Write(strings.Join(a, "\n")) }}
	})
	c.Height = 2
	id := newPane(t, c)
	if _, err := c.Respawn(tmux.RespawnRequest{Pane: id, Command: []string{"a", "b", "c", "d"}}); err != nil {
		t.Fatal(err)
	}
	for start, want := range map[int]string{0: "c\nd\n", -1: "b\nc\nd\n", -9: "a\nb\nc\nd\n"} {
		if got, _ := c.Capture(tmux.CaptureRequest{Pane: id, Start: start}); got != want {
			t.Errorf("capture from %d = %q, want %q", start, got, want)
		}
	}
	if p, _ := c.Pane(id); p.Cursor != (tmux.Cursor{X: 1, Y: 1, Visible: true}) {
		t.Errorf("cursor = %+v", p.Cursor)
	}
	if _, err := c.Respawn(tmux.RespawnRequest{Pane: id, Command: []string{"e"}, ClearHistory: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Capture(tmux.CaptureRequest{Pane: id, Start: -9}); got != "e\n" {
		t.Errorf("after a respawn clearing the history: %q", got)
	}
}

func TestOptionsUnknownPanesAndOtherPipes(t *testing.T) {
	c := tmuxfake.New(nil)
	id := newPane(t, c)
	if err := c.SetPaneOptions(id, []tmux.Option{{Name: "remain-on-exit", Value: "on"}}); err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := c.PaneOption(id, "remain-on-exit"); v != "on" || !ok {
		t.Errorf("option = %q %v", v, ok)
	}
	if err := c.SetPaneOptions(id, []tmux.Option{{Name: "remain-on-exit"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.PaneOption(id, "remain-on-exit"); ok {
		t.Error("an empty value did not unset the option")
	}
	if _, err := c.Pane("%99"); !errors.Is(err, tmux.ErrNoPane) {
		t.Errorf("unknown pane: %v", err)
	}
	if err := c.PipePane(id, "tee /tmp/x"); err == nil {
		t.Error("a pipe command other than exec cat > PATH was accepted")
	}
}

func TestUnwrapReadsTheLoopsCommandForms(t *testing.T) {
	argv, nonce, file := tmuxfake.Unwrap(wrapper("n", "claude", "-p"))
	if !reflect.DeepEqual(argv, []string{"claude", "-p"}) || nonce != "n" || file != "" {
		t.Errorf("type mode: %q %q %q", argv, nonce, file)
	}
	stdin := []string{"/bin/sh", "-c", `set -m; n=$1; f=$2; shift 2; "$@" < "$f"; printf ralph-exit`, "ralph", "n", "/p", "cat"}
	if argv, nonce, file = tmuxfake.Unwrap(stdin); !reflect.DeepEqual(argv, []string{"cat"}) || nonce != "n" || file != "/p" {
		t.Errorf("stdin mode: %q %q %q", argv, nonce, file)
	}
	if argv, nonce, _ = tmuxfake.Unwrap([]string{"/bin/sh", "-c", "exec sleep 9"}); len(argv) != 3 || nonce != "" {
		t.Errorf("another command: %q %q", argv, nonce)
	}
}

func TestAPaneWithoutRemainOnExitClosesWithItsProgram(t *testing.T) {
	c := tmuxfake.New(func([]string) *tmuxfake.Program {
		return &tmuxfake.Program{Key: func(t *tmuxfake.Term, key string) { t.Kill(15) }}
	})
	kept, closed := newPane(t, c), newPane(t, c)
	if err := c.SetPaneOptions(closed, []tmux.Option{{Name: "remain-on-exit"}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{kept, closed} {
		if _, err := c.Respawn(tmux.RespawnRequest{Pane: id, Command: []string{"agent"}}); err != nil {
			t.Fatal(err)
		}
		if err := c.SendKeys(id, "q"); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := c.Pane(kept); err != nil || !p.Dead || p.DeadSignal != "15" || p.DeadStatus != "" {
		t.Errorf("pane with remain-on-exit: %+v %v, want dead by signal 15", p, err)
	}
	if _, err := c.Pane(closed); !errors.Is(err, tmux.ErrNoPane) {
		t.Errorf("pane without remain-on-exit: %v, want it gone", err)
	}
}

func TestAClosedPaneAndAStoppedServerFailAsTmuxDoes(t *testing.T) {
	c := tmuxfake.New(nil)
	a, b := newPane(t, c), newPane(t, c)
	c.ClosePane(a)
	if _, _, err := c.Snapshot(tmux.CaptureRequest{Pane: a}); !errors.Is(err, tmux.ErrNoPane) || tmux.NoServer(err) {
		t.Errorf("closed pane: %v", err)
	}
	if _, err := c.Pane(b); err != nil {
		t.Errorf("the other pane: %v", err)
	}
	c.StopServer()
	if err := c.SendKeys(b, "Enter"); !tmux.NoServer(err) {
		t.Errorf("after the server stopped: %v, want no server", err)
	}
	if err := c.Message(b, "hi"); !tmux.NoServer(err) {
		t.Errorf("message after the server stopped: %v", err)
	}
}

func TestArgModeGivesThePromptAsTheLastArgument(t *testing.T) {
	var argv []string
	var stdin string
	c := tmuxfake.New(func(a []string) *tmuxfake.Program {
		return &tmuxfake.Program{Start: func(t *tmuxfake.Term) { argv, stdin = t.Argv, t.Stdin }}
	})
	id := newPane(t, c)
	prompt := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(prompt, []byte("do it;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `set -m; n=$1; f=$2; shift 2; p=$(cat "$f"; printf x); p=${p%x}; "$@" "$p"; printf ralph-exit`
	if _, err := c.Respawn(tmux.RespawnRequest{Pane: id, Command: []string{"/bin/sh", "-c", script, "ralph", "n", prompt, "agent", "-p"}}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(argv, []string{"agent", "-p", "do it;\n"}) || stdin != "do it;\n" {
		t.Errorf("argv %q stdin %q", argv, stdin)
	}
	if n := c.Ops(); n < 3 {
		t.Errorf("ops = %d after three calls", n)
	}
}
