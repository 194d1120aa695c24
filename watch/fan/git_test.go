package fan

import (
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
)

// The fan runs git by gitwork's runner: its errors read as the loop's and
// finish's do ("git ARGS: cause: what git said").
func TestFanGitErrorsReadAsTheLoopsDo(t *testing.T) {
	dir := t.TempDir()
	_, want := gitwork.Run(dir, "rev-parse", "--verify", "HEAD")
	if _, err := git(dir, nil, "rev-parse", "--verify", "HEAD"); want == nil || err == nil || err.Error() != want.Error() {
		t.Errorf("git: %v, want %v", err, want)
	}
	if _, err := gitwork.Run(dir, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	if _, err := work(dir, "a", "b", "PLAN.md"); err == nil || !strings.HasPrefix(err.Error(), "git diff --binary a b -- . :(exclude)PLAN.md :(exclude).ralph: exit status 128: ") {
		t.Errorf("work: %v", err)
	}
}
