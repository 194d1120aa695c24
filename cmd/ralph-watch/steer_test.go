package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// A loop that reached its limit: resume says how to raise it; a note and
// resume with a raised limit go on where it ended, the note in the next
// prompt once.
func TestResumeWithARaisedLimitGoesOnAndANoteReachesTheNextPrompt(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := []string{"sh", "-c", `printf %s "$1" > "$0/prompt-$RALPH_ITERATION"`, c.srv.Dir}
	c.want(append([]string{"run", "-S", c.srv.Socket, "-t", c.srv.NewPane(), "--name", "lim", "--restart-delay", "0",
		"--prompt-mode", "arg", "--max-iterations", "2", "--done-pattern", "NEVER", "--"}, agent...), 3, "", "")
	c.want([]string{"resume", "lim"}, 1, "", "ralph loop for 'lim' has status 'limit': it ended at its limit (max_iterations); raise it to go on: 'ralph-watch resume lim --max-iterations 12'")
	c.want([]string{"set", "--max-iterations", "1", "lim"}, 2, "", "--max-iterations 1 is below the 2 iterations already run")
	c.want([]string{"note", "lim", "-"}, 2, "", "the note is empty")
	c.want([]string{"note", "lim", "use the v2 API"}, 0, "note for the next iteration of lim", "")
	c.want([]string{"status", "lim"}, 0, "Notes for the next iteration: 1\n  use the v2 API\n", "")
	c.want([]string{"resume", "--max-iterations", "+2", "lim"}, 0, "resumed ralph loop for lim", "")
	st := c.until("lim", "the loop to end again", func(st *state.State) bool { return st.ExitReason != nil && st.CurrentIteration == 4 })
	if *st.ExitReason != "max_iterations" || st.MaxIterations != 4 || len(st.IterationDurations) != 4 {
		t.Errorf("ended with %s at iteration %d of %d, durations %v", *st.ExitReason, st.CurrentIteration, st.MaxIterations, st.IterationDurations)
	}
	read := func(n string) string {
		data, _ := os.ReadFile(filepath.Join(c.srv.Dir, "prompt-"+n))
		return string(data)
	}
	if got := read("3"); got != "do the next task\n\n## Notes from the person\n\nuse the v2 API" {
		t.Errorf("prompt 3: %q", got)
	}
	if got := read("4"); got != "do the next task\n" {
		t.Errorf("prompt 4: %q", got)
	}
	log := c.log("lim")
	for _, want := range []string{"[SET] max-iterations 4 at iteration 2 (was max-iterations 2)", `[NOTE] iteration 3: "use the v2 API"`, "[START] iteration 3/4"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}
