package cast

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/creack/pty"
)

// asciinema runs asciinema's own command line on a terminal of its own (it
// reads keys from /dev/tty) of the given size, and returns what it wrote.
func asciinema(t *testing.T, width, height int, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "asciinema", args...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(width), Rows: uint16(height)})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("asciinema %v: %v\n%s", args, err, errb.Bytes())
	}
	return out.Bytes()
}

func requireAsciinema(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("asciinema"); err != nil {
		t.Skip("asciinema not installed")
	}
}

func TestAsciinemaPlaysARecordedIterationUnchanged(t *testing.T) {
	requireAsciinema(t)
	raw, _, width, height := recordPane(t)
	path := filepath.Join(t.TempDir(), FileName(7))
	r, err := Create(path, Header{Width: width, Height: height, Name: "web", Iteration: 7,
		Command: "claude", Env: map[string]string{"TERM": "tmux-256color"}}, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Marker(at(0), MarkPromptDelivered); err != nil {
		t.Fatal(err)
	}
	for i, ms := 0, 0; len(raw[i:]) > 0; ms += 3 {
		n := min(37, len(raw[i:])) // 37 splits UTF-8 sequences and escapes alike
		if err := r.Output(at(ms), raw[i:i+n]); err != nil {
			t.Fatal(err)
		}
		i += n
	}
	if err := r.Resize(at(900), width-10, height-5); err != nil {
		t.Fatal(err)
	}
	if err := r.Marker(at(1000), MarkDoneMatched); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if got := asciinema(t, 80, 24, "cat", path); !bytes.Equal(got, raw) {
		t.Errorf("asciinema cat wrote %d bytes unlike the %d recorded:\n%q", len(got), len(raw), got)
	}
	if got := asciinema(t, 80, 24, "play", "-s", "100", "-i", "0.01", path); !bytes.Equal(got, raw) {
		t.Errorf("asciinema play wrote %d bytes unlike the %d recorded:\n%q", len(got), len(raw), got)
	}
}

func TestAsciinemasOwnRecordingPassesAndDumpsAsThePaneShowed(t *testing.T) {
	requireAsciinema(t)
	_, want, width, height := recordPane(t)
	draw, err := filepath.Abs("testdata/draw.sh")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "asciinema.cast")
	asciinema(t, width, height, "rec", "-q", "-c", "sh '"+draw+"'", path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := Read(f)
	f.Close()
	if err != nil {
		t.Fatalf("asciinema's own cast is refused: %v", err)
	}
	if h.Width != width || h.Height != height {
		t.Fatalf("asciinema recorded at %dx%d, the pane was %dx%d", h.Width, h.Height, width, height)
	}
	got, err := Dump(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Dump of asciinema's recording =\n%s\nthe pane showed\n%s", got, want)
	}
}
