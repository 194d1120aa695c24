package scripts_test

import (
	"os"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// TestMain removes what the tests built (tmuxtest.Build) when they end.
func TestMain(m *testing.M) { os.Exit(tmuxtest.Main(m)) }
