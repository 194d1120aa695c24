package report

import (
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/history"
)

// changedFiles are the files each iteration's commit changed, when the loop
// committed its iterations (--commit: "ralph NAME: iteration N") and its
// branch is still there; empty otherwise.
func changedFiles(run *history.Run) map[int][]string {
	st := run.State
	dir, ref := st.Worktree, st.WorktreeBranch
	if dir == "" {
		dir, ref = st.Dir, "HEAD"
	}
	if dir == "" || ref == "" {
		return nil
	}
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	out, err := gitwork.Run(dir, "log", "-n", "5000", "--format=%x01%s", "--name-only", ref, "--")
	if err != nil {
		return nil
	}
	subject := regexp.MustCompile(`^ralph ` + regexp.QuoteMeta(run.Name) + `: iteration (\d+)`)
	files := map[int][]string{}
	for _, commit := range strings.Split(out, "\x01")[1:] {
		ls := strings.Split(strings.TrimSpace(commit), "\n")
		m := subject.FindStringSubmatch(ls[0])
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, f := range ls[1:] {
			if f = strings.TrimSpace(f); f != "" {
				files[n] = append(files[n], f)
			}
		}
	}
	return files
}
