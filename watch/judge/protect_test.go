package judge

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func write(t *testing.T, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProtectedIsTheLoopsFolderTheCheckFilesAndTheGlobs(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "check.sh", "exit 0")
	write(t, dir, "ci/lint.yml", "x")
	write(t, dir, "go.mod", "module m")
	if err := os.Mkdir(filepath.Join(dir, "test"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "out.sh")
	write(t, filepath.Dir(outside), "out.sh", "x")
	for _, tc := range []struct {
		command string
		want    []string
	}{
		{"sh check.sh", []string{"check.sh"}},
		{"sh ./check.sh --fast", []string{"check.sh"}},
		{"go test ./...", nil},
		{"make test", nil},
		{"linter --config=ci/lint.yml 'check.sh'", []string{"ci/lint.yml", "check.sh"}},
		{"sh " + outside, nil},
		{"sh ../" + filepath.Base(dir) + "/check.sh", []string{"check.sh"}},
		{"cat *.sh", nil},
	} {
		if got := FilesNamed(dir, tc.command); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("FilesNamed(%q) = %q, want %q", tc.command, got, tc.want)
		}
	}
	got := Protected(dir, []string{"sh check.sh", "go test ./..."}, []string{"./testdata/**", "check.sh"}, false)
	if want := []string{".ralph/", "check.sh", "testdata/**"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Protected = %q, want %q", got, want)
	}
	got = Protected(dir, []string{"sh check.sh"}, []string{"*.golden"}, true)
	if want := []string{"*.golden"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--no-protect: %q, want %q", got, want)
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		pattern, rel string
		want         bool
	}{
		{".ralph/", ".ralph/config", true},
		{".ralph/", ".ralph", true},
		{".ralph/", "a/.ralph/config", false},
		{"check.sh", "check.sh", true},
		{"check.sh", "sub/check.sh", false},
		{"*.sh", "check.sh", true},
		{"*.sh", "sub/check.sh", false},
		{"**/*.sh", "sub/deep/check.sh", true},
		{"**/*.sh", "check.sh", true},
		{"testdata/**", "testdata/a/b.txt", true},
		{"testdata", "testdata/a/b.txt", true},
		{"testdata", "testdatax/b", false},
	} {
		if got := Matches([]string{tc.pattern}, tc.rel); got != tc.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tc.pattern, tc.rel, got, tc.want)
		}
	}
}

// Whatever the agent does to a protected path, the snapshot's bytes come
// back: an edit, a removal, a new file, a link in a file's place, a mode.
// The loop's own parts of .ralph/ and the unprotected work stay as the
// agent left them.
func TestRestorePutsBackEveryChangeToAProtectedPath(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "check.sh", "test -s out.txt\n")
	write(t, dir, "lint.sh", "exit 1\n")
	write(t, dir, ".ralph/config", "max-iterations 5\n")
	write(t, dir, ".ralph/.gitignore", "*\n")
	write(t, dir, "golden/a.txt", "A\n")
	write(t, dir, "main.go", "package main\n")
	if err := os.Symlink("check.sh", filepath.Join(dir, "link.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "golden/a.txt"), 0o666); err != nil { // a mode past the umask
		t.Fatal(err)
	}
	patterns := Protected(dir, []string{"sh check.sh", "sh lint.sh", "sh link.sh"}, []string{"golden/"}, false)
	snap, err := Take(dir, patterns)
	if err != nil {
		t.Fatal(err)
	}
	if changed, _ := snap.Changed(); len(changed) != 0 {
		t.Fatalf("changed right after the snapshot: %q", changed)
	}

	write(t, dir, "check.sh", "exit 0\n")
	if err := os.Remove(filepath.Join(dir, ".ralph/config")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, ".ralph/new", "planted\n")
	write(t, dir, "golden/b.txt", "new golden\n")
	if err := os.Remove(filepath.Join(dir, "lint.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/bin/true", filepath.Join(dir, "lint.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "link.sh")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "link.sh", "exit 0\n")
	if err := os.Chmod(filepath.Join(dir, "golden/a.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	write(t, dir, ".ralph/worktrees/x/file", "the loop's own\n")
	write(t, dir, ".ralph/review.md", "a review's notes\n")
	write(t, dir, "main.go", "package main // the work\n")

	put, err := snap.Restore()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".ralph/config", ".ralph/new", "check.sh", "golden/a.txt", "golden/b.txt", "link.sh", "lint.sh"}; !reflect.DeepEqual(put, want) {
		t.Errorf("put back %q, want %q", put, want)
	}
	for rel, want := range map[string]string{"check.sh": "test -s out.txt\n", "lint.sh": "exit 1\n", ".ralph/config": "max-iterations 5\n",
		".ralph/worktrees/x/file": "the loop's own\n", ".ralph/review.md": "a review's notes\n", "main.go": "package main // the work\n"} {
		if got, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", rel, got, err, want)
		}
	}
	for _, gone := range []string{".ralph/new", "golden/b.txt"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s, made by the agent, is still there: %v", gone, err)
		}
	}
	if info, err := os.Lstat(filepath.Join(dir, "lint.sh")); err != nil || !info.Mode().IsRegular() {
		t.Errorf("lint.sh is not a file again: %v", err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "link.sh")); err != nil || target != "check.sh" {
		t.Errorf("link.sh is not the link again: %q, %v", target, err)
	}
	if info, _ := os.Stat(filepath.Join(dir, "golden/a.txt")); info.Mode().Perm() != 0o666 {
		t.Errorf("golden/a.txt's mode %v, want 0666", info.Mode().Perm())
	}
	if again, err := snap.Restore(); err != nil || len(again) != 0 {
		t.Errorf("a second restore put back %q, %v", again, err)
	}
}

// A check file replaced by a folder of the same name is put back too.
func TestRestorePutsAFileBackWhereAFolderStands(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "check.sh", "test -s out.txt\n")
	snap, err := Take(dir, Protected(dir, []string{"sh check.sh"}, nil, false))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "check.sh")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "check.sh/inner", "x")
	if put, err := snap.Restore(); err != nil || !reflect.DeepEqual(put, []string{"check.sh"}) {
		t.Fatalf("put back %q, %v", put, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "check.sh")); string(got) != "test -s out.txt\n" {
		t.Errorf("check.sh: %q", got)
	}
}
