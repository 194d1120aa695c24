package gitwork

import (
	"path/filepath"
	"strings"
)

// CheckoutCopy is, for a file inside a loop's worktree (made by
// EnsureWorktree: CHECKOUT/.ralph/worktrees/NAME), the same file in the
// person's checkout: the copy they may edit while the loop reads its own.
// "" when path is not inside such a worktree.
func CheckoutCopy(worktree, path string) string {
	if worktree == "" || path == "" {
		return ""
	}
	rel, err := filepath.Rel(worktree, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	root := filepath.Dir(worktree)
	if filepath.Base(root) != "worktrees" || filepath.Base(filepath.Dir(root)) != ".ralph" {
		return ""
	}
	return filepath.Join(filepath.Dir(filepath.Dir(root)), rel)
}
