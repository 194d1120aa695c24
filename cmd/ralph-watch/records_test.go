package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// Records and messages a person can trust: what list, note, finish, tasks
// and status say holds as the person reads it.

// list with no loops says there are none and how to start one; --json stays [].
func TestListWithNoLoopsSaysHowToStartOne(t *testing.T) {
	t.Setenv("RALPH_STATE_DIR", t.TempDir())
	code, stdout, stderr := runInProcess("list")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "No loops. Start one") || !strings.Contains(stdout, "ralph-watch run") {
		t.Errorf("list with no loops: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	if code, stdout, _ := runInProcess("list", "--json"); code != 0 || strings.TrimSpace(stdout) != "[]" {
		t.Errorf("list --json with no loops: exit %d, %q", code, stdout)
	}
	if code, stdout, _ := runInProcess("list", "--names"); code != 0 || stdout != "" {
		t.Errorf("list --names with no loops: exit %d, %q", code, stdout)
	}
}

// The person's word for what runs is "loop": no message or column of theirs
// says worker (state.json keeps its field names).
func TestMessagesAndColumnsSayLoopNeverWorker(t *testing.T) {
	root := t.TempDir()
	t.Setenv("RALPH_STATE_DIR", root)
	for _, args := range [][]string{{"note", "nosuchloop", "hi"}, {"status", "nosuchloop"}, {"logs", "nosuchloop"}} {
		code, stdout, stderr := runInProcess(args...)
		if code != 1 || stdout != "" || stderr != "ralph-watch: error: no ralph state found for loop 'nosuchloop'\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	store, err := state.Open(root, "quiet")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(&state.State{WorkerName: "quiet", Status: state.Running, CurrentIteration: 1, MaxIterations: 3}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runInProcess("list")
	if code != 0 || strings.Contains(strings.ToLower(stdout+stderr), "worker") || !strings.Contains(stdout, " AGENT ") {
		t.Errorf("list: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = runInProcess("status", "quiet")
	if code != 0 || strings.Contains(strings.ToLower(stdout+stderr), "worker") || !strings.Contains(stdout, "Exit reason: monitor_disconnected (agent removed)\n") {
		t.Errorf("status: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if code, stdout, stderr = runInProcess("logs", "quiet"); code != 1 || stderr != "ralph-watch: error: no iteration log found for loop 'quiet'\n" {
		t.Errorf("logs of a loop without a log: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// note NAME the API moved takes its words as one note, as typed.
func TestNoteJoinsItsWords(t *testing.T) {
	root := t.TempDir()
	t.Setenv("RALPH_STATE_DIR", root)
	store, err := state.Open(root, "steered")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(&state.State{WorkerName: "steered", Status: state.Paused, CurrentIteration: 1, MaxIterations: 3}); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runInProcess("note", "steered", "the", "API", "moved"); code != 0 || stderr != "" || stdout != "note for the next iteration of steered\n" {
		t.Fatalf("note of three words: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if s := store.Steers(); len(s) != 1 || s[0].Text != "the API moved" {
		t.Errorf("the note left: %+v", s)
	}
	if code, _, stderr := runInProcess("note", "steered"); code != 2 || !strings.Contains(stderr, "note takes a loop name and a text") {
		t.Errorf("note without a text: exit %d, stderr %q", code, stderr)
	}
}

// --name "" is refused rather than taken as the default name, and so is a
// name that status NAME and the rest would read as a flag.
func TestRunRefusesAnEmptyNameAndOneThatReadsAsAFlag(t *testing.T) {
	t.Setenv("RALPH_STATE_DIR", t.TempDir())
	for _, tc := range []struct{ name, want string }{
		{"", `invalid value "" for flag --name: a loop name must not be empty`},
		{"-x", `invalid value "-x" for flag --name: a loop name must not start with -`},
	} {
		code, stdout, stderr := runInProcess("run", "--name", tc.name, "--prompt-mode", "arg", "--", "true")
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "ralph-watch: error: "+tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("run --name %q: exit %d, stdout %q, stderr %q", tc.name, code, stdout, stderr)
		}
	}
	if code, _, stderr := runInProcess("status", "-x"); code != 2 || stderr != "ralph-watch: error: flag provided but not defined: -x (see 'ralph-watch status -h')\n" {
		t.Errorf("status -x: exit %d, stderr %q", code, stderr)
	}
}

// worktreeLoop is a loop "wt" that ended (stopped) with its worktree
// .ralph/worktrees/wt on branch ralph/wt, made from main of a repository
// with one commit (work, and PLAN.md of tasks T1 and T2): no tmux, real git. It returns the repository and the worktree.
func worktreeLoop(t *testing.T) (repo, tree string) {
	t.Helper()
	root := t.TempDir()
	t.Setenv("RALPH_STATE_DIR", filepath.Join(root, "state"))
	for _, kv := range gitEnv {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	repo = filepath.Join(root, "repo")
	tree = filepath.Join(repo, ".ralph", "worktrees", "wt")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"work": "start\n", "PLAN.md": "- [ ] T1: one\n- [ ] T2: two\n"} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, repo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(repo, ".git", "info", "exclude"), []byte(".ralph/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "start")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "ralph/wt", tree, "main")
	store, err := state.Open(filepath.Join(root, "state"), "wt")
	if err != nil {
		t.Fatal(err)
	}
	reason := "stopped"
	if err := store.Save(&state.State{WorkerName: "wt", Status: state.Stopped, ExitReason: &reason, CurrentIteration: 1, MaxIterations: 3,
		Dir: tree, Worktree: tree, WorktreeBranch: "ralph/wt", WorktreeBase: "main"}); err != nil {
		t.Fatal(err)
	}
	return repo, tree
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// landedSays is what status and list say of loop wt's landing.
func landedSays(t *testing.T) (statusLine, listCell string) {
	t.Helper()
	code, stdout, stderr := runInProcess("status", "wt")
	if code != 0 {
		t.Fatalf("status: exit %d, %s", code, stderr)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "Landed: ") {
			statusLine = l
		}
	}
	code, stdout, stderr = runInProcess("list")
	if code != 0 {
		t.Fatalf("list: exit %d, %s", code, stderr)
	}
	rows := strings.Split(stdout, "\n")
	head, row := strings.Fields(rows[0]), strings.Fields(rows[1])
	for i, h := range head {
		if h == "LANDED" && i < len(row) {
			listCell = row[i]
		}
	}
	return statusLine, listCell
}

// A loop that made no commit has nothing to land yet; one whose work is
// uncommitted has not landed it (finish would refuse it); one whose commits
// were merged by hand is merged.
func TestLandedSaysNothingYetForNoCommitAndNoForUncommittedWork(t *testing.T) {
	repo, tree := worktreeLoop(t)
	if line, cell := landedSays(t); line != "Landed: nothing (nothing to land yet: ralph/wt has no commit that main lacks)" || cell != "nothing" {
		t.Errorf("a loop with no commit: status %q, list %q", line, cell)
	}
	if err := os.WriteFile(filepath.Join(tree, "work"), []byte("start\nmore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if line, cell := landedSays(t); line != "Landed: no (not landed: uncommitted changes in the worktree: work; 'ralph-watch finish wt --commit' commits them)" || cell != "no" {
		t.Errorf("a loop whose work is uncommitted: status %q, list %q", line, cell)
	}
	if code, _, stderr := runInProcess("finish", "wt", "--merge"); code != 1 || !strings.Contains(stderr, "has uncommitted changes (work)") {
		t.Errorf("finish --merge of uncommitted work: exit %d, %s", code, stderr)
	}
	gitIn(t, tree, "commit", "-q", "-am", "more")
	if line, cell := landedSays(t); line != "Landed: no (ralph/wt has 1 commit not in main; 'ralph-watch finish wt' lands them)" || cell != "no" {
		t.Errorf("a loop with a commit: status %q, list %q", line, cell)
	}
	gitIn(t, repo, "merge", "-q", "--ff-only", "ralph/wt")
	if line, cell := landedSays(t); line != "Landed: merged (the commits of ralph/wt are all in main)" || cell != "merged" {
		t.Errorf("a loop merged by hand: status %q, list %q", line, cell)
	}
}

// finish NAME with no mode shows what the loop did and what is left to
// land, changes nothing, and exits 0.
func TestFinishWithoutAModeShowsTheRunAndHowToLandIt(t *testing.T) {
	repo, tree := worktreeLoop(t)
	code, stdout, stderr := runInProcess("finish", "wt")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "Loop wt: ") || !strings.Contains(stdout, "Branch ralph/wt (worktree "+tree+"), onto main: 0 commits\n") ||
		!strings.HasSuffix(stdout, "\nNothing to land yet: ralph/wt has no commit that main lacks.\n") {
		t.Errorf("finish of a loop with nothing to land: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if err := os.WriteFile(filepath.Join(tree, "late"), []byte("late\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, tree, "commit", "-q", "-am", "more", "--allow-empty")
	before := gitIn(t, repo, "rev-parse", "main")
	code, stdout, stderr = runInProcess("finish", "wt")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "onto main: 1 commit\n") || !strings.Contains(stdout, "Uncommitted in "+tree+": late; --commit commits them first\n") ||
		!strings.HasSuffix(stdout, "\nLand it with one of: ralph-watch finish wt --merge | --rebase | --pr | --patch FILE (--remove then removes the worktree and branch)\n") {
		t.Errorf("finish of a loop with work to land: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if after := gitIn(t, repo, "rev-parse", "main"); after != before || gitIn(t, tree, "status", "--porcelain") != "?? late\n" {
		t.Errorf("finish without a mode changed something: main %s -> %s", before, after)
	}
	if code, _, stderr := runInProcess("finish", "wt", "--merge", "--pr"); code != 2 || !strings.Contains(stderr, "(got 2)") {
		t.Errorf("two modes: exit %d, %s", code, stderr)
	}
}

// After finish --merge --remove, status says it landed in one flat line,
// names the worktree as removed, and finish says the agent still runs there.
func TestFinishRemoveLeavesAFlatLandedLineAndSaysTheAgentRunsOn(t *testing.T) {
	repo, tree := worktreeLoop(t)
	srv := tmuxtest.Start(t)
	pane := strings.TrimSpace(srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-c", tree, "-t", "main:", "sleep 300"))
	root := os.Getenv("RALPH_STATE_DIR")
	store, err := state.Find(root, "wt")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	st.PaneID, st.TmuxSocket = pane, srv.Socket
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "work"), []byte("start\nmore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, tree, "commit", "-q", "-am", "more")
	code, stdout, stderr := runInProcess("finish", "wt", "--merge", "--remove")
	if code != 0 || !strings.Contains(stdout, "Merged ralph/wt into main") || !strings.Contains(stdout, "Removed worktree "+tree) ||
		!strings.HasSuffix(stdout, "The agent of wt still runs in pane "+pane+", in the removed worktree: end it with 'ralph-watch stop --kill wt'.\n") {
		t.Errorf("finish --merge --remove: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	head := strings.TrimSpace(gitIn(t, repo, "rev-parse", "main"))
	code, stdout, _ = runInProcess("status", "wt")
	if code != 0 || !strings.Contains(stdout, "\nWorktree: "+tree+" (removed; it was branch ralph/wt)\n") {
		t.Errorf("status names the removed worktree as if it were there:\n%s", stdout)
	}
	line, _ := landedSays(t)
	if !strings.HasPrefix(line, "Landed: merged (Merged ralph/wt into main, now at "+head[:12]+", ") || strings.Count(line, "(") != 1 || !strings.HasSuffix(line, ")") {
		t.Errorf("landed line %q", line)
	}
}

// tasks on init --tasks's untouched plan says its tasks are the template's.
func TestTasksSaysTheTemplatesExampleTasksAreNotThePersons(t *testing.T) {
	path := filepath.Join(t.TempDir(), planFile)
	if err := os.WriteFile(path, []byte(planTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runInProcess("tasks", path)
	if code != 0 || stderr != "" || !strings.HasSuffix(stdout, "\n2 tasks: 0 done, 2 open; next: 1\n\nTasks 1, 2 are the example tasks of 'ralph-watch init --tasks', not yours yet: edit the plan to say what is to be done.\n") {
		t.Errorf("tasks of the template: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(planTemplate, "Describe the second task", "Add the --json flag", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stdout, _ := runInProcess("tasks", path); !strings.HasSuffix(stdout, "\nTask 1 is the example task of 'ralph-watch init --tasks', not yours yet: edit the plan to say what is to be done.\n") {
		t.Errorf("tasks of a half-edited template:\n%s", stdout)
	}
	if err := os.WriteFile(path, []byte("- [ ] Add the --json flag\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stdout, _ := runInProcess("tasks", path); strings.Contains(stdout, "example") {
		t.Errorf("tasks of the person's own plan:\n%s", stdout)
	}
	if _, stdout, _ := runInProcess("tasks", "--json", path); strings.Contains(stdout, "example tasks") {
		t.Errorf("tasks --json says it in words:\n%s", stdout)
	}
}

// Two tasks of one id: tasks warns that the loop renames the second.
func TestTasksWarnsOfTwoTasksWithOneID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "PLAN.md")
	if err := os.WriteFile(path, []byte("- [ ] T3: one\n- [ ] two\n- [ ] T3: three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runInProcess("tasks", path)
	if code != 0 || !strings.Contains(stdout, "T3-2  open   3     three\n") ||
		stderr != "ralph-watch: warning: line 3: task id T3 is also the id of the task at line 1; the loop calls this one T3-2 (give each task its own id)\n" {
		t.Errorf("tasks of a plan with T3 twice: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// A worktree loop's plan is its worktree's copy: status names it and the
// person's copy; tasks NAME says when the person's copy differs, and shows
// it once the loop's copy is gone.
func TestAWorktreeLoopsPlanIsNamedAndTheCheckoutsCopyTold(t *testing.T) {
	repo, tree := worktreeLoop(t)
	store, err := state.Find(os.Getenv("RALPH_STATE_DIR"), "wt")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	loopsPlan, mine := filepath.Join(tree, "PLAN.md"), filepath.Join(repo, "PLAN.md")
	st.Tasks = &state.Tasks{File: loopsPlan, Total: 2, Open: 2, Items: []state.TaskItem{{ID: "T1", Title: "one", State: "open", Attempts: 1}, {ID: "T2", Title: "two", State: "open"}}}
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	if _, stdout, _ := runInProcess("status", "wt"); !strings.Contains(stdout, "\nPlan: "+loopsPlan+" (the worktree's copy, which the loop reads: edit this one, not "+mine+")\n") {
		t.Errorf("status does not name the plan the loop reads:\n%s", stdout)
	}
	code, stdout, stderr := runInProcess("tasks", "wt")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, loopsPlan+": markdown plan\n") || strings.Contains(stdout, "differs") {
		t.Errorf("tasks of a loop whose copies agree: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if err := os.WriteFile(mine, []byte("- [ ] T0: first\n- [ ] T1: one\n- [ ] T2: two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runInProcess("tasks", "wt")
	if code != 0 || !strings.HasPrefix(stdout, loopsPlan+": markdown plan\n") ||
		!strings.HasSuffix(stdout, "\nThis is the loop's copy, in its worktree; your checkout's "+mine+" differs (ralph-watch tasks "+mine+" shows it).\n") {
		t.Errorf("tasks of a loop whose plan the person edited in the checkout: exit %d:\n%s", code, stdout)
	}
	gitIn(t, repo, "worktree", "remove", "--force", tree)
	code, stdout, stderr = runInProcess("tasks", "wt")
	if code != 0 || !strings.HasPrefix(stdout, mine+": markdown plan\n") || !strings.Contains(stdout, "T0  open   1     0         first\n") ||
		!strings.Contains(stdout, "T1  open   2     1         one\n") || stderr != "ralph-watch: warning: the loop's copy of the plan, "+loopsPlan+", is gone; showing your checkout's\n" {
		t.Errorf("tasks of a loop whose worktree is gone: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}
