package cast

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// maxSize is tmux's own bound on a window's width and height.
const maxSize = 10000

// dumpTimeout bounds the whole run of the private tmux server.
const dumpTimeout = 60 * time.Second

// Dump returns the screen a cast ends on, as text, trailing blank lines
// trimmed. tmux itself is the terminal: a private server gets a window of
// the cast's size, a program there writes the recorded output raw, and the
// screen is captured.
func Dump(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("dump cast: %v", err)
	}
	h, events, err := Read(f)
	f.Close()
	if err != nil {
		return "", fmt.Errorf("dump cast %s: %v", path, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), dumpTimeout)
	defer cancel()
	return dumpEvents(ctx, h, events)
}

// screenSize is a window size a resize event asks for.
type screenSize struct{ width, height int }

// segments splits the output at each resize: segment i is written at
// size sizes[i].
func segments(h Header, events []Event) (parts [][]byte, sizes []screenSize) {
	parts, sizes = [][]byte{nil}, []screenSize{{h.Width, h.Height}}
	for _, e := range events {
		switch e.Code {
		case Output:
			parts[len(parts)-1] = append(parts[len(parts)-1], e.Data...)
		case Resize:
			w, hh, _ := ParseSize(e.Data) // Read checked it
			parts, sizes = append(parts, nil), append(sizes, screenSize{w, hh})
		}
	}
	return parts, sizes
}

func dumpEvents(ctx context.Context, h Header, events []Event) (string, error) {
	parts, sizes := segments(h, events)
	for _, s := range sizes {
		if s.width > maxSize || s.height > maxSize {
			return "", fmt.Errorf("dump cast: size %dx%d is past tmux's %d", s.width, s.height, maxSize)
		}
	}
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		return "", fmt.Errorf("dump cast: %v", err)
	}
	dir, err := os.MkdirTemp("", "ralph-dump-")
	if err != nil {
		return "", fmt.Errorf("dump cast: %v", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	script, err := writeScript(dir, tmuxPath, parts)
	if err != nil {
		return "", fmt.Errorf("dump cast: %v", err)
	}
	t := privateTmux{path: tmuxPath, env: dumpEnv(dir)}
	defer func() { _, _ = t.run(context.Background(), "kill-server") }()
	first := sizes[0]
	if _, err := t.run(ctx, "-f", "/dev/null", "new-session", "-d", "-s", "dump",
		"-x", strconv.Itoa(first.width), "-y", strconv.Itoa(first.height), "sh", script); err != nil {
		return "", err
	}
	for i := range parts {
		if err := t.waitForTitle(ctx, segmentTitle(i)); err != nil {
			return "", err
		}
		if i+1 == len(parts) {
			break
		}
		next := sizes[i+1]
		if _, err := t.run(ctx, "resize-window", "-t", "dump", "-x", strconv.Itoa(next.width), "-y", strconv.Itoa(next.height)); err != nil {
			return "", err
		}
		if _, err := t.run(ctx, "wait-for", "-S", segmentGo(i+1)); err != nil {
			return "", err
		}
	}
	screen, err := t.run(ctx, "capture-pane", "-p", "-t", "dump")
	if err != nil {
		return "", err
	}
	return TrimScreen(screen), nil
}

// TrimScreen drops a captured screen's trailing blank lines; a screen with
// text ends in one newline.
func TrimScreen(screen string) string {
	lines := strings.Split(screen, "\n")
	for len(lines) > 0 && strings.TrimRight(lines[len(lines)-1], " ") == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func segmentTitle(i int) string { return "ralph-dump-segment-" + strconv.Itoa(i) }
func segmentGo(i int) string    { return "ralph-dump-go-" + strconv.Itoa(i) }

// writeScript writes each segment to a file and the shell script that
// writes them raw into the pane. After each segment the script sets the
// pane's title: tmux sets it only once it has parsed every byte before, so
// the screen is complete when the title shows. (A cursor-position query
// would do the same, but its answer could not be told from the answers to
// the queries the agent itself made.)
func writeScript(dir, tmuxPath string, parts [][]byte) (string, error) {
	var sh strings.Builder
	sh.WriteString("stty raw -echo -opost\n")
	for i, p := range parts {
		file := filepath.Join(dir, fmt.Sprintf("segment-%d", i))
		if err := os.WriteFile(file, p, 0o600); err != nil {
			return "", err
		}
		if i > 0 {
			fmt.Fprintf(&sh, "%s wait-for %s\n", shellQuote(tmuxPath), segmentGo(i))
		}
		// CAN and ST first end any escape sequence or string the output left open.
		fmt.Fprintf(&sh, "cat %s\nprintf '\\030\\033\\\\\\033]2;%s\\033\\\\'\n", shellQuote(file), segmentTitle(i))
	}
	sh.WriteString("exec cat >/dev/null\n")
	script := filepath.Join(dir, "play.sh")
	return script, os.WriteFile(script, []byte(sh.String()), 0o600)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// dumpEnv is this process's environment with tmux's own variables replaced,
// so nothing reaches a person's server.
func dumpEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX") {
			env = append(env, kv)
		}
	}
	return append(env, "TMUX_TMPDIR="+dir)
}

// privateTmux runs tmux commands against the dump's own server.
type privateTmux struct {
	path string
	env  []string
}

// waitForTitle polls the pane's title until it reads title.
func (t privateTmux) waitForTitle(ctx context.Context, title string) error {
	for {
		got, err := t.run(ctx, "display-message", "-p", "-t", "dump", "#{pane_title}")
		if err != nil {
			return err
		}
		if strings.TrimSuffix(got, "\n") == title {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dump cast: the screen never settled: %v", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (t privateTmux) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, t.path, append([]string{"-L", "ralph-dump"}, args...)...)
	cmd.Env = t.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("dump cast: tmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}
