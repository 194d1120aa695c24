package cast

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// castsIn lists the files left in dir.
func castsIn(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

func writeSized(t *testing.T, dir, name string, size int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestPruneDropsOldestIterationsFirst(t *testing.T) {
	dir := t.TempDir()
	// Iteration 10 is newer than 9 though it sorts before it as text.
	for _, n := range []int{1, 2, 9, 10} {
		writeSized(t, dir, FileName(n), 100)
	}
	writeSized(t, dir, "notes.txt", 1000) // not a cast: neither counted nor removed
	writeSized(t, dir, "x.cast", 1000)
	if err := Prune(dir, 250); err != nil {
		t.Fatal(err)
	}
	if got, want := castsIn(t, dir), "10.cast 9.cast notes.txt x.cast"; got != want {
		t.Errorf("left %q, want %q", got, want)
	}
}

func TestPruneUnderTheLimitRemovesNothing(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{1, 2, 3} {
		writeSized(t, dir, FileName(n), 100)
	}
	if err := Prune(dir, 300); err != nil {
		t.Fatal(err)
	}
	if got := castsIn(t, dir); got != "1.cast 2.cast 3.cast" {
		t.Errorf("left %q", got)
	}
}

func TestPruneKeepsTheNewestEvenOverTheLimit(t *testing.T) {
	dir := t.TempDir()
	writeSized(t, dir, FileName(4), 50)
	writeSized(t, dir, FileName(5), 5000)
	if err := Prune(dir, 100); err != nil {
		t.Fatal(err)
	}
	if got := castsIn(t, dir); got != "5.cast" {
		t.Errorf("left %q, want only the newest", got)
	}
}

func TestPruneOfAMissingFolderIsNothingToDo(t *testing.T) {
	if err := Prune(filepath.Join(t.TempDir(), "casts"), 10); err != nil {
		t.Errorf("Prune = %v", err)
	}
}

func TestIterationsListsCastsOldestFirst(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"12.cast", "3.cast", "100.cast", "03.cast", "a.cast", "7.cast.tmp", "notes"} {
		writeSized(t, dir, name, 1)
	}
	if err := os.Mkdir(filepath.Join(dir, "5.cast"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := Iterations(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[3 12 100]" {
		t.Errorf("Iterations = %v, want [3 12 100]", got)
	}
	if none, err := Iterations(filepath.Join(dir, "missing")); err != nil || len(none) != 0 {
		t.Errorf("Iterations of a missing folder = %v, %v", none, err)
	}
}
