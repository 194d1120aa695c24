package watch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/fakeapi"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
)

// Goal mode end to end with the real Claude Code, offline: a worker
// iteration in the pane makes the change (the fake model runs one shell
// command) and prints the done token; the loop runs the check, then asks
// `claude -p` as the judge, through the same fake model API, which answers
// a judge's input with a JSON verdict (fakeapi's !judge); the verdict
// read, the loop ends goal_met. The judge's input is the evidence alone:
// the goal, the diff with the new file, the check.
func TestClaudeCodeGoalLoopEndsGoalMetByClaudeAsTheJudge(t *testing.T) {
	t.Parallel()
	claude := claudeCode.find(t)
	verdict := `{"met": true, "missing": [], "evidence": ["hello.txt is new and holds hello", "grep -qx hello hello.txt passed"]}`
	reply := "!judge " + verdict + "\n!bash printf 'hello\\n' > hello.txt\nDone: hello.txt says hello.\nRALPH_DONE_42"
	r := newAgentRun(t, claudeCode, claude, "Make hello.txt say hello. When it is done, print RALPH_DONE_42 on a line of its own.\n", reply)
	defer r.explain()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", r.proj}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	r.cfg.Command = append(r.cfg.Command, "--permission-mode", "acceptEdits", "--allowedTools", "Bash(*)")
	r.cfg.Checks = []checks.Check{{Command: "grep -qx hello hello.txt"}}
	// The judge runs outside tmux, from the watcher: it is given the
	// agent's setup (HOME, the fake API's address and key) as its own.
	env := append([]string{"HOME=" + filepath.Join(r.srv.Dir, "home"), "TMPDIR=" + filepath.Join(r.srv.Dir, "tmp"), "NO_PROXY=127.0.0.1,localhost"}, r.setup.Env...)
	r.cfg.Goal = judge.Settings{Goal: "A file hello.txt that says hello.", Patience: judge.DefaultPatience,
		Judge: judge.Judge{Command: claude + " -p", Env: env, Unset: r.setup.Unset, Timeout: 2 * time.Minute}}
	r.useTurnHook(turnHookWake(t))
	res := r.run(2 * claudeCode.timeout)
	if res.Code != contract.ExitDone || res.Reason != "goal_met" {
		t.Errorf("result %+v, want exit 0 goal_met", res)
	}
	if data, _ := os.ReadFile(filepath.Join(r.proj, "hello.txt")); string(data) != "hello\n" {
		t.Errorf("hello.txt = %q", data)
	}
	st, err := r.store().Load()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(st.Verdicts); n == 0 || !st.Verdicts[n-1].Met || strings.Join(st.Verdicts[n-1].Evidence, "|") != "hello.txt is new and holds hello|grep -qx hello hello.txt passed" {
		t.Errorf("the record's verdicts %+v", st.Verdicts)
	}
	log, _ := os.ReadFile(r.store().Path("iterations.log"))
	if !strings.Contains(string(log), "[JUDGE] iteration 1 met") {
		t.Errorf("no [JUDGE] line:\n%s", log)
	}
	// What the judge read: its request to the model, the evidence alone.
	var inputs []string
	for _, req := range r.api.Requests() {
		for _, text := range req.Texts {
			if strings.Contains(text, fakeapi.JudgeMarker) {
				inputs = append(inputs, text)
			}
		}
	}
	if len(inputs) != 1 {
		t.Fatalf("the model received %d judge's inputs, want 1", len(inputs))
	}
	in := inputs[0]
	t.Logf("the judge's input, %d bytes:\n%s", len(in), in)
	for _, want := range []string{"## The goal (the person's words)\n\n```\nA file hello.txt that says hello.\n```",
		"+++ b/hello.txt", "+hello", "### `grep -qx hello hello.txt`: exit 0, passed"} {
		if !strings.Contains(in, want) {
			t.Errorf("the judge's input lacks %q", want)
		}
	}
	for _, never := range []string{"Done: hello.txt says hello.", "RALPH_DONE_42"} { // the agent's own words
		if strings.Contains(in, never) {
			t.Errorf("the judge's input holds the agent's words %q", never)
		}
	}
}
