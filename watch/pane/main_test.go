package pane

import (
	"os"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// TestMain runs the tests with the tmux RALPH_TEST_TMUX names (tmuxtest.Main).
func TestMain(m *testing.M) { os.Exit(tmuxtest.Main(m)) }
