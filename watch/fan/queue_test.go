package fan

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/plan"
)

func TestNextSaysWhatBecomesOfATaskAfterALandingTry(t *testing.T) {
	for _, c := range []struct {
		why              string
		merges, attempts int
		want             string
	}{
		{"", 1, 2, Landed},
		{"", 2, 2, Landed},
		{"conflict", 1, 2, SentBack},
		{"conflict", 2, 2, NeedsReview},
		{"check failed", 1, 1, NeedsReview},
		{"check failed", 3, 5, SentBack},
	} {
		if got := next(c.why, c.merges, c.attempts); got != c.want {
			t.Errorf("next(%q, %d, %d) = %s, want %s", c.why, c.merges, c.attempts, got, c.want)
		}
	}
}

// Claims made at once, each under the lock, never take one task twice.
func TestClaimsUnderTheLockNeverTakeOneTaskTwice(t *testing.T) {
	dir := t.TempDir()
	var text strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&text, "- [ ] Task %d\n", i)
	}
	p, err := plan.Parse("PLAN.md", []byte(text.String()))
	if err != nil {
		t.Fatal(err)
	}
	s := &State{Name: "f"}
	s.Sync(p)
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	claimed := make(chan string, 40)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var id string
				err := Locked(dir, func() error {
					s, err := Load(dir)
					if err != nil {
						return err
					}
					if pt := s.Next(p); pt != nil {
						id = pt.ID
						s.Task(id).State = Working
					}
					return s.Save(dir)
				})
				if err != nil {
					t.Error(err)
					return
				}
				if id == "" {
					return
				}
				claimed <- id
			}
		}()
	}
	wg.Wait()
	close(claimed)
	seen := map[string]bool{}
	for id := range claimed {
		if seen[id] {
			t.Errorf("task %s claimed twice", id)
		}
		seen[id] = true
	}
	if len(seen) != 40 {
		t.Errorf("%d tasks claimed, want 40", len(seen))
	}
}

// gitRepo is a repository with files committed on main.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	repo := t.TempDir()
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.invalid")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.invalid")
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	write(t, repo, files)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return repo
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTheQueueLandsOnlyTheTasksChangesAndSendsAConflictBack(t *testing.T) {
	repo := gitRepo(t, map[string]string{"PLAN.md": "- [ ] A\n- [ ] B\n", "shared.txt": "base\n"})
	base, _ := Rev(repo, "main")
	if err := EnsureBranch(repo, "ralph/fan-f", base); err != nil {
		t.Fatal(err)
	}
	wtA, wtB := filepath.Join(repo, ".ralph", "worktrees", "a"), filepath.Join(repo, ".ralph", "worktrees", "b")
	for wt, branch := range map[string]string{wtA: "ralph/fan-f-1", wtB: "ralph/fan-f-2"} {
		if err := EnsureWorktree(repo, wt, branch, base); err != nil {
			t.Fatal(err)
		}
	}
	write(t, wtA, map[string]string{"shared.txt": "a\n", "new-a.txt": "a\n", "PLAN.md": "- [x] A\n- [ ] B\n"})
	write(t, wtB, map[string]string{"shared.txt": "b\n"})
	write(t, repo, map[string]string{"mine.txt": "the person's own, untracked\n"})
	commitA, err := CommitWork(wtA, "PLAN.md", "Task 1: A")
	if err != nil {
		t.Fatal(err)
	}
	queue := filepath.Join(repo, ".ralph", "worktrees", "queue")
	if err := EnsureWorktree(repo, queue, "", base); err != nil {
		t.Fatal(err)
	}
	cand, conflicts, err := Candidate(queue, base, base, commitA, "PLAN.md", "1", "A")
	if err != nil || conflicts != nil {
		t.Fatalf("candidate of A: %v %v", conflicts, err)
	}
	if err := Advance(repo, "ralph/fan-f", cand, base); err != nil {
		t.Fatal(err)
	}
	files, _ := git(repo, nil, "ls-tree", "-r", "--name-only", "ralph/fan-f")
	if want := "PLAN.md\nnew-a.txt\nshared.txt"; files != want {
		t.Errorf("the fan's branch holds %q, want %q", files, want)
	}
	if p, _ := git(repo, nil, "show", "ralph/fan-f:PLAN.md"); p != "- [x] A\n- [ ] B" {
		t.Errorf("the fan's plan: %q", p)
	}
	commitB, err := CommitWork(wtB, "PLAN.md", "Task 2: B")
	if err != nil {
		t.Fatal(err)
	}
	if _, conflicts, err := Candidate(queue, cand, base, commitB, "PLAN.md", "2", "B"); err != nil || !reflect.DeepEqual(conflicts, []string{"shared.txt"}) {
		t.Fatalf("candidate of B over A: conflicts %v, %v; want shared.txt", conflicts, err)
	}
	if err := Advance(repo, "ralph/fan-f", base, cand); err == nil {
		t.Error("the branch was moved back: not a fast-forward")
	}
	marked, err := SendBack(wtB, "PLAN.md", cand)
	if err != nil || !reflect.DeepEqual(marked, []string{"shared.txt"}) {
		t.Fatalf("send back: %v %v", marked, err)
	}
	if data, _ := os.ReadFile(filepath.Join(wtB, "shared.txt")); !strings.Contains(string(data), "<<<<<<<") {
		t.Errorf("the conflict is not marked in the task's worktree:\n%s", data)
	}
	write(t, wtB, map[string]string{"shared.txt": "a\nb\n"})
	commitB, err = CommitWork(wtB, "PLAN.md", "Task 2: B")
	if err != nil {
		t.Fatal(err)
	}
	cand2, conflicts, err := Candidate(queue, cand, cand, commitB, "PLAN.md", "2", "B")
	if err != nil || conflicts != nil {
		t.Fatalf("B's next try: %v %v", conflicts, err)
	}
	if err := Advance(repo, "ralph/fan-f", cand2, cand); err != nil {
		t.Fatal(err)
	}
	if got, _ := git(repo, nil, "show", "ralph/fan-f:shared.txt"); got != "a\nb" {
		t.Errorf("shared.txt landed as %q", got)
	}
	if got, _ := git(repo, nil, "rev-parse", "main"); got != base {
		t.Error("the person's branch moved")
	}
}

func TestTheQueueRebasesATasksCommitsOntoTheTipEachAsItsLoopMadeIt(t *testing.T) {
	repo := gitRepo(t, map[string]string{"PLAN.md": "- [ ] A\n- [ ] B\n", "shared.txt": "base\n"})
	base, _ := Rev(repo, "main")
	wt, queue := filepath.Join(repo, ".ralph", "worktrees", "a"), filepath.Join(repo, ".ralph", "worktrees", "queue")
	if err := EnsureWorktree(repo, wt, "ralph/fan-f-1", base); err != nil {
		t.Fatal(err)
	}
	if err := EnsureWorktree(repo, queue, "", base); err != nil {
		t.Fatal(err)
	}
	commit := func(dir, message, author string, files map[string]string) {
		t.Helper()
		write(t, dir, files)
		for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=" + author, "-c", "user.email=" + author + "@example.invalid", "commit", "-q", "--author", author + " <" + author + "@example.invalid>", "-m", message}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	commit(wt, "one: the first step", "loop", map[string]string{"one.txt": "1\n", "PLAN.md": "- [x] A\n- [ ] B\n"})
	commit(wt, "two: the second step", "loop", map[string]string{"two.txt": "2\n"})
	commit(queue, "landed meanwhile", "other", map[string]string{"shared.txt": "other\n"}) // the branch's tip moved on
	tip, _ := Rev(queue, "HEAD")
	head, err := CommitWork(wt, "PLAN.md", "Task 1: A") // nothing left to commit: the head as it is
	if err != nil {
		t.Fatal(err)
	}
	cand, conflicts, err := Candidate(queue, tip, base, head, "PLAN.md", "1", "A")
	if err != nil || conflicts != nil {
		t.Fatalf("candidate: %v %v", conflicts, err)
	}
	if got, _ := git(repo, nil, "log", "--format=%s by %an", tip+".."+cand); got != "two: the second step by loop\none: the first step by loop" {
		t.Errorf("the task's commits on the tip:\n%s", got)
	}
	if got, _ := git(repo, nil, "show", "--format=", "--name-only", cand+"~1"); got != "one.txt" {
		t.Errorf("the first commit holds %q: the loop's tick is the queue's to write", got)
	}
	if got, _ := git(repo, nil, "show", "--format=", "--name-only", cand); got != "PLAN.md\ntwo.txt" {
		t.Errorf("the last commit holds %q, want the tick beside the work", got)
	}
	if got, _ := git(repo, nil, "rev-parse", cand+"~2"); got != tip {
		t.Errorf("the task's commits are not on the tip: %s", got)
	}
}
