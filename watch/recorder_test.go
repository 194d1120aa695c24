package watch_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// A loop that ends on its own runs @ralph-notify-command with what happened
// in its environment; the command's text is never mixed with the loop's.
func TestNotifyCommandRunsWhenTheLoopEnds(t *testing.T) {
	for _, c := range []struct {
		name, script, want string
		code               int
	}{
		{"done", `[ "$RALPH_ITERATION" = 2 ] && echo RALPH_DONE_1; exit 0`, "done|done_pattern|2|[ralph] test: done after 2 iterations", words.ExitDone},
		{"failed", `exit 127`, "failed|fatal_exit|1|[ralph] test: failed (fatal_exit) after 1 iteration: command not found: exit (exit 127)", words.ExitFailed},
		{"limit", `exit 0`, "limit|max_iterations|3|[ralph] test: reached its limit (max_iterations) without the done signal after 3 iterations", words.ExitLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, "go on", []string{"/bin/sh", "-c", c.script})
			h.cfg.PromptMode = agent.ModeArg
			h.cfg.DonePattern = regexp.MustCompile(`RALPH_DONE_[0-9]+`)
			out := filepath.Join(h.srv.Dir, "notified $(x)")
			h.srv.Must("set-option", "-g", watch.NotifyOption,
				`printf '%s|%s|%s|%s' "$RALPH_STATE" "$RALPH_REASON" "$RALPH_ITERATION" "$RALPH_MESSAGE" > "$OUT"`)
			t.Setenv("OUT", out) // the watcher's environment, which the command inherits
			if res := h.run(60 * time.Second); res.Code != c.code {
				t.Fatalf("exit %d, want %d; output:\n%s", res.Code, c.code, h.out.String())
			}
			var got string
			tmuxtest.Eventually(t, 10*time.Second, "the notify command", func() bool {
				b, _ := os.ReadFile(out)
				got = string(b)
				return strings.HasPrefix(got, c.name)
			})
			if got != c.want {
				t.Errorf("notify command saw %q, want %q", got, c.want)
			}
		})
	}
}
