package gitwork

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotGit means a folder is not inside a git working tree.
var ErrNotGit = errors.New("not in a git repository")

// Git is how one git command runs: in Dir, with Env added to the
// watcher's environment and Stdin (nil: none) on its standard input. The
// loop's checks and commit, the fan and finish all run git through it.
type Git struct {
	Dir   string
	Env   []string
	Stdin []byte
}

// Run runs git with args and returns its standard output as git wrote it.
// An error reads "git ARGS: cause: what git said" (its standard error, or
// its standard output when that is empty, as a merge's conflicts are).
func (g Git) Run(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = g.Dir
	if len(g.Env) > 0 {
		cmd.Env = append(os.Environ(), g.Env...)
	}
	if g.Stdin != nil {
		cmd.Stdin = bytes.NewReader(g.Stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		said := strings.TrimSpace(errb.String())
		if said == "" {
			said = strings.TrimSpace(out.String())
		}
		msg := fmt.Sprintf("git %s: %v", shown(args), err)
		if said != "" {
			msg += ": " + said
		}
		return out.String(), errors.New(msg)
	}
	return out.String(), nil
}

// Run runs git with args in dir and returns its standard output as git
// wrote it (see Git.Run).
func Run(dir string, args ...string) (string, error) { return Git{Dir: dir}.Run(args...) }

// run is Run, for this package's own calls.
func run(dir string, args ...string) (string, error) { return Run(dir, args...) }

// shown is args as an error names them: an argument of many lines (a
// commit's message) by its first line.
func shown(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if first, _, many := strings.Cut(a, "\n"); many {
			a = first + "…"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

// InGitRepo reports whether dir is inside a git working tree.
func InGitRepo(dir string) bool {
	if !mayBeInGitRepo(dir) {
		return false // asked each iteration: a folder outside git costs no git run
	}
	out, err := run(dir, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(out) == "true"
}

// ownIgnore is .ralph/.gitignore: git leaves alone what the loop keeps
// there (worktrees, a review's notes) and shows .ralph/config, which a
// project commits on purpose.
const ownIgnore = "# written by ralph-watch: what the loop keeps here is nobody's files\n*\n!config\n"

// IgnoreOwn makes the loop's folder .ralph in the working tree top (made
// if need be) ignored by git, unless it has a .gitignore already: the
// person's own .gitignore is never touched.
func IgnoreOwn(top string) {
	dir := filepath.Join(top, ".ralph")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	path := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(path); err == nil {
		return
	}
	_ = os.WriteFile(path, []byte(ownIgnore), 0o644)
}

// mayBeInGitRepo is false only when git could not find a repository for
// dir: no .git in dir or above it, and no GIT_DIR or GIT_WORK_TREE to name one.
func mayBeInGitRepo(dir string) bool {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" {
		return true
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return true
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); !errors.Is(err, os.ErrNotExist) {
			return true // there, or unreadable: git decides
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// Fingerprint sums up a working tree's HEAD and every change against it
// (tracked and untracked, by content), so two equal fingerprints mean an
// iteration changed nothing git would see.
func Fingerprint(dir string) (string, error) {
	if !InGitRepo(dir) {
		return "", ErrNotGit
	}
	head, _ := run(dir, "rev-parse", "-q", "--verify", "HEAD") // empty in a repository with no commit
	status, err := run(dir, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=none")
	if err != nil {
		return "", err
	}
	top, err := run(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	top = strings.TrimSpace(top)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", strings.TrimSpace(head), status)
	for _, path := range statusPaths(status) {
		fmt.Fprintf(h, "%s\x00", path)
		if f, err := os.Open(filepath.Join(top, path)); err == nil {
			if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
				_, _ = io.Copy(h, f)
			}
			f.Close()
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// statusPaths takes the paths from `git status --porcelain=v1 -z` output;
// a rename's entry is followed by its source, which is skipped.
func statusPaths(status string) []string {
	var paths []string
	fields := strings.Split(status, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		paths = append(paths, f[3:])
		if f[0] == 'R' || f[0] == 'C' {
			i++
		}
	}
	return paths
}

// CurrentBranch is the branch checked out in dir, "" when HEAD is detached
// or dir is not in a repository.
func CurrentBranch(dir string) string {
	out, err := run(dir, "symbolic-ref", "--short", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// WorktreeBranch is the branch a loop's worktree has.
func WorktreeBranch(name string) string { return "ralph/" + name }

// EnsureWorktree gives loop name its git worktree, made once and reused:
// <main working tree>/.ralph/worktrees/NAME on branch ralph/NAME (made from
// dir's HEAD the first time). It returns the folder the loop runs in: the
// worktree, or the same subfolder of it that dir is of its working tree.
func EnsureWorktree(dir, name string) (path, runDir string, created bool, err error) {
	if !InGitRepo(dir) {
		return "", "", false, fmt.Errorf("--worktree needs a git repository: %s is not in one", dir)
	}
	common, err := run(dir, "rev-parse", "--git-common-dir")
	if err != nil {
		return "", "", false, err
	}
	if common = strings.TrimSpace(common); !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	top, err := run(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", false, err
	}
	top = strings.TrimSpace(top)
	rel, err := filepath.Rel(top, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	main := filepath.Dir(common) // the main working tree holds .git
	root := filepath.Join(main, ".ralph", "worktrees")
	path = filepath.Join(root, name)
	runDir = filepath.Join(path, rel)
	if registered(dir, path) {
		return path, existing(runDir, path), false, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", "", false, fmt.Errorf("create worktree folder: %w", err)
	}
	// The worktrees are nobody's files in the main working tree.
	ignore := filepath.Join(root, ".gitignore")
	if _, err := os.Stat(ignore); err != nil {
		_ = os.WriteFile(ignore, []byte("*\n"), 0o644)
	}
	IgnoreOwn(main)
	branch := WorktreeBranch(name)
	if _, err := run(dir, "rev-parse", "-q", "--verify", "refs/heads/"+branch); err == nil {
		_, err = run(dir, "worktree", "add", path, branch)
		if err != nil {
			return "", "", false, err
		}
	} else if _, err := run(dir, "worktree", "add", "-b", branch, path, "HEAD"); err != nil {
		return "", "", false, err
	}
	return path, existing(runDir, path), true, nil
}

// existing is dir if it exists, else fallback.
func existing(dir, fallback string) string {
	if info, err := os.Stat(dir); err == nil && info.IsDir() {
		return dir
	}
	return fallback
}

// registered reports whether path is one of the repository's worktrees.
func registered(dir, path string) bool {
	out, err := run(dir, "worktree", "list", "--porcelain")
	if err != nil {
		return false
	}
	want, _ := filepath.EvalSymlinks(path)
	for _, line := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			if got, _ := filepath.EvalSymlinks(p); got != "" && got == want {
				return true
			}
		}
	}
	return false
}

// Commit stages every change in dir's working tree and commits it with
// message; committed is false when there was nothing to commit.
func Commit(dir, message string) (committed bool, err error) {
	if _, err := run(dir, "add", "-A"); err != nil {
		return false, err
	}
	if _, err := run(dir, "diff", "--cached", "--quiet"); err == nil {
		return false, nil
	}
	if _, err := run(dir, "commit", "-q", "-m", message); err != nil {
		return false, err
	}
	return true, nil
}

// OnlyChanged reports whether path (absolute) is the one change git sees
// in dir's working tree, staged, unstaged or untracked.
func OnlyChanged(dir, path string) bool {
	status, err := run(dir, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return false
	}
	top, err := run(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return false
	}
	paths := statusPaths(status)
	if len(paths) != 1 {
		return false
	}
	a, errA := filepath.EvalSymlinks(filepath.Join(strings.TrimSpace(top), paths[0]))
	b, errB := filepath.EvalSymlinks(path)
	return errA == nil && errB == nil && a == b
}
