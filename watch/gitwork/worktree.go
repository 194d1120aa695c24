package gitwork

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// WorkTree records dir's work tree as git would commit it with `git add
// -A` (tracked and untracked files, not ignored ones) and returns the
// tree's id. The index and HEAD are left alone: git keeps what it knows of
// the files in its own index file at index, made from a copy of the
// repository's, so that only files changed since are read again.
func WorkTree(dir, index string) (string, error) {
	if !InGitRepo(dir) {
		return "", ErrNotGit
	}
	if _, err := os.Stat(index); err != nil {
		if err := copyIndex(dir, index); err != nil {
			return "", err
		}
	}
	g := Git{Dir: dir, Env: []string{"GIT_INDEX_FILE=" + index}}
	defer func() { _ = os.Chmod(index, 0o600) }() // git writes it as any file: the state folder's are the owner's alone
	if _, err := g.Run("add", "-A"); err != nil {
		return "", err
	}
	tree, err := g.Run("write-tree")
	return strings.TrimSpace(tree), err
}

// copyIndex starts the index file at to from the repository's index (none
// if it has none yet).
func copyIndex(dir, to string) error {
	from, err := run(dir, "rev-parse", "--git-path", "index")
	if err != nil {
		return err
	}
	if from = strings.TrimSpace(from); !filepath.IsAbs(from) {
		from = filepath.Join(dir, from)
	}
	data, err := os.ReadFile(from)
	if os.IsNotExist(err) {
		return nil // git starts an empty one
	}
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}

// TreeDiff is what changed from one tree to another.
func TreeDiff(dir, from, to string) (receipt.DiffStat, error) {
	out, err := run(dir, "diff", "--shortstat", "--no-ext-diff", from, to)
	if err != nil {
		return receipt.DiffStat{}, err
	}
	d, ok := receipt.ParseShortstat(out)
	if !ok {
		return d, fmt.Errorf("read git diff --shortstat: %q", out)
	}
	return d, nil
}
