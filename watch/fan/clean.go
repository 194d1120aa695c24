package fan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Clean removes what a fan that no longer runs leaves in the repository
// for its landed tasks: each one's worktree and branch, and the queue's
// worktree. Nothing of work that did not land goes: the worktree of a task
// not landed, one with changes beside the plan's tick (the queue's), and a
// branch with commits past the work that landed are kept, each said why.
func Clean(s *State) (removed, kept []string) {
	for _, t := range s.Tasks {
		if t.Worktree == "" && t.Branch == "" {
			continue
		}
		if t.State != Landed {
			kept = append(kept, fmt.Sprintf("task %s (%s): worktree %s and branch %s; its work did not land", t.ID, t.State, t.Worktree, t.Branch))
			continue
		}
		if _, err := os.Stat(t.Worktree); err == nil {
			if changed := changes(t.Worktree, s.Plan); changed != "" {
				kept = append(kept, fmt.Sprintf("task %s: worktree %s, changed since it landed (%s)", t.ID, t.Worktree, changed))
				continue
			}
			if _, err := git(s.Repo, nil, "worktree", "remove", "--force", t.Worktree); err != nil {
				kept = append(kept, fmt.Sprintf("task %s: worktree %s: %v", t.ID, t.Worktree, err))
				continue
			}
			removed = append(removed, "worktree "+t.Worktree)
		}
		tip, err := Rev(s.Repo, "refs/heads/"+t.Branch)
		switch {
		case err != nil: // gone already
		case tip != t.Commit && !Contains(s.Repo, t.Commit, tip):
			kept = append(kept, fmt.Sprintf("task %s: branch %s, with commits past the work that landed", t.ID, t.Branch))
		default:
			if _, err := git(s.Repo, nil, "branch", "-D", "-q", t.Branch); err != nil {
				kept = append(kept, fmt.Sprintf("task %s: branch %s: %v", t.ID, t.Branch, err))
			} else {
				removed = append(removed, "branch "+t.Branch)
			}
		}
	}
	queue := QueueWorktree(s)
	if _, err := os.Stat(queue); err == nil {
		if _, err := git(s.Repo, nil, "worktree", "remove", "--force", queue); err == nil {
			removed = append(removed, "worktree "+queue)
		}
	}
	_, _ = git(s.Repo, nil, "worktree", "prune")
	return removed, kept
}

// QueueWorktree is where the queue makes and checks each candidate.
func QueueWorktree(s *State) string {
	return filepath.Join(s.Repo, ".ralph", "worktrees", "fan-"+s.Name+"-queue")
}

// changes are the paths changed in a task's worktree beside the plan (its
// tick is the queue's) and the loop's own folder, "" when none.
func changes(wt, planRel string) string {
	out, err := git(wt, nil, append([]string{"status", "--porcelain", "--untracked-files=all"}, outside(planRel)...)...)
	if err != nil {
		return err.Error()
	}
	var paths []string
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 3 {
			paths = append(paths, line[3:])
		}
	}
	return strings.Join(paths, ", ")
}
