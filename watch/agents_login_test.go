package watch_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// An agent whose key the API refuses (401, 403) says so on its screen; the
// loop ends at once with that sentence instead of failing iteration after
// iteration: no iteration can work until the person logs in.
func TestRealAgentsEndTheLoopAtOnceWhenTheAPIRefusesTheirKey(t *testing.T) {
	t.Parallel()
	for _, fx := range []agentFixture{claudeCode, codexCLI, geminiCLI, openCode, copilotCLI} {
		codes := []string{"401"}
		if fx.name == "claude" {
			codes = append(codes, "403") // it retries a 401, not a 403
		}
		for _, code := range codes {
			t.Run(fx.name+" "+code, func(t *testing.T) {
				t.Parallel()
				exe := fx.find(t)
				r := newAgentRun(t, fx, exe, loopPrompt, "!unauthorized "+code)
				defer r.explain()
				r.cfg.MaxIterations = 5
				r.cfg.InactivityTimeout = 60 * time.Second
				res := r.run(fx.timeout)
				if res.Code != contract.ExitFailed || res.Reason != contract.ReasonNotLoggedIn {
					t.Errorf("result %+v, want exit 1 %s", res, contract.ReasonNotLoggedIn)
				}
				if out := r.out.String(); strings.Count(out, "starting iteration") != 1 || !strings.Contains(out, fx.name+" says ") {
					t.Errorf("want one iteration, ended with the agent's sentence:\n%s", out)
				}
			})
		}
	}
}
