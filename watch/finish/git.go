package finish

import (
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
)

// git runs git in dir (gitwork's runner) and returns its standard output,
// trimmed of the final newline.
func git(dir string, args ...string) (string, error) {
	out, err := gitwork.Run(dir, args...)
	if err != nil {
		return out, err
	}
	return strings.TrimSuffix(out, "\n"), nil
}

// ok runs git and reports whether it exited 0.
func ok(dir string, args ...string) bool {
	_, err := git(dir, args...)
	return err == nil
}

// lines splits git's output into its non-empty lines.
func lines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

// checkedOut is the working tree that has branch checked out, "" if none.
func checkedOut(repo, branch string) string {
	out, err := git(repo, "worktree", "list", "--porcelain")
	if err != nil {
		return ""
	}
	path := ""
	for _, l := range strings.Split(out, "\n") {
		if p, found := strings.CutPrefix(l, "worktree "); found {
			path = p
		}
		if l == "branch refs/heads/"+branch {
			return path
		}
	}
	return ""
}

// dirty lists what is uncommitted in a working tree: tracked changes, and
// untracked files too when untracked is set.
func dirty(dir string, untracked bool) ([]string, error) {
	mode := "--untracked-files=no"
	if untracked {
		mode = "--untracked-files=all"
	}
	out, err := git(dir, "status", "--porcelain=v1", mode)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 3 {
			files = append(files, l[3:])
		}
	}
	return files, nil
}

// unmerged lists the files git left in conflict.
func unmerged(dir string) []string {
	out, _ := git(dir, "diff", "--name-only", "--diff-filter=U")
	return lines(out)
}
