package finish

import (
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
)

// finish runs git by gitwork's runner: its errors read as the loop's and
// the fan's do ("git ARGS: cause: what git said").
func TestFinishGitErrorsReadAsTheLoopsDo(t *testing.T) {
	dir := t.TempDir()
	_, want := gitwork.Run(dir, "rev-parse", "--verify", "HEAD")
	if _, err := git(dir, "rev-parse", "--verify", "HEAD"); want == nil || err == nil || err.Error() != want.Error() {
		t.Errorf("git: %v, want %v", err, want)
	}
}
