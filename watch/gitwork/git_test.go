package gitwork

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// gitRepo makes a repository with one commit, with an identity of its own.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	t.Setenv("GIT_AUTHOR_NAME", "ralph test")
	t.Setenv("GIT_AUTHOR_EMAIL", "ralph@example.invalid")
	t.Setenv("GIT_COMMITTER_NAME", "ralph test")
	t.Setenv("GIT_COMMITTER_EMAIL", "ralph@example.invalid")
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "start"}} {
		if _, err := run(dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestStatusPathsSkipsRenameSources(t *testing.T) {
	got := statusPaths(" M a.go\x00R  new.go\x00old.go\x00?? dir/x y\x00")
	if want := []string{"a.go", "new.go", "dir/x y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("statusPaths = %q, want %q", got, want)
	}
}

func TestFingerprintSeesEveryKindOfChange(t *testing.T) {
	dir := gitRepo(t)
	fp := func() string {
		t.Helper()
		s, err := Fingerprint(dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	write := func(name, text string) {
		t.Helper()
		writeFile(t, filepath.Join(dir, name), []byte(text), 0o644)
	}
	seen := map[string]string{}
	step := func(what string) {
		t.Helper()
		s := fp()
		if other, ok := seen[s]; ok {
			t.Errorf("%s: fingerprint as after %s", what, other)
		}
		seen[s] = what
		if again := fp(); again != s {
			t.Errorf("%s: fingerprint not stable", what)
		}
	}
	step("start")
	write("new.txt", "one")
	step("an untracked file")
	write("new.txt", "two")
	step("the untracked file edited")
	if _, err := Commit(dir, "add"); err != nil {
		t.Fatal(err)
	}
	step("a commit")
	write("new.txt", "three")
	step("a tracked file edited")
	write("new.txt", "four")
	step("the same file edited again")
	write(".gitignore", "*.log\n")
	step("a .gitignore")
	before := fp()
	write("x.log", "ignored")
	if fp() != before {
		t.Error("an ignored file changed the fingerprint")
	}
	if _, err := Fingerprint(t.TempDir()); err != ErrNotGit {
		t.Errorf("outside git: %v, want ErrNotGit", err)
	}
}

func TestCommitCommitsEverythingOrNothing(t *testing.T) {
	dir := gitRepo(t)
	if ok, err := Commit(dir, "nothing"); ok || err != nil {
		t.Errorf("clean tree: committed %v, %v", ok, err)
	}
	writeFile(t, filepath.Join(dir, "a"), []byte("a"), 0o644)
	if ok, err := Commit(dir, "ralph x: iteration 1\n\nChecks: no checks.\n"); !ok || err != nil {
		t.Fatalf("committed %v, %v", ok, err)
	}
	if out, _ := run(dir, "log", "-1", "--format=%s%n%b"); !strings.HasPrefix(out, "ralph x: iteration 1\nChecks: no checks.") {
		t.Errorf("commit message %q", out)
	}
	if out, _ := run(dir, "status", "--porcelain"); out != "" {
		t.Errorf("left uncommitted: %q", out)
	}
}

func TestEnsureWorktreeMakesItOnceAndReusesIt(t *testing.T) {
	dir := gitRepo(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sub, "f"), []byte("f"), 0o644)
	if _, err := Commit(dir, "sub"); err != nil {
		t.Fatal(err)
	}
	path, runDir, created, err := EnsureWorktree(sub, "loop1")
	if err != nil || !created {
		t.Fatalf("first: created %v, %v", created, err)
	}
	if want := filepath.Join(dir, ".ralph", "worktrees", "loop1"); path != want || runDir != filepath.Join(want, "sub") {
		t.Errorf("path %s run in %s, want %s and its sub", path, runDir, want)
	}
	if out, _ := run(path, "rev-parse", "--abbrev-ref", "HEAD"); strings.TrimSpace(out) != "ralph/loop1" {
		t.Errorf("worktree on branch %q", out)
	}
	if out, _ := run(dir, "status", "--porcelain"); out != "" {
		t.Errorf("the worktree shows in the main tree: %q", out)
	}
	writeFile(t, filepath.Join(path, "work"), []byte("kept"), 0o644)
	// Again from the main tree, and from inside the worktree: the same one, untouched.
	for _, from := range []string{dir, runDir} {
		p, _, created, err := EnsureWorktree(from, "loop1")
		if err != nil || created || p != path {
			t.Errorf("from %s: %s created %v, %v", from, p, created, err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(path, "work")); string(data) != "kept" {
		t.Error("the worktree was reset")
	}
	// The branch outlives a removed worktree and is used again.
	if _, err := run(dir, "worktree", "remove", "--force", path); err != nil {
		t.Fatal(err)
	}
	if _, _, created, err := EnsureWorktree(dir, "loop1"); err != nil || !created {
		t.Errorf("after removal: created %v, %v", created, err)
	}
	if _, _, _, err := EnsureWorktree(t.TempDir(), "x"); err == nil {
		t.Error("a worktree outside git")
	}
}

// writeFile writes a test's file or fails it.
func writeFile(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}

// A folder with no .git above it is outside git without a git run; any
// other is git's to say: a subfolder, a worktree (its .git a file), a
// repository GIT_DIR names.
func TestInGitRepoAsksGitOnlyWhereARepositoryMayBe(t *testing.T) {
	repo := gitRepo(t)
	sub := filepath.Join(repo, "sub", "deeper")
	outside := t.TempDir()
	for _, d := range []string{sub, filepath.Join(outside, "x")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tree := filepath.Join(t.TempDir(), "tree")
	if _, err := run(repo, "worktree", "add", "-q", "-b", "side", tree); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir         string
		may, inside bool
	}{
		{repo, true, true},
		{sub, true, true},
		{tree, true, true},
		{filepath.Join(repo, ".git"), true, false}, // git's own folder is no working tree
		{outside, false, false},
		{filepath.Join(outside, "x"), false, false},
	} {
		if got := mayBeInGitRepo(tc.dir); got != tc.may {
			t.Errorf("mayBeInGitRepo(%s) = %v, want %v", tc.dir, got, tc.may)
		}
		if got := InGitRepo(tc.dir); got != tc.inside {
			t.Errorf("InGitRepo(%s) = %v, want %v", tc.dir, got, tc.inside)
		}
	}
	t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
	t.Setenv("GIT_WORK_TREE", outside)
	if !mayBeInGitRepo(outside) || !InGitRepo(outside) {
		t.Errorf("a folder GIT_WORK_TREE names, of the repository GIT_DIR names: git says it is inside one")
	}
}

// A failed git names what ran (a message by its first line), why it
// ended, and what git said: on standard error, or on standard output
// when that is empty, as a merge's conflicts are.
func TestRunErrorsNameTheCommandItsEndAndWhatGitSaid(t *testing.T) {
	outside := t.TempDir()
	_, err := Run(outside, "rev-parse", "--verify", "HEAD")
	if err == nil || !strings.HasPrefix(err.Error(), "git rev-parse --verify HEAD: exit status 128: fatal: not a git repository") {
		t.Errorf("outside git: %v", err)
	}
	dir := gitRepo(t)
	_, err = Run(dir, "commit", "-q", "-m", "subject\n\nbody")
	if err == nil || err.Error() != "git commit -q -m subject…: exit status 1: On branch main\nnothing to commit, working tree clean" {
		t.Errorf("nothing to commit: %v", err)
	}
	_, err = Git{Dir: dir, Env: []string{"GIT_DIR=" + outside}}.Run("status")
	if err == nil || !strings.HasPrefix(err.Error(), "git status: exit status 128: fatal: not a git repository") {
		t.Errorf("Env is added to the environment git runs with: %v", err)
	}
	if out, err := (Git{Dir: dir, Stdin: []byte("a b\n")}).Run("hash-object", "--stdin"); err != nil || out != "b2901ea97cfc0f297529eb23d489eab8cb71f9db\n" {
		t.Errorf("Stdin: %q, %v", out, err)
	}
}

// Every git the product runs goes through Run: no other package starts
// git itself (its tests may).
func TestGitRunsOnlyThroughThisPackage(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	own, _ := filepath.Abs(".")
	var others []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata" || path == own) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), `exec.Command("git"`) || strings.Contains(string(data), `exec.CommandContext(ctx, "git"`) {
			rel, _ := filepath.Rel(root, path)
			others = append(others, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(others) > 0 {
		t.Errorf("git started outside watch/gitwork's Run: %s", strings.Join(others, ", "))
	}
}
