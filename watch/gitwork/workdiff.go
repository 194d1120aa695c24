package gitwork

import (
	"os"
	"path/filepath"
	"strings"
)

// EmptyTree is git's tree of no files: the base of a repository that had
// no commit when the loop began.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// DiffWork is the diff from base (a commit or a tree; "": the empty tree)
// to dir's work tree as `git add -A` would commit it: commits since base,
// staged and unstaged changes and new untracked files, ignored files not,
// the paths named (absolute) left out. The repository's index and HEAD are
// left alone: the tree is written through an index file of its own.
func DiffWork(dir, base string, except ...string) (string, error) {
	if !InGitRepo(dir) {
		return "", ErrNotGit
	}
	if base == "" {
		base = EmptyTree
	}
	tmp, err := os.MkdirTemp("", "ralph-diff-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	tree, err := WorkTree(dir, filepath.Join(tmp, "index"))
	if err != nil {
		return "", err
	}
	return Diff(dir, strings.TrimSpace(base), tree, except...)
}
