package watch_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/cast"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Each iteration's cast holds the agent's output and its markers in the
// order the turn went: the prompt delivered, then the turn's end (here
// told by the agent's own hook). The stream's reader writes the output
// while the loop writes the markers: run it with -race too.
func TestEachIterationsCastHoldsItsOutputAndMarkersInOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "do the work", nil)
	_, run := h.hooked(newRelease)
	h.cfg.Agent.IdleGrace = 0
	h.cfg.PollInterval = 10 * time.Second
	h.cfg.ReadyTimeout = time.Minute
	h.cfg.MaxIterations = 2
	h.cfg.CastLimit = 1 << 20
	h.wantResult(run(60*time.Second), contract.ExitDone, "max_iterations")
	for _, n := range []int{1, 2} {
		f, err := os.Open(filepath.Join(h.store.Path(state.CastsDir), cast.FileName(n)))
		if err != nil {
			t.Fatal(err)
		}
		head, events, err := cast.Read(f)
		f.Close()
		if err != nil {
			t.Fatalf("cast %d: %v", n, err)
		}
		if head.Name != "test" || head.Iteration != n {
			t.Errorf("cast %d names %q iteration %d", n, head.Name, head.Iteration)
		}
		var out strings.Builder
		var marks []string
		for _, e := range events {
			switch e.Code {
			case cast.Output:
				out.WriteString(e.Data)
			case cast.Marker:
				marks = append(marks, e.Data)
			}
		}
		if want := "Done with iteration " + strconv.Itoa(n); !strings.Contains(out.String(), want) {
			t.Errorf("cast %d lacks %q:\n%q", n, want, out.String())
		}
		if want := []string{cast.MarkPromptDelivered, cast.MarkTurnEnd}; !slices.Equal(marks, want) {
			t.Errorf("cast %d: markers %q, want %q", n, marks, want)
		}
	}
}
