package watch_test

// OpenCode: its fixture, and the case only it has (a usage limit it keeps
// retrying). Checked with OpenCode 1.18.33.

import (
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// openCode's turns end by the session.idle event its per-loop plugin
// reports, or by its screen (the footer without "esc interrupt", the
// "▣  Build · model · 2.1s" line under the reply) when the plugin is off.
var openCode = agentFixture{
	name:     "opencode",
	title:    "OpenCode",
	protocol: "openai",
	ends:     byHookOrScreen,
	timeout:  240 * time.Second,
	receipts: "hook",
	newline:  true, // it keeps the paste's last newline
}

// At a usage limit OpenCode retries on its own, showing the API's message
// ("The usage limit has been reached [retrying in 2s attempt #2]"): the loop
// takes it for a limit, by the plugin's report and by the screen, and waits,
// the iteration not counted.
func TestOpenCodeUsageLimitIsRecognisedWhileItRetries(t *testing.T) {
	t.Parallel()
	opencode := openCode.find(t)
	for _, hook := range []bool{true, false} {
		t.Run(map[bool]string{true: "plugin", false: "screen"}[hook], func(t *testing.T) {
			t.Parallel()
			r := newAgentRun(t, openCode, opencode, loopPrompt, "!limit 3600")
			defer r.explain()
			r.cfg.LimitWait = time.Hour
			want := contract.ViaScreen
			if hook {
				r.useTurnHook(turnHookWake(t))
				want = contract.ViaHook
			}
			r.waitsForItsLimit(120 * time.Second)
			if _, via, ok := r.ev.first(1, contract.EventLimit); !ok || via != want {
				t.Errorf("limit known by %q (%v), want %q", via, ok, want)
			}
		})
	}
}
