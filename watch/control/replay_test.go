package control

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/cast"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func TestRangesWritesRunsOfNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{4}, "4"},
		{[]int{1, 2, 3, 7, 9, 10}, "1-3, 7, 9-10"},
		{[]int{2, 4, 6}, "2, 4, 6"},
	} {
		if got := Ranges(tc.in); got != tc.want {
			t.Errorf("Ranges(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCastFindsTheNewestOrTheOneAskedForAndNamesTheOthers(t *testing.T) {
	store := &state.Store{Dir: t.TempDir()}
	l := &Loop{Name: "a", Store: store}
	if _, _, err := Cast(l, 0); err == nil || !strings.Contains(err.Error(), "loop a has no casts") {
		t.Errorf("no casts folder: %v", err)
	}
	dir := store.Path(state.CastsDir)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3, 4, 5, 9} {
		if err := os.WriteFile(filepath.Join(dir, cast.FileName(n)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600); err != nil { // not a cast
		t.Fatal(err)
	}
	if path, n, err := Cast(l, 0); err != nil || n != 9 || path != filepath.Join(dir, "9.cast") {
		t.Errorf("newest: %s %d %v", path, n, err)
	}
	if path, n, err := Cast(l, 4); err != nil || n != 4 || path != filepath.Join(dir, "4.cast") {
		t.Errorf("iteration 4: %s %d %v", path, n, err)
	}
	_, _, err := Cast(l, 7)
	if want := "loop a has no cast of iteration 7 (casts of iterations 3-5, 9)"; err == nil || err.Error() != want {
		t.Errorf("iteration 7: %v, want %q", err, want)
	}
}
