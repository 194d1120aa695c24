package watch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// Claude Code works through a plan of three tasks, one an iteration: the
// fake model runs one shell command a turn, which does the first open
// task's work and ticks its box; the loop gives each iteration its task and
// counts it done by the change it sees, then ends tasks_done.
func TestClaudeCodeWorksThroughAPlanOneTaskAnIteration(t *testing.T) {
	t.Parallel()
	claude := claudeCode.find(t)
	work := `sed -i '0,/- \[ \]/s//- [x]/' PLAN.md && echo "$(grep -c '\[x\]' PLAN.md)" >> work.txt`
	r := newAgentRun(t, claudeCode, claude, "Work on the plan.\n", "!bash "+work+"\nDone: the task is implemented and ticked.")
	defer r.explain()
	plan := "# Plan\n\n- [ ] Add the parser\n  - it reads the file\n- [ ] Add the command\n- [ ] Write the docs\n\n## Notes\n\n- [ ] not a task\n"
	r.cfg.TasksFile = filepath.Join(r.proj, "PLAN.md")
	if err := os.WriteFile(r.cfg.TasksFile, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", r.proj}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	r.cfg.Command = append(r.cfg.Command, "--permission-mode", "acceptEdits", "--allowedTools", "Bash(*)") // no auto mode: its check needs the real server
	r.cfg.TaskAttempts, r.cfg.ReviewCap, r.cfg.DiffChars = 3, 5, 20000
	r.cfg.MaxIterations = 6
	r.cfg.DonePattern = nil
	r.useTurnHook(turnHookWake(t))
	res := r.run(2 * claudeCode.timeout)
	if res.Code != contract.ExitDone || res.Reason != "tasks_done" {
		t.Errorf("result %+v, want exit 0 tasks_done", res)
	}
	st, err := r.store().Load()
	if err != nil || st.Tasks == nil {
		t.Fatalf("no tasks in the state: %v", err)
	}
	for i, item := range st.Tasks.Items {
		t.Logf("task %s %q: %s in iterations %v (%d attempts)", item.ID, item.Title, item.State, item.Iterations, item.Attempts)
		if item.State != "done" || len(item.Iterations) != 1 || item.Iterations[0] != i+1 {
			t.Errorf("task %s = %+v, want done in iteration %d alone", item.ID, item, i+1)
		}
	}
	if st.CurrentIteration != 3 {
		t.Errorf("%d iterations, want 3", st.CurrentIteration)
	}
	// Each iteration's request to the model carried its own task.
	var asked []string
	for _, req := range r.api.Requests() {
		if text := strings.Join(req.Texts, "\n"); strings.Contains(text, "Work on one task of the plan") {
			asked = append(asked, text)
		}
	}
	for _, title := range []string{"Add the parser", "Add the command", "Write the docs"} {
		if !strings.Contains(strings.Join(asked, "\n"), "\n\n- [ ] "+title) {
			t.Errorf("no request to the model carried the task %q", title)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(r.proj, "work.txt")); string(data) != "1\n2\n3\n" {
		t.Errorf("work.txt = %q, want one task's work an iteration", data)
	}
}
