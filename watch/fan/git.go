package fan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
)

// noPrompt is what the fan's git runs with: no editor, no prompt for a
// password; nobody is there to answer either.
var noPrompt = []string{"GIT_EDITOR=true", "GIT_TERMINAL_PROMPT=0"}

// git runs git in dir (gitwork's runner) and returns its output, trimmed.
func git(dir string, stdin []byte, args ...string) (string, error) {
	out, err := gitwork.Git{Dir: dir, Env: noPrompt, Stdin: stdin}.Run(args...)
	return strings.TrimSpace(out), err
}

// identity is git's -c options for the fan's commits when the repository
// names no author.
func identity(dir string) []string {
	if name, _ := git(dir, nil, "config", "user.email"); name != "" || os.Getenv("GIT_AUTHOR_EMAIL") != "" {
		return nil
	}
	return []string{"-c", "user.name=ralph-watch", "-c", "user.email=ralph-watch@localhost"}
}

// Rev is the commit a revision names.
func Rev(dir, rev string) (string, error) {
	return git(dir, nil, "rev-parse", "--verify", "-q", rev+"^{commit}")
}

// EnsureBranch makes branch from base unless it exists.
func EnsureBranch(repo, branch, base string) error {
	if _, err := Rev(repo, "refs/heads/"+branch); err == nil {
		return nil
	}
	_, err := git(repo, nil, "branch", "--no-track", branch, base)
	return err
}

// CheckedOut is the worktree that has branch checked out, or "".
func CheckedOut(repo, branch string) string {
	out, _ := git(repo, nil, "worktree", "list", "--porcelain")
	wt := ""
	for _, line := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			wt = p
		}
		if line == "branch refs/heads/"+branch {
			return wt
		}
	}
	return ""
}

// EnsureWorktree gives path a worktree of repo on branch, the branch made
// at from the first time (branch "": detached at from); a worktree already
// there is kept as it is.
func EnsureWorktree(repo, path, branch, from string) error {
	if _, err := os.Stat(filepath.Join(path, ".git")); err == nil {
		return nil
	}
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	if branch == "" {
		_, err := git(repo, nil, "worktree", "add", "-q", "--detach", path, from)
		return err
	}
	if _, err := Rev(repo, "refs/heads/"+branch); err == nil {
		_, err := git(repo, nil, "worktree", "add", "-q", path, branch)
		return err
	}
	_, err := git(repo, nil, "worktree", "add", "-q", "-b", branch, path, from)
	return err
}

// outside are the pathspecs of what a task's commit never holds: the plan
// (its ticks are the queue's) and the loop's own folder.
func outside(planRel string) []string {
	return []string{"--", ".", ":(exclude)" + planRel, ":(exclude).ralph"}
}

// CommitWork commits what the loop changed in its worktree on its branch
// (a fresh worktree: every untracked file in it is the loop's), the plan
// aside, and returns the branch's head.
func CommitWork(wt, planRel, message string) (string, error) {
	if _, err := git(wt, nil, append([]string{"add", "-A"}, outside(planRel)...)...); err != nil {
		return "", err
	}
	if _, err := git(wt, nil, "diff", "--cached", "--quiet"); err != nil || mergeGoing(wt) {
		args := append(identity(wt), "commit", "-q", "--no-verify", "-m", message)
		if _, err := git(wt, nil, args...); err != nil {
			return "", err
		}
	}
	return Rev(wt, "HEAD")
}

func mergeGoing(wt string) bool { _, err := Rev(wt, "MERGE_HEAD"); return err == nil }

// Candidate makes, in the queue's worktree, the fan branch's tip with the
// task's work and its plan tick: the task's commits rebased onto the tip
// (each as its loop made it, the plan and .ralph aside, the tick in the
// last), else, when one of them conflicts there (the loop merged the branch
// after a conflict, its resolution in the merge), its work base..commit as
// one commit. conflicts are the files the work could not be applied to.
func Candidate(queue, tip, base, commit, planRel, id, title string) (cand string, conflicts []string, err error) {
	if cand, err := rebased(queue, tip, commit, planRel, id, title); err == nil {
		return cand, nil, nil
	}
	if err := reset(queue, tip); err != nil {
		return "", nil, err
	}
	diff, err := work(queue, base, commit, planRel)
	if err != nil {
		return "", nil, err
	}
	if len(diff) > 0 {
		if _, err := git(queue, diff, "apply", "--3way", "--index", "--whitespace=nowarn"); err != nil {
			files, _ := git(queue, nil, "diff", "--name-only", "--diff-filter=U")
			if files == "" {
				return "", nil, err
			}
			_, _ = git(queue, nil, "reset", "-q", "--hard")
			return "", strings.Split(files, "\n"), nil
		}
	}
	args := append(identity(queue), "commit", "-q", "--no-verify", "--allow-empty", "-m", fmt.Sprintf("Task %s: %s", id, title))
	if err := tick(queue, planRel, id, args); err != nil {
		return "", nil, err
	}
	cand, err = Rev(queue, "HEAD")
	return cand, nil, err
}

// work is the change from..to as a patch git apply takes, byte for byte,
// the plan and .ralph aside.
func work(dir, from, to, planRel string) ([]byte, error) {
	out, err := gitwork.Git{Dir: dir, Env: noPrompt}.Run(append([]string{"diff", "--binary", from, to}, outside(planRel)...)...)
	if err != nil {
		return nil, err
	}
	return []byte(out), nil
}

// reset puts the queue's worktree at tip, with nothing else in it.
func reset(queue, tip string) error {
	_, _ = git(queue, nil, "cherry-pick", "--abort")
	if _, err := git(queue, nil, "checkout", "-q", "--detach", "--force", tip); err != nil {
		return err
	}
	_, err := git(queue, nil, "clean", "-fdq")
	return err
}

// rebased replays the task's commits that the tip lacks (merges aside)
// onto it, each without the plan and .ralph, with its message and author,
// and ticks the task in the last; an error when one does not apply.
func rebased(queue, tip, commit, planRel, id, title string) (string, error) {
	if err := reset(queue, tip); err != nil {
		return "", err
	}
	list, err := git(queue, nil, "rev-list", "--reverse", "--no-merges", tip+".."+commit)
	if err != nil {
		return "", err
	}
	picked := 0
	for _, c := range strings.Fields(list) {
		// each commit's own change, the plan and .ralph aside: a tick is the
		// queue's, so a neighbour's tick landed first never meets the loop's
		diff, err := work(queue, c+"^", c, planRel)
		if err != nil {
			return "", err
		}
		if len(diff) == 0 {
			continue // nothing of the task's own
		}
		if _, err := git(queue, diff, "apply", "--3way", "--index", "--whitespace=nowarn"); err != nil {
			_ = reset(queue, tip)
			return "", err
		}
		if _, err := git(queue, nil, append(identity(queue), "commit", "-q", "--no-verify", "-C", c)...); err != nil {
			return "", err
		}
		picked++
	}
	if _, err := git(queue, nil, "checkout", "-q", "--force", "HEAD", "--", "."); err != nil { // what was set aside
		return "", err
	}
	if _, err := git(queue, nil, "clean", "-fdq"); err != nil {
		return "", err
	}
	args := append(identity(queue), "commit", "-q", "--no-verify", "--allow-empty", "-m", fmt.Sprintf("Task %s: %s", id, title))
	if picked > 0 {
		args = append(identity(queue), "commit", "-q", "--no-verify", "--amend", "--no-edit")
	}
	if err := tick(queue, planRel, id, args); err != nil {
		return "", err
	}
	return Rev(queue, "HEAD")
}

// tick ticks task id in the queue worktree's plan and commits it with args.
func tick(queue, planRel, id string, args []string) error {
	file := filepath.Join(queue, planRel)
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read plan: %w", err)
	}
	p, err := plan.Parse(file, data)
	if err != nil {
		return fmt.Errorf("read plan %s: %w", planRel, err)
	}
	if data, err = plan.Tick(data, p, id); err != nil {
		return err
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return fmt.Errorf("tick plan: %w", err)
	}
	if _, err := git(queue, nil, "add", "--", planRel); err != nil {
		return err
	}
	_, err = git(queue, nil, args...)
	return err
}

// Contains reports whether commit is on tip's history.
func Contains(repo, tip, commit string) bool {
	_, err := git(repo, nil, "merge-base", "--is-ancestor", commit, tip)
	return err == nil
}

// Advance fast-forwards branch from tip to cand, refused if the branch
// moved meanwhile: nothing is ever forced.
func Advance(repo, branch, cand, tip string) error {
	if _, err := git(repo, nil, "merge-base", "--is-ancestor", tip, cand); err != nil {
		return fmt.Errorf("advance %s: %s is not a fast-forward", branch, cand)
	}
	_, err := git(repo, nil, "update-ref", "-m", "ralph-watch fan: land", "refs/heads/"+branch, cand, tip)
	return err
}

// SendBack brings the fan branch's tip into the task's worktree for its
// loop's next try: the plan as the branch has it (the loop's tick undone,
// committed or not: ticks are the queue's), a conflict left marked in its
// files. It returns the files in conflict.
func SendBack(wt, planRel, tip string) ([]string, error) {
	if _, err := git(wt, nil, "checkout", "-q", "HEAD", "--", planRel); err != nil {
		return nil, err
	}
	_, merged := git(wt, nil, append(identity(wt), "merge", "-q", "--no-edit", "--no-verify", "--no-commit", tip)...)
	if _, err := git(wt, nil, "checkout", "-q", tip, "--", planRel); err != nil { // a conflict in the plan is none of the loop's
		return nil, err
	}
	if files, _ := git(wt, nil, "diff", "--name-only", "--diff-filter=U"); files != "" {
		return strings.Split(files, "\n"), nil
	}
	if merged != nil && !mergeGoing(wt) {
		return nil, merged
	}
	if mergeGoing(wt) {
		if _, err := git(wt, nil, append(identity(wt), "commit", "-q", "--no-edit", "--no-verify")...); err != nil {
			return nil, err
		}
	}
	return nil, nil
}
