package watch_test

// Codex: its fixture, and the case only it has (a usage limit whose reset
// time it shows). Checked with Codex 0.169.0.

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// codexCLI's turns end by its notify program (which also fires for its
// title side thread: that one must not end the turn), or by its "Worked
// for" line when the hook is off.
var codexCLI = agentFixture{
	name:     "codex",
	title:    "Codex",
	protocol: "openai",
	ends:     byHookOrScreen,
	timeout:  240 * time.Second,
}

// At a usage limit Codex says "You’ve hit your usage limit. … try again at
// 9:47 AM." (and opens a dialog offering another model): the loop waits for
// that time, the iteration not counted, and types nothing into the dialog.
func TestCodexUsageLimitWaitsForTheResetTimeItShows(t *testing.T) {
	codex := codexCLI.find(t)
	t.Parallel()
	r := newAgentRun(t, codexCLI, codex, loopPrompt, "!limit 1200")
	reset := time.Now().Add(20 * time.Minute) // after the wait for an agent's place, which took minutes in CI
	defer r.explain()
	st := r.waitsForItsLimit(180 * time.Second)
	out := r.out.String()
	// Codex shows the reset to the minute (the fake sets it as the request
	// comes, a little after reset); the loop waits until then.
	shown := regexp.MustCompile(`waiting for limit reset \((\d\d:\d\d)\)`).FindStringSubmatch(out)
	near := false
	for d := -time.Minute; d <= 3*time.Minute && shown != nil; d += time.Minute {
		near = near || shown[1] == reset.Add(d).Format("15:04")
	}
	if !near {
		t.Errorf("loop waits until %v, want about %s (the reset Codex shows)", shown, reset.Format("15:04"))
	}
	if st.WaitingUntil == "" {
		t.Errorf("state after the limit: not waiting, want waiting until the reset")
	}
	log, _ := os.ReadFile(r.store().Path(state.LogFile))
	if !strings.Contains(string(log), "LIMIT") {
		t.Errorf("%s lacks the LIMIT line:\n%s", state.LogFile, log)
	}
	if got := r.prompts(); len(got) != 1 {
		t.Errorf("Codex sent %d turns, want 1 (nothing typed into its limit dialog): %q", len(got), got)
	}
}
