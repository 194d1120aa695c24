package finish

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Read says whether a loop's work is landed, as status and list show it:
// how finish landed it ("merged", "rebased", "pr", "patch"), "merged" when
// its branch is in its base by other means, "no" when it is not, and ""
// for a loop without a branch of its own. detail says more in words.
func Read(store *state.Store, st *state.State) (word, detail string) {
	if data, err := os.ReadFile(store.Path(state.LandedFile)); err == nil {
		var l Landed
		if json.Unmarshal(data, &l) == nil && l.How != "" {
			word = map[Mode]string{Merge: "merged", Rebase: "rebased", PR: "pr", Patch: "patch"}[l.How]
			return word, l.Sentence() + " (" + l.At + ")"
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
	if ahead == "0" {
		return "merged", fmt.Sprintf("%s has no commit that %s lacks", branch, st.WorktreeBase)
	}
	return "no", fmt.Sprintf("%s has %s %s not in %s (ralph-watch finish)", branch, ahead, plural(atoi(ahead), "commit"), st.WorktreeBase)
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}
