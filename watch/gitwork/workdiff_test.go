package gitwork

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The judge's diff is the whole work since the loop began: a commit made
// since, a change staged, one unstaged and a new untracked file, never an
// ignored one, and the repository's own index untouched.
func TestDiffWorkHoldsCommitsTheWorkTreeAndNewFilesNotIgnoredOnes(t *testing.T) {
	dir := gitRepo(t)
	base := Head(dir)
	writeFile(t, filepath.Join(dir, ".gitignore"), []byte("secret.env\n"), 0o644)
	writeFile(t, filepath.Join(dir, "committed.go"), []byte("package a // committed\n"), 0o644)
	if _, err := run(dir, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(dir, "commit", "-q", "-m", "work"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "committed.go"), []byte("package a // changed after\n"), 0o644)
	writeFile(t, filepath.Join(dir, "staged.go"), []byte("package a // staged\n"), 0o644)
	if _, err := run(dir, "add", "staged.go"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "new", "untracked.go"), []byte("package b // untracked\n"), 0o644)
	writeFile(t, filepath.Join(dir, "secret.env"), []byte("KEY=ignored\n"), 0o644)
	writeFile(t, filepath.Join(dir, "left-out.md"), []byte("left out\n"), 0o644)
	before, err := run(dir, "status", "--porcelain")
	if err != nil {
		t.Fatal(err)
	}

	d, err := DiffWork(dir, base, filepath.Join(dir, "left-out.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+package a // changed after", "+package a // staged", "+package b // untracked", "b/new/untracked.go", "+secret.env"} {
		if !strings.Contains(d, want) {
			t.Errorf("the diff has no %q:\n%s", want, d)
		}
	}
	for _, not := range []string{"KEY=ignored", "left out"} {
		if strings.Contains(d, not) {
			t.Errorf("the diff has %q:\n%s", not, d)
		}
	}
	if after, _ := run(dir, "status", "--porcelain"); after != before {
		t.Errorf("the repository's index changed:\n%s\nthen\n%s", before, after)
	}

	all, err := DiffWork(dir, "")
	if err != nil || !strings.Contains(all, "+package a // changed after") || !strings.Contains(all, "left out") {
		t.Errorf("from no base (a repository with no commit then): %v\n%s", err, all)
	}
	if _, err := DiffWork(t.TempDir(), base); err != ErrNotGit {
		t.Errorf("outside git: %v, want ErrNotGit", err)
	}
}
