package progress

import (
	"fmt"
	"path/filepath"

	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// work is the agent's work as the plan's progress looks at it: the tree
// before an iteration (noted in the record's tasks part it is given), and
// whether the iteration changed it.
type work struct {
	dir       string   // where the agent works
	index     string   // the loop's git index of the work tree
	base      string   // the commit a fan's task began at; "": none
	plan      string   // the plan, which a diff leaves out
	diffChars int      // {{diff}} is cut there; 0: never
	notes     string   // where a review writes what must change
	unwatched []string // the files whose change is no work
}

// newWork is the work s names: the review's notes file in the work's own
// folder, where the agent may write, and removed once read; no work are
// the plan, the prompt, the loop's own folder and the files it reads or
// writes.
func newWork(s Settings) work {
	w := work{dir: s.Dir, base: s.TaskBase, plan: s.File, diffChars: s.DiffChars,
		notes: filepath.Join(s.Dir, ".ralph", "review.md")}
	var loopDir string
	if s.Store != nil {
		w.index, loopDir = s.Store.Path(state.WorkTreeIndex), s.Store.Dir
	}
	w.unwatched = []string{s.File, s.PromptFile, loopDir, w.notes}
	for _, p := range []string{s.ProgressFile, s.DoneFile, s.PauseFile} {
		if p != "" {
			w.unwatched = append(w.unwatched, p)
		}
	}
	return w
}

// note notes in r the work before iteration n: git's tree and HEAD, or
// outside git a print of the folder. A fan's loop carrying on a task
// notes its first iteration's from the task's base: the work a lost loop
// made there is that iteration's. It returns the work tree as it is ("":
// outside git).
func (w work) note(r *state.Tasks, n int) string {
	r.BeforeTree, r.BeforeHead, r.BeforePrint = "", "", ""
	tree, err := gitwork.WorkTree(w.dir, w.index)
	if err != nil {
		r.BeforePrint = gitwork.FolderPrint(w.dir, w.unwatched...)
		return ""
	}
	r.BeforeTree, r.BeforeHead = tree, gitwork.Head(w.dir)
	if w.base != "" && n == 1 {
		if from, err := gitwork.CommitTree(w.dir, w.base); err == nil {
			r.BeforeTree, r.BeforeHead = from, w.base
		}
	}
	if r.Base == "" {
		r.Base = r.BeforeTree
	}
	return tree
}

// fromBase reports whether iteration n's change is measured from the
// task's base (note), not from where the iteration began.
func (w work) fromBase(r *state.Tasks, n int) bool {
	return w.base != "" && r.BeforeHead == w.base && n == 1
}

// changed reports whether the work (the plan aside) or HEAD changed since
// r noted it; with nothing noted, it cannot tell and says yes.
func (w work) changed(r *state.Tasks) bool {
	switch {
	case r.BeforeTree != "":
		if gitwork.Head(w.dir) != r.BeforeHead {
			return true
		}
		now, err := gitwork.WorkTree(w.dir, w.index)
		if err != nil {
			return true
		}
		changed, err := gitwork.TreeChanged(w.dir, r.BeforeTree, now, w.unwatched...)
		return changed || err != nil
	case r.BeforePrint != "":
		return gitwork.FolderPrint(w.dir, w.unwatched...) != r.BeforePrint
	}
	return true
}

// diff is the work since the loop started (a fan's task: since the task
// began) to now, the work tree before the iteration, cut at --diff-chars.
func (w work) diff(r *state.Tasks, now string) (string, error) {
	if r.Base == "" || now == "" {
		return "", nil
	}
	d, err := gitwork.Diff(w.dir, r.Base, now, w.plan)
	if err != nil {
		return "", err
	}
	if max := w.diffChars; max > 0 && len(d) > max {
		d = d[:max] + fmt.Sprintf("\n[… diff cut at %d characters of %d]\n", max, len(d))
	}
	return d, nil
}
