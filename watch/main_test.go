package watch_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// TestMain removes what the tests built (tmuxtest.Main) and gives git, which the loops of these tests run to commit, one
// author and no person's configuration. It is set once for the whole test
// binary: the tests run in parallel, where t.Setenv cannot be used.
func TestMain(m *testing.M) {
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME": "ralph test", "GIT_AUTHOR_EMAIL": "ralph@example.invalid",
		"GIT_COMMITTER_NAME": "ralph test", "GIT_COMMITTER_EMAIL": "ralph@example.invalid",
		"GIT_CONFIG_GLOBAL": "/dev/null",
	} {
		if err := os.Setenv(k, v); err != nil {
			panic(err)
		}
	}
	os.Exit(tmuxtest.Main(m))
}

// shQuote quotes s as one word for sh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
