package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/cast"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// castsOf is the loop's casts folder.
func (c *cli) castsOf(name string) string {
	return filepath.Join(c.srv.Dir, "state", name, state.CastsDir)
}

// readCast reads and checks one cast of a loop.
func (c *cli) readCast(name string, iteration int) (cast.Header, []cast.Event) {
	c.t.Helper()
	path := filepath.Join(c.castsOf(name), cast.FileName(iteration))
	f, err := os.Open(path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	if err := cast.Validate(f); err != nil {
		c.t.Fatalf("%s is not asciicast v2: %v", path, err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		c.t.Fatal(err)
	}
	h, events, err := cast.Read(f)
	if err != nil {
		c.t.Fatal(err)
	}
	return h, events
}

// output is what the events wrote to the terminal.
func output(events []cast.Event) string {
	var b strings.Builder
	for _, e := range events {
		if e.Code == cast.Output {
			b.WriteString(e.Data)
		}
	}
	return b.String()
}

func markers(events []cast.Event) []string {
	var labels []string
	for _, e := range events {
		if e.Code == cast.Marker {
			labels = append(labels, e.Data)
		}
	}
	return labels
}

// A loop records every iteration as a cast of the pane's size with the
// loop's markers; replay --dump of the last one is the screen the loop
// saved, and replay plays the recorded output.
func TestEachIterationIsRecordedAndReplayReproducesItsLastScreen(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pane := c.srv.NewPane()
	size := strings.TrimSpace(c.srv.Must("display", "-p", "-t", pane, "#{pane_width}x#{pane_height}"))
	// Iteration 2 stays at its prompt after the done token: the saved
	// screen is the agent's, not a dead pane's message or the shell after.
	agent := c.srv.FakeAgent("agent", `ready
read
print \e[1;32mworking\e[0m on iteration {{iteration}}
print a line with ünïcödé and a tab:\there
iter 1 exit 0
print \e[33mALL_DONE_7\e[0m
quiet
`)
	c.want(append([]string{"run", "-S", c.srv.Socket, "-t", pane, "--name", "rec", "--restart-delay", "0",
		"--max-iterations", "3", "--done-pattern", "ALL_DONE_[0-9]", "--"}, agent...), 0, "", "")

	got, err := cast.Iterations(c.castsOf("rec"))
	if err != nil || !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("casts of iterations %v (%v), want [1 2]", got, err)
	}
	for _, n := range got {
		h, events := c.readCast("rec", n)
		if h.Name != "rec" || h.Iteration != n || h.Title != cast.DefaultTitle("rec", n) {
			t.Errorf("cast %d: header names %q iteration %d title %q", n, h.Name, h.Iteration, h.Title)
		}
		if gotSize := strings.Join([]string{strconv.Itoa(h.Width), strconv.Itoa(h.Height)}, "x"); gotSize != size {
			t.Errorf("cast %d: size %s, the pane's is %s", n, gotSize, size)
		}
		if want := "working\x1b[0m on iteration " + strconv.Itoa(n); !strings.Contains(output(events), want) {
			t.Errorf("cast %d lacks the agent's raw output %q:\n%q", n, want, output(events))
		}
		if m := markers(events); len(m) == 0 || m[0] != cast.MarkPromptDelivered {
			t.Errorf("cast %d: markers %q, want %q first", n, m, cast.MarkPromptDelivered)
		}
	}
	h, last := c.readCast("rec", 2)
	if m := markers(last); !slices.Contains(m, cast.MarkDoneMatched) {
		t.Errorf("cast 2: markers %q lack %q", m, cast.MarkDoneMatched)
	}

	saved, err := os.ReadFile(filepath.Join(c.srv.Dir, "state", "rec", state.LastScreen))
	if err != nil {
		t.Fatal(err)
	}
	// The saved capture holds history lines above the screen: its last
	// rows, as many as the pane has, are the screen.
	rows := strings.Split(strings.TrimSuffix(string(saved), "\n"), "\n")
	if len(rows) < h.Height {
		t.Fatalf("the saved last screen has %d lines, the pane %d rows:\n%s", len(rows), h.Height, saved)
	}
	screen := cast.TrimScreen(strings.Join(rows[len(rows)-h.Height:], "\n"))
	dump := c.want([]string{"replay", "rec", "--dump"}, 0, "ALL_DONE_7", "")
	if dump != screen {
		t.Errorf("replay --dump:\n%s\nthe saved last screen:\n%s", dump, screen)
	}
	if again := c.want([]string{"replay", "--dump", "rec", "2"}, 0, "", ""); again != dump {
		t.Errorf("replay --dump rec 2 differs from the newest:\n%s", again)
	}

	// Played in a terminal of the pane's size, the replay ends on the same
	// screen; then the cursor goes below it, one line up into the history.
	player := strings.TrimSpace(c.srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
		"sh", "-c", c.bin+" replay rec --speed 100; sleep 60"))
	tmuxtest.Eventually(t, 30*time.Second, "the replay to end", func() bool {
		out, _ := c.srv.Tmux("display", "-p", "-t", player, "#{cursor_x},#{cursor_y},#{pane_height}")
		return strings.Contains(c.srv.Must("capture-pane", "-p", "-t", player), "ALL_DONE_7") &&
			strings.TrimSpace(out) == "0,"+strconv.Itoa(h.Height-1)+","+strconv.Itoa(h.Height)
	})
	if played := cast.TrimScreen(c.srv.Must("capture-pane", "-p", "-S", "-1", "-t", player)); played != dump {
		t.Errorf("replay in a terminal ends on\n%s\nreplay --dump says\n%s", played, dump)
	}

	// asciinema's own player ends on the same screen.
	if _, err := exec.LookPath("asciinema"); err == nil {
		castFile := filepath.Join(c.castsOf("rec"), cast.FileName(2))
		asciinema := strings.TrimSpace(c.srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
			"sh", "-c", "asciinema play -s 100 "+castFile+"; echo; echo PLAYED; sleep 60"))
		tmuxtest.Eventually(t, 30*time.Second, "asciinema play to end", func() bool {
			return strings.Contains(c.srv.Must("capture-pane", "-p", "-t", asciinema), "PLAYED")
		})
		screen, _, _ := strings.Cut(c.srv.Must("capture-pane", "-p", "-S", "-", "-t", asciinema), "\n\nPLAYED")
		if cast.TrimScreen(screen) != dump {
			t.Errorf("asciinema play ends on\n%s\nreplay --dump says\n%s", screen, dump)
		}
	}

	_, first := c.readCast("rec", 1)
	if played := c.want([]string{"replay", "rec", "1", "--speed", "100"}, 0, "", ""); played != output(first) {
		t.Errorf("replay at speed 100 wrote\n%q\nthe cast's output is\n%q", played, output(first))
	}

	c.want([]string{"replay", "nosuch"}, 1, "", "ralph-watch: error: no ralph state found for loop 'nosuch'")
	c.want([]string{"replay", "rec", "9"}, 1, "", "ralph-watch: error: loop rec has no cast of iteration 9 (casts of iterations 1-2)")
	c.want([]string{"replay", "rec", "--speed", "0"}, 2, "", "ralph-watch: error: invalid --speed 0")
	c.want([]string{"replay", "rec", "--speed", "fast"}, 2, "", "--speed")
	c.want([]string{"replay", "rec", "two"}, 2, "", `ralph-watch: error: invalid iteration "two"`)
}

// Past --cast-limit the oldest casts go first and the newest stays;
// --no-cast records none, and replay says so.
func TestCastLimitDropsTheOldestAndNoCastRecordsNone(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "ready\nread\nflood 3k\nexit 0\n")
	c.want(append([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "small", "--restart-delay", "0",
		"--max-iterations", "5", "--cast-limit", "8KB", "--"}, agent...), 0, "", "")
	got, err := cast.Iterations(c.castsOf("small"))
	if err != nil || len(got) == 0 || len(got) >= 5 || got[len(got)-1] != 5 {
		t.Fatalf("casts of iterations %v (%v): want the newest few, ending with 5", got, err)
	}
	var total int64
	for i, n := range got {
		if i > 0 && got[i-1] != n-1 {
			t.Errorf("casts of iterations %v: an older one was kept over a newer", got)
		}
		info, _ := os.Stat(filepath.Join(c.castsOf("small"), cast.FileName(n)))
		total += info.Size()
		c.readCast("small", n)
	}
	if total > 8<<10 {
		t.Errorf("casts hold %d bytes, over the limit of 8KB", total)
	}

	c.want(append([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "none", "--restart-delay", "0",
		"--max-iterations", "2", "--no-cast", "--"}, agent...), 0, "", "")
	if got, err := cast.Iterations(c.castsOf("none")); err != nil || len(got) != 0 {
		t.Errorf("--no-cast left casts of iterations %v (%v)", got, err)
	}
	c.want([]string{"replay", "none"}, 1, "", "ralph-watch: error: loop none has no casts (was it run with --no-cast")
	c.want([]string{"run", "--cast-limit", "lots", "--", "true"}, 2, "", "--cast-limit")
}

// A pane resized while the agent runs leaves a resize event in the cast
// once the loop sees it, and the dump ends at the new size.
func TestAResizedPaneIsRecordedInTheCast(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := c.srv.FakeAgent("agent", "print before the resize\nsleep 2s\nprint after the resize\nsleep 1s\nexit 0\n")
	pane := c.detach("resized", append([]string{"--prompt-mode", "arg", "--max-iterations", "1", "--poll-interval", "200ms", "--"}, agent...)...)
	path := filepath.Join(c.castsOf("resized"), cast.FileName(1))
	tmuxtest.Eventually(t, 30*time.Second, "the first output in the cast", func() bool {
		data, _ := os.ReadFile(path)
		return strings.Contains(string(data), "before the resize")
	})
	window := strings.TrimSpace(c.srv.Must("display", "-p", "-t", pane, "#{window_id}"))
	c.srv.Must("resize-window", "-t", window, "-x", "100", "-y", "30")
	size := strings.TrimSpace(c.srv.Must("display", "-p", "-t", pane, "#{pane_width}x#{pane_height}"))
	c.until("resized", "the loop to end", func(st *state.State) bool { return st.ExitReason != nil })

	_, events := c.readCast("resized", 1)
	var resizes []string
	for _, e := range events {
		if e.Code == cast.Resize {
			resizes = append(resizes, e.Data)
		}
	}
	if !slices.Equal(resizes, []string{size}) {
		t.Errorf("resize events %q, want [%s]", resizes, size)
	}
	if dump := c.want([]string{"replay", "--dump", "resized"}, 0, "after the resize", ""); !strings.Contains(dump, "before the resize") {
		t.Errorf("replay --dump lost the output before the resize:\n%s", dump)
	}
}
