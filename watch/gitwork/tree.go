package gitwork

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Head is dir's HEAD commit, "" outside git or before the first commit.
func Head(dir string) string {
	out, err := run(dir, "rev-parse", "-q", "--verify", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Commits counts the commits from one HEAD to another (0 when either is unknown).
func Commits(dir, from, to string) int {
	if from == "" || to == "" || from == to {
		return 0
	}
	out, err := run(dir, "rev-list", "--count", from+".."+to)
	if err != nil {
		return 0
	}
	var n int
	_, _ = fmt.Sscan(strings.TrimSpace(out), &n)
	return n
}

// TreeChanged reports whether two trees of WorkTree differ in a file other
// than the ones named (absolute paths).
func TreeChanged(dir, from, to string, except ...string) (bool, error) {
	if from == to {
		return false, nil
	}
	out, err := run(dir, "diff", "--name-only", "-z", "--no-renames", from, to)
	if err != nil {
		return false, err
	}
	top, err := run(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return false, err
	}
	skip := map[string]bool{}
	for _, p := range except {
		if rel, err := filepath.Rel(strings.TrimSpace(top), p); err == nil {
			skip[filepath.ToSlash(rel)] = true
		}
	}
	for _, name := range strings.Split(out, "\x00") {
		if name != "" && !skip[name] {
			return true, nil
		}
	}
	return false, nil
}

// Diff is the diff from one tree of WorkTree to another, the files named
// (absolute paths) left out; "" when nothing changed.
func Diff(dir, from, to string, except ...string) (string, error) {
	top, err := run(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	args := []string{"diff", "--no-ext-diff", "--no-color", from, to, "--", ":(top)"}
	for _, p := range except {
		if rel, err := filepath.Rel(strings.TrimSpace(top), p); err == nil && !strings.HasPrefix(rel, "..") {
			args = append(args, ":(top,exclude)"+filepath.ToSlash(rel))
		}
	}
	return run(dir, args...)
}

// maxWalked bounds the files FolderPrint looks at.
const maxWalked = 100_000

// FolderPrint sums up a folder that is not in git by its files' names,
// sizes and times, the paths named (absolute) and dot folders left out:
// two equal prints mean nothing in it was written.
func FolderPrint(dir string, except ...string) string {
	skip := map[string]bool{}
	for _, p := range except {
		skip[p] = true
	}
	h, n := sha256.New(), 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || skip[path] {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > maxWalked {
			return filepath.SkipAll
		}
		if info, err := d.Info(); err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00", path, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

// CommitTree is the tree of commit in dir, as WorkTree gives one.
func CommitTree(dir, commit string) (string, error) {
	out, err := run(dir, "rev-parse", "-q", "--verify", commit+"^{tree}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}
