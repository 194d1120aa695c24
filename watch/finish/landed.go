package finish

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Read says whether a loop's work is landed, as status and list show it:
// how finish landed it ("merged", "rebased", "pr", "patch"), "merged" when
// the commits it made are in its base by other means, "nothing" when it has
// made no commit and left no change yet, "no" when it has work its base
// lacks (commits, or changes not committed, which finish would refuse), and
// "" for a loop without a branch of its own. detail says more in words, in
// one pair of parentheses at most once status puts it in one.
func Read(store *state.Store, st *state.State) (word, detail string) {
	if data, err := os.ReadFile(store.Path(state.LandedFile)); err == nil {
		var l Landed
		if json.Unmarshal(data, &l) == nil && l.How != "" {
			word = map[Mode]string{Merge: "merged", Rebase: "rebased", PR: "pr", Patch: "patch"}[l.How]
			return word, l.brief()
		}
	}
	if st.Worktree == "" || st.WorktreeBase == "" {
		return "", ""
	}
	branch := st.WorktreeBranch
	repo := st.Worktree
	if _, err := os.Stat(repo); err != nil {
		return "", ""
	}
	ahead, err := git(repo, "rev-list", "--count", st.WorktreeBase+".."+branch)
	if err != nil {
		return "", ""
	}
	var uncommitted string
	if files, err := dirty(repo, true); err == nil && len(files) > 0 {
		uncommitted = fmt.Sprintf("uncommitted changes in the worktree: %s; 'ralph-watch finish %s --commit' commits them", listed(files), st.WorkerName)
	}
	switch {
	case ahead != "0" && uncommitted != "":
		return "no", fmt.Sprintf("%s has %s %s not in %s, and %s", branch, ahead, plural(atoi(ahead), "commit"), st.WorktreeBase, uncommitted)
	case ahead != "0":
		return "no", fmt.Sprintf("%s has %s %s not in %s; 'ralph-watch finish %s' lands them", branch, ahead, plural(atoi(ahead), "commit"), st.WorktreeBase, st.WorkerName)
	case uncommitted != "":
		return "no", "not landed: " + uncommitted
	case madeCommits(repo, branch):
		return "merged", fmt.Sprintf("the commits of %s are all in %s", branch, st.WorktreeBase)
	}
	return "nothing", fmt.Sprintf("nothing to land yet: %s has no commit that %s lacks", branch, st.WorktreeBase)
}

// madeCommits reports whether branch has moved since it was made, by its
// reflog (git keeps one for every branch of a working repository); false
// when the reflog cannot tell.
func madeCommits(repo, branch string) bool {
	out, err := git(repo, "reflog", "show", "--format=%H", "refs/heads/"+branch, "--")
	if err != nil {
		return false
	}
	shas := lines(out)
	return len(shas) > 1 && shas[0] != shas[len(shas)-1]
}

// brief is Sentence for one line of status: no parentheses, and when.
func (l Landed) brief() string {
	s := ""
	switch l.How {
	case Merge:
		s = fmt.Sprintf("Merged %s into %s, now at %s", l.Branch, l.Into, short(l.Commit))
	case Rebase:
		s = fmt.Sprintf("Rebased %s onto %s and fast-forwarded %s, now at %s", l.Branch, l.Into, l.Into, short(l.Commit))
	case PR:
		s = fmt.Sprintf("Pushed %s and opened a pull request into %s: %s", l.Branch, l.Into, l.URL)
	case Patch:
		s = fmt.Sprintf("Wrote the patch series of %s against %s to %s", l.Branch, l.Into, l.File)
	}
	if l.At != "" {
		s += ", " + l.At
	}
	return s
}

func atoi(s string) int {
	n := 0
	_, _ = fmt.Sscan(s, &n)
	return n
}
