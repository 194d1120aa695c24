package cast

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// recordPane runs testdata/draw.sh in a pane of a private server while
// pipe-pane keeps every byte the pane receives; it returns those bytes,
// the pane's final screen and its size.
func recordPane(t *testing.T) (raw []byte, screen string, width, height int) {
	t.Helper()
	s := tmuxtest.Start(t)
	draw, err := filepath.Abs("testdata/draw.sh")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(s.Dir, "pane.out")
	// The pane waits for its pipe to be in place before it draws.
	pane := strings.TrimSpace(s.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
		"sh", "-c", "tmux wait-for go; sh '"+draw+"'; exec cat"))
	s.Must("pipe-pane", "-O", "-t", pane, "cat >> '"+out+"'")
	s.Must("wait-for", "-S", "go")
	tmuxtest.Eventually(t, 20*time.Second, "the drawing to reach the pipe", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "end-of-drawing\r\n")
	})
	raw, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	size := strings.Fields(s.Must("display-message", "-p", "-t", pane, "#{pane_width} #{pane_height}"))
	width, height = atoi(t, size[0]), atoi(t, size[1])
	return raw, TrimScreen(s.Must("capture-pane", "-p", "-t", pane)), width, height
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(r-'0')
	}
	return n
}

func TestDumpShowsTheScreenTheRecordedPaneEndedOn(t *testing.T) {
	raw, want, width, height := recordPane(t)
	path := filepath.Join(t.TempDir(), FileName(1))
	r, err := Create(path, Header{Width: width, Height: height, Name: "draw", Iteration: 1}, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Uneven chunks split escapes and UTF-8 sequences, as a stream does.
	sizes := []int{1, 7, 3, 64, 13, 2, 500}
	for i, ms := 0, 0; len(raw) > 0; i, ms = i+1, ms+5 {
		n := min(sizes[i%len(sizes)], len(raw))
		if err := r.Output(at(ms), raw[:n]); err != nil {
			t.Fatal(err)
		}
		raw = raw[n:]
	}
	if err := r.Marker(at(10000), MarkTurnEnd); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := Dump(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(want, "漢字テスト") || !strings.Contains(want, "line five replaced") {
		t.Fatalf("the real pane did not draw the test screen:\n%s", want)
	}
	if got != want {
		t.Errorf("Dump =\n%s\nthe pane showed\n%s", got, want)
	}
}

func TestDumpFollowsAResize(t *testing.T) {
	tmuxtest.Require(t)
	path := filepath.Join(t.TempDir(), FileName(2))
	r, err := Create(path, Header{Width: 80, Height: 24}, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Output(at(1), []byte(strings.Repeat("A", 60))); err != nil {
		t.Fatal(err)
	}
	if err := r.Resize(at(2), 30, 5); err != nil {
		t.Fatal(err)
	}
	if err := r.Output(at(3), []byte("\r\nhello")); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := Dump(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) > 5 || lines[len(lines)-1] != "hello" {
		t.Errorf("Dump after a resize to 30x5 =\n%s", got)
	}
	for _, l := range lines {
		if len(l) > 30 {
			t.Errorf("line %q is wider than the resized screen", l)
		}
	}
}

func TestDumpOfAnEmptyCastIsEmpty(t *testing.T) {
	tmuxtest.Require(t)
	path := filepath.Join(t.TempDir(), FileName(1))
	r, err := Create(path, Header{Width: 80, Height: 24}, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := Dump(path); err != nil || got != "" {
		t.Errorf("Dump = %q, %v; want an empty screen", got, err)
	}
}

func TestDumpOfACastCutInsideAnEscapeSequence(t *testing.T) {
	tmuxtest.Require(t)
	for _, tail := range []string{"\x1b[1;", "\x1b]0;a title never ended", "\x1bP+q", "\xe6\xbc"} {
		path := filepath.Join(t.TempDir(), FileName(1))
		r, err := Create(path, Header{Width: 80, Height: 24}, start, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Output(at(1), []byte("kept\r\n"+tail)); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := Dump(path)
		if err != nil {
			t.Fatalf("tail %q: %v", tail, err)
		}
		if !strings.HasPrefix(got, "kept\n") {
			t.Errorf("tail %q: Dump = %q", tail, got)
		}
	}
}

func TestDumpWaitsPastTheRecordingsOwnTerminalQueries(t *testing.T) {
	tmuxtest.Require(t)
	path := filepath.Join(t.TempDir(), FileName(1))
	r, err := Create(path, Header{Width: 80, Height: 24}, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Agents ask the terminal for the cursor position and its attributes;
	// tmux answers into the pane, where Dump's own sync must not mistake them.
	if err := r.Output(at(1), []byte("\x1b[6n\x1b[c\x1b]11;?\x07")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4000; i++ {
		if err := r.Output(at(2), []byte(strings.Repeat("filler ", 10)+"\r\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Output(at(3), []byte("\x1b[6nfinal line\r\n")); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := Dump(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "\nfinal line\n") {
		t.Errorf("Dump did not wait for the whole output:\n%s", got)
	}
}
