package control

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// watching holds loop name's lock under root, as its watcher does, until the test ends.
func watching(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s := &state.Store{Dir: dir}
	if err := s.Lock(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Unlock)
}

// A plan a live loop works, or a running fan, is refused to a second loop;
// loops held to different tasks of it (--task) are not in each other's way.
func TestAPlanIsClaimedByOneLoopAtATimeAndNotBesideItsFan(t *testing.T) {
	root, repo := t.TempDir(), t.TempDir()
	plan := filepath.Join(repo, "PLAN.md")
	if err := os.WriteFile(plan, []byte("- [ ] One\n- [ ] Two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clk := clock.Real{}
	claim := func(name, task string) error {
		release, err := ClaimPlan(root, plan, "PLAN.md", task, name, ClaimNew, io.Discard, clk)
		if err == nil {
			release()
		}
		return err
	}
	if err := claim("a", ""); err != nil {
		t.Fatalf("the first loop on the plan: %v", err)
	}
	if err := claim("b", ""); err != nil {
		t.Errorf("a plan whose loop has no watcher nor state is free: %v", err)
	}
	watching(t, filepath.Join(root, "b")) // b's watcher runs, before it writes its state
	err := claim("c", "")
	if err == nil || exitOf(err) != contract.ExitUsage || !strings.Contains(err.Error(), `plan PLAN.md is worked by loop "b"`) ||
		!strings.Contains(err.Error(), "ralph-watch fan --tasks PLAN.md") || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("a second loop on b's plan: %v", err)
	}
	if err := claim("t1", "1"); err != nil {
		t.Errorf("a loop held to task 1: %v", err)
	}
	watching(t, filepath.Join(root, "t1"))
	if err := claim("t2", "2"); err != nil {
		t.Errorf("a loop held to task 2 beside one held to task 1: %v", err)
	}
	if err := claim("t1b", "1"); err == nil {
		t.Errorf("a second loop held to task 1 was let in")
	}

	other := filepath.Join(repo, "OTHER.md")
	if err := os.WriteFile(other, []byte("- [ ] One\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fanDir := filepath.Join(root, "fans", "f")
	watching(t, fanDir)
	if err := os.WriteFile(filepath.Join(fanDir, "fan.json"), []byte(`{"name":"f","repo":"`+repo+`","plan":"OTHER.md"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ClaimPlan(root, other, "OTHER.md", "", "x", ClaimReplace, io.Discard, clk)
	if err == nil || exitOf(err) != contract.ExitUsage || !strings.Contains(err.Error(), `plan OTHER.md is worked by fan "f"`) {
		t.Errorf("a loop on a running fan's plan: %v", err)
	}
}

func exitOf(err error) int {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return -1
}
