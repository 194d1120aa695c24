// Package finish lands what a loop did on its branch: it shows the run
// (commits, diff stat, checks, iterations, tokens, cost), then merges it
// into the branch it came from, rebases it there, opens a pull request with
// gh, or writes a patch series. It never force-pushes, never commits the
// loop's uncommitted changes unless asked, and touches the person's own
// branch only by the merge itself.
package finish

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Mode is how the work lands.
type Mode string

// The modes, named as their flags.
const (
	Merge  Mode = "merge"
	Rebase Mode = "rebase"
	PR     Mode = "pr"
	Patch  Mode = "patch"
)

// Exit codes, as the rest of ralph-watch uses them.
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
)

// Error is a refusal or a failure, with the exit code it means.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func failf(format string, a ...any) error {
	return &Error{Code: ExitFailed, Msg: fmt.Sprintf(format, a...)}
}

func usagef(format string, a ...any) error {
	return &Error{Code: ExitUsage, Msg: fmt.Sprintf(format, a...)}
}

// Options say how to land a loop's work.
type Options struct {
	Mode      Mode
	PatchFile string // Patch: where the series goes
	Into      string // the branch to land on; "" the one the worktree came from
	Remove    bool   // remove the worktree and the branch once merged
	Commit    bool   // commit uncommitted changes in the worktree first
	Remote    string // PR: where to push; "" the branch's remote, else origin
	Gh        string // PR: the gh program; "" finds gh on PATH
	Out       io.Writer
	Now       func() time.Time
}

// Place is where a loop's work is: its branch, the working tree that has
// it checked out, the repository, and the branch it lands on.
type Place struct {
	Repo     string // the main working tree
	Tree     string // the working tree the loop ran in
	Worktree bool   // Tree is the loop's own worktree (made by --worktree)
	Branch   string // the loop's branch
	Base     string // where it lands; "" not known
}

// Locate finds where run's work is. into, when set, is the branch to land on.
func Locate(run *history.Run, into string) (Place, error) {
	st := run.State
	var p Place
	switch {
	case st.Worktree != "":
		p.Tree, p.Worktree, p.Branch, p.Base = st.Worktree, true, st.WorktreeBranch, st.WorktreeBase
		if p.Branch == "" {
			p.Branch = "ralph/" + run.Name
		}
	case st.Dir != "":
		top, err := git(st.Dir, "rev-parse", "--show-toplevel")
		if err != nil {
			return p, failf("loop %s did not run in a git repository (%s): nothing to finish", run.Name, st.Dir)
		}
		p.Tree = top
		if p.Branch, err = git(top, "symbolic-ref", "--short", "-q", "HEAD"); err != nil {
			return p, failf("loop %s ran in %s, where HEAD is not on a branch: nothing to finish", run.Name, top)
		}
	default:
		return p, failf("loop %s has no folder recorded: nothing to finish", run.Name)
	}
	if into != "" {
		p.Base = into
	}
	common, err := git(p.Tree, "rev-parse", "--git-common-dir")
	if err != nil {
		return p, failf("loop %s's working tree %s is gone or not in git: %v", run.Name, p.Tree, err)
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(p.Tree, common)
	}
	p.Repo = filepath.Dir(common) // the main working tree holds .git
	if !p.Worktree && p.Base == "" {
		return p, usagef("loop %s ran on branch %s in %s, not in a worktree of its own: say where it lands with --into BRANCH", run.Name, p.Branch, p.Tree)
	}
	if p.Base == "" {
		return p, usagef("loop %s did not record the branch its worktree came from: say where it lands with --into BRANCH", run.Name)
	}
	if p.Base == p.Branch {
		return p, usagef("loop %s's branch is %s itself: --into names another branch", run.Name, p.Base)
	}
	if !ok(p.Repo, "rev-parse", "-q", "--verify", "refs/heads/"+p.Base) {
		return p, failf("branch %s (where loop %s lands) does not exist", p.Base, run.Name)
	}
	return p, nil
}

// Finish shows run's work and lands it as opts say.
func Finish(run *history.Run, opts Options) error {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if contract.StatusOf(run.State).Live() && run.Store.Locked() {
		return failf("loop %s is still %s: stop it first (ralph-watch stop %s)", run.Name, contract.StatusOf(run.State), run.Name)
	}
	p, err := Locate(run, opts.Into)
	if err != nil {
		return err
	}
	if err := clean(run, p, opts); err != nil {
		return err
	}
	s, err := Summarize(run, p)
	if err != nil {
		return err
	}
	fmt.Fprint(opts.Out, s.Text())
	if len(s.Commits) == 0 && opts.Mode != PR {
		fmt.Fprintf(opts.Out, "\nNothing to land: %s has no commit that %s lacks.\n", p.Branch, p.Base)
		return removeIfMerged(run, p, opts)
	}
	fmt.Fprintln(opts.Out)
	var rec Landed
	switch opts.Mode {
	case Merge:
		rec, err = merge(p)
	case Rebase:
		rec, err = rebase(p)
	case PR:
		rec, err = pullRequest(run, p, s, opts)
	case Patch:
		rec, err = patch(p, opts.PatchFile)
	default:
		return usagef("finish needs one of --merge, --rebase, --pr, --patch FILE")
	}
	if err != nil {
		return err
	}
	rec.At, rec.Branch, rec.Into = state.Stamp(opts.Now()), p.Branch, p.Base
	if data, err := json.MarshalIndent(rec, "", "  "); err == nil {
		_ = run.Store.WriteFile(state.LandedFile, append(data, '\n'))
	}
	fmt.Fprintln(opts.Out, rec.Sentence())
	return removeIfMerged(run, p, opts)
}

// Show is finish without a mode: what the loop did and what is left to
// land, and how to land it. It changes nothing, so it refuses nothing that
// landing would refuse (a loop still running, uncommitted changes) but says so.
func Show(run *history.Run, opts Options) error {
	p, err := Locate(run, opts.Into)
	if err != nil {
		return err
	}
	s, err := Summarize(run, p)
	if err != nil {
		return err
	}
	fmt.Fprint(opts.Out, s.Text())
	files, _ := dirty(p.Tree, true)
	if len(files) > 0 {
		fmt.Fprintf(opts.Out, "Uncommitted in %s: %s; --commit commits them first\n", p.Tree, listed(files))
	}
	if contract.StatusOf(run.State).Live() && run.Store.Locked() {
		fmt.Fprintf(opts.Out, "\nLoop %s is still %s: stop it first (ralph-watch stop %s), then land it.\n", run.Name, contract.StatusOf(run.State), run.Name)
		return nil
	}
	if len(s.Commits) == 0 && len(files) == 0 {
		what := "Nothing left to land"
		if word, _ := Read(run.Store, run.State); word == "nothing" {
			what = "Nothing to land yet"
		}
		fmt.Fprintf(opts.Out, "\n%s: %s has no commit that %s lacks.\n", what, p.Branch, p.Base)
		return nil
	}
	fmt.Fprintf(opts.Out, "\nLand it with one of: ralph-watch finish %s --merge | --rebase | --pr | --patch FILE (--remove then removes the worktree and branch)\n", run.Name)
	return nil
}

// clean refuses a working tree with uncommitted changes, or commits them
// when asked to.
func clean(run *history.Run, p Place, opts Options) error {
	files, err := dirty(p.Tree, true)
	if err != nil {
		return failf("look at %s: %v", p.Tree, err)
	}
	if len(files) == 0 {
		return nil
	}
	if !opts.Commit {
		return failf("%s has uncommitted changes (%s): commit them, or say --commit to commit them first", p.Tree, listed(files))
	}
	if cur, _ := git(p.Tree, "symbolic-ref", "--short", "-q", "HEAD"); cur != p.Branch {
		return failf("%s has %s checked out, not the loop's branch %s: nothing committed", p.Tree, cur, p.Branch)
	}
	if _, err := git(p.Tree, "add", "-A"); err != nil {
		return failf("commit the loop's changes: %v", err)
	}
	msg := fmt.Sprintf("ralph %s: uncommitted work at finish", run.Name)
	if _, err := git(p.Tree, "commit", "-q", "-m", msg); err != nil {
		return failf("commit the loop's changes: %v", err)
	}
	fmt.Fprintf(opts.Out, "Committed %s in %s: %s\n\n", listed(files), p.Branch, msg)
	return nil
}

// listed names files, at most 10 of them.
func listed(files []string) string {
	if len(files) > 10 {
		return strings.Join(files[:10], ", ") + fmt.Sprintf(" and %d more", len(files)-10)
	}
	return strings.Join(files, ", ")
}

// Landed is how finish landed a loop's work, kept in landed.json.
type Landed struct {
	How    Mode   `json:"how"`
	Branch string `json:"branch"`
	Into   string `json:"into"`
	Commit string `json:"commit,omitempty"` // Into's head after a merge or rebase
	URL    string `json:"url,omitempty"`    // the pull request
	File   string `json:"file,omitempty"`   // the patch series
	At     string `json:"at"`
}

// Sentence says in words what was done.
func (l Landed) Sentence() string {
	switch l.How {
	case Merge:
		return fmt.Sprintf("Merged %s into %s (now at %s).", l.Branch, l.Into, short(l.Commit))
	case Rebase:
		return fmt.Sprintf("Rebased %s onto %s and fast-forwarded %s (now at %s).", l.Branch, l.Into, l.Into, short(l.Commit))
	case PR:
		return fmt.Sprintf("Pushed %s and opened a pull request into %s: %s", l.Branch, l.Into, l.URL)
	case Patch:
		return fmt.Sprintf("Wrote the patch series of %s against %s to %s (apply with: git am %s).", l.Branch, l.Into, l.File, l.File)
	}
	return ""
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// merge lands the branch on the base: a fast-forward when the base has not
// moved, else a merge commit. A conflict aborts the merge and names the files.
func merge(p Place) (Landed, error) {
	tree, done, err := baseTree(p)
	if err != nil {
		return Landed{}, err
	}
	defer done()
	back, err := setAside(tree, p)
	if err != nil {
		return Landed{}, err
	}
	landed := false
	defer func() {
		if !landed {
			back()
		}
	}()
	if ok(tree, "merge-base", "--is-ancestor", p.Base, p.Branch) {
		if _, err := git(tree, "merge", "--ff-only", "-q", p.Branch); err != nil {
			return Landed{}, failf("fast-forward %s to %s: %v", p.Base, p.Branch, err)
		}
	} else if _, err := git(tree, "merge", "--no-ff", "--no-edit", "-q", "-m", fmt.Sprintf("Merge branch '%s' into %s", p.Branch, p.Base), p.Branch); err != nil {
		files := unmerged(tree)
		_, _ = git(tree, "merge", "--abort")
		if len(files) > 0 {
			return Landed{}, failf("merge %s into %s: conflict in %s; the merge was aborted and %s is as it was", p.Branch, p.Base, strings.Join(files, ", "), p.Base)
		}
		return Landed{}, failf("merge %s into %s: %v", p.Branch, p.Base, err)
	}
	landed = true
	head, _ := git(tree, "rev-parse", "HEAD")
	return Landed{How: Merge, Commit: head}, nil
}

// setAside moves out of the way the untracked files of the base's checkout
// that the branch adds, when each is the branch's own file as the loop
// carried it in (the plan that init wrote and nobody committed): the same,
// or the same but for the loop's ticks. Any other is the person's, and the
// merge is refused by name. back puts them back, for a merge that failed.
func setAside(tree string, p Place) (back func(), err error) {
	back = func() {}
	out, err := git(tree, "ls-files", "--others", "--exclude-standard")
	if err != nil || out == "" {
		return back, nil
	}
	untracked := map[string]bool{}
	for _, f := range lines(out) {
		untracked[f] = true
	}
	added, _ := git(tree, "diff", "--name-only", "--no-renames", "--diff-filter=A", p.Base+"..."+p.Branch)
	kept := map[string][]byte{}
	for _, f := range lines(added) {
		if !untracked[f] {
			continue
		}
		mine, err := os.ReadFile(filepath.Join(tree, f))
		if err != nil {
			return back, failf("look at %s: %v", filepath.Join(tree, f), err)
		}
		theirs, _ := git(tree, "show", p.Branch+":"+f)
		if unticked(string(mine)) != unticked(theirs) {
			return back, failf("merge %s into %s: %s in %s is not tracked and differs from the one %s adds: commit it or move it aside, then finish again",
				p.Branch, p.Base, f, tree, p.Branch)
		}
		kept[f] = mine
	}
	for f := range kept {
		if err := os.Remove(filepath.Join(tree, f)); err != nil {
			return back, failf("set aside %s: %v", f, err)
		}
	}
	return func() {
		for f, data := range kept {
			_ = os.WriteFile(filepath.Join(tree, f), data, 0o644)
		}
	}, nil
}

var tick = regexp.MustCompile(`(?m)^(\s*[-*+]\s+)\[[xX ]\]`)

// unticked is a plan with every box open, and no trailing newline (git
// show trims it): two copies of a plan that differ by their ticks alone
// read the same.
func unticked(text string) string {
	return strings.TrimRight(tick.ReplaceAllString(text, "$1[ ]"), "\n")
}

// baseTree is a working tree with the base checked out and clean: the
// person's own, where it is checked out, else a temporary one (done
// removes it).
func baseTree(p Place) (tree string, done func(), err error) {
	if tree = checkedOut(p.Repo, p.Base); tree != "" {
		files, err := dirty(tree, false)
		if err != nil {
			return "", nil, failf("look at %s: %v", tree, err)
		}
		if len(files) > 0 {
			return "", nil, failf("%s (where %s is checked out) has uncommitted changes (%s): commit or stash them, then finish again", tree, p.Base, listed(files))
		}
		if ok(tree, "rev-parse", "-q", "--verify", "MERGE_HEAD") {
			return "", nil, failf("%s is in the middle of a merge: finish it or abort it first", tree)
		}
		return tree, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "ralph-finish-")
	if err != nil {
		return "", nil, failf("make a working tree for %s: %v", p.Base, err)
	}
	tree = filepath.Join(tmp, "tree")
	if _, err := git(p.Repo, "worktree", "add", "-q", tree, p.Base); err != nil {
		_ = os.RemoveAll(tmp)
		return "", nil, failf("check out %s to merge into: %v", p.Base, err)
	}
	return tree, func() {
		_, _ = git(p.Repo, "worktree", "remove", "--force", tree)
		_ = os.RemoveAll(tmp)
	}, nil
}

// rebase replays the branch's commits on the base, in the loop's working
// tree, then fast-forwards the base to them. A conflict aborts the rebase
// and names the files.
func rebase(p Place) (Landed, error) {
	if _, err := git(p.Tree, "rebase", "-q", p.Base); err != nil {
		files := unmerged(p.Tree)
		_, _ = git(p.Tree, "rebase", "--abort")
		if len(files) > 0 {
			return Landed{}, failf("rebase %s onto %s: conflict in %s; the rebase was aborted and %s is as it was", p.Branch, p.Base, strings.Join(files, ", "), p.Branch)
		}
		return Landed{}, failf("rebase %s onto %s: %v", p.Branch, p.Base, err)
	}
	l, err := merge(p) // a fast-forward now
	l.How = Rebase
	return l, err
}

// patch writes the branch's commits since the base as one mbox series.
func patch(p Place, file string) (Landed, error) {
	if file == "" {
		return Landed{}, usagef("--patch needs a file to write")
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return Landed{}, usagef("--patch %s: %v", file, err)
	}
	out, err := git(p.Tree, "format-patch", "--stdout", p.Base+".."+p.Branch)
	if err != nil {
		return Landed{}, failf("format-patch %s..%s: %v", p.Base, p.Branch, err)
	}
	if err := os.WriteFile(abs, []byte(out+"\n"), 0o644); err != nil {
		return Landed{}, failf("write patch: %v", err)
	}
	return Landed{How: Patch, File: abs}, nil
}

// pullRequest pushes the branch (never forced) and opens a pull request
// into the base with gh, run in the loop's working tree.
func pullRequest(run *history.Run, p Place, s *Summary, opts Options) (Landed, error) {
	s.Closed = closedOnGitHub(loopIssues(run), p.Tree, opts)
	url, err := openPR(p.Tree, p.Branch, p.Base, s.Title(), s.Markdown(), run.Store.Path(state.PRBodyFile), opts)
	return Landed{How: PR, URL: url}, err
}

// openPR pushes branch from tree (never forced), keeps the body in
// bodyFile and opens a pull request into base with gh:
//
//	gh pr create --base BASE --head BRANCH --title TITLE --body-file FILE
//
// run in tree, so gh finds the repository by its remote. It returns the
// pull request's address as gh printed it.
func openPR(tree, branch, base, title, body, bodyFile string, opts Options) (string, error) {
	remote := opts.Remote
	if remote == "" {
		remote, _ = git(tree, "config", "--get", "branch."+branch+".remote")
	}
	if remote == "" {
		remote = "origin"
	}
	if _, err := git(tree, "push", "-q", "-u", remote, branch+":"+branch); err != nil {
		return "", failf("push %s to %s: %v", branch, remote, err)
	}
	if err := os.WriteFile(bodyFile, []byte(body), 0o600); err != nil {
		return "", failf("write the pull request's body: %v", err)
	}
	gh := opts.Gh
	if gh == "" {
		gh = "gh"
	}
	cmd := exec.Command(gh, "pr", "create", "--base", base, "--head", branch, "--title", title, "--body-file", bodyFile)
	cmd.Dir = tree
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", failf("gh pr create: %s (the branch is pushed; the body is in %s)", strings.TrimSpace(string(out)+" "+err.Error()), bodyFile)
	}
	url := ""
	for _, l := range lines(string(out)) {
		if strings.Contains(l, "://") {
			url = l
		}
	}
	return url, nil
}

// removeIfMerged removes the loop's worktree and branch when --remove asks
// and the branch is merged into the base; else it says why it keeps them.
func removeIfMerged(run *history.Run, p Place, opts Options) error {
	if !opts.Remove {
		return nil
	}
	if !ok(p.Repo, "merge-base", "--is-ancestor", p.Branch, p.Base) {
		fmt.Fprintf(opts.Out, "Kept %s: it is not merged into %s.\n", p.Branch, p.Base)
		return nil
	}
	if !p.Worktree {
		fmt.Fprintf(opts.Out, "Kept %s: it is checked out in %s, which is not the loop's own worktree.\n", p.Branch, p.Tree)
		return nil
	}
	if _, err := git(p.Repo, "worktree", "remove", p.Tree); err != nil {
		return failf("remove worktree %s: %v", p.Tree, err)
	}
	if _, err := git(p.Repo, "branch", "-d", p.Branch); err != nil {
		return failf("delete branch %s: %v", p.Branch, err)
	}
	fmt.Fprintf(opts.Out, "Removed worktree %s and branch %s.\n", p.Tree, p.Branch)
	return nil
}
