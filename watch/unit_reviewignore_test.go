package watch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// A review's notes file, .ralph/review.md in the person's checkout, is
// nobody's file there: while it is written git status does not show .ralph,
// and the person's .gitignore is not written.
func TestUnitTasksAReviewsNotesFileIsIgnoredByGit(t *testing.T) {
	var notes, during string
	u := planned(t, "- [ ] Only task\n", func(u *unit, n int, prompt string) {
		switch n {
		case 1, 3:
			u.work(n)
			u.tick(prompt)
		case 2:
			_ = os.MkdirAll(filepath.Dir(notes), 0o755)
			_ = os.WriteFile(notes, []byte("The parser drops the last line.\n"), 0o644)
			out, _ := exec.Command("git", "-C", u.cfg.Dir, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
			during = string(out)
		}
	})
	if out, err := exec.Command("git", "init", "-q", u.cfg.Dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	notes = filepath.Join(u.cfg.Dir, ".ralph", "review.md")
	u.cfg.Review = true
	u.wantResult(u.run(), contract.ExitDone, "tasks_done")
	if strings.Contains(during, ".ralph") || during == "" {
		t.Errorf("git status while the review's notes are written:\n%s", during)
	}
	if _, err := os.Stat(filepath.Join(u.cfg.Dir, ".gitignore")); err == nil {
		t.Errorf("the loop wrote the person's .gitignore")
	}
}
