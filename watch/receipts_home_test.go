package watch_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// sessionScript is a fake agent's steps that write the pinned release's
// session file (testdata/receipts) to path as it runs in dir, stamped now.
func sessionScript(t *testing.T, fixture, path, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "receipts", fixture))
	if err != nil {
		t.Fatal(err)
	}
	stamp := regexp.MustCompile(`"timestamp":"[^"]*"`)
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		line = strings.ReplaceAll(stamp.ReplaceAllString(line, `"timestamp":"{{now}}"`), "/home/dev/proj", dir)
		b.WriteString("append " + path + " " + line + "\n")
	}
	return b.String()
}

// Codex and Gemini CLI run with another HOME or config folder than the
// watcher's (`env HOME=…`, a wrapper that sets HOME, CODEX_HOME,
// GEMINI_CLI_HOME): their session files are found where they wrote them,
// and the receipt counts what those report.
func TestReceiptsFindCodexAndGeminiSessionsUnderTheHomeTheAgentRanWith(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, agent, fixture string
		env                  func(other string) string // NAME=value words the agent runs with
		wrapper              bool                      // set by a wrapper script, not the command's words
		session              func(other string) string // where the release writes its session file
	}{
		{"codex env HOME", "codex", "codex-0.169.0.jsonl", func(o string) string { return "HOME=" + o }, false,
			func(o string) string {
				return filepath.Join(o, ".codex", "sessions", "2026", "11", "22", "rollout-test.jsonl")
			}},
		{"codex wrapper HOME", "codex", "codex-0.169.0.jsonl", func(o string) string { return "HOME=" + o }, true,
			func(o string) string {
				return filepath.Join(o, ".codex", "sessions", "2026", "11", "22", "rollout-test.jsonl")
			}},
		{"codex wrapper CODEX_HOME", "codex", "codex-0.169.0.jsonl", func(o string) string { return "CODEX_HOME=" + o }, true,
			func(o string) string { return filepath.Join(o, "sessions", "2026", "11", "22", "rollout-test.jsonl") }},
		{"gemini env HOME", "gemini", "gemini-0.61.0.jsonl", func(o string) string { return "HOME=" + o }, false,
			func(o string) string {
				return filepath.Join(o, ".gemini", "tmp", "proj", "chats", "session-test.jsonl")
			}},
		{"gemini wrapper GEMINI_CLI_HOME", "gemini", "gemini-0.61.0.jsonl", func(o string) string { return "GEMINI_CLI_HOME=" + o }, true,
			func(o string) string {
				return filepath.Join(o, ".gemini", "tmp", "proj", "chats", "session-test.jsonl")
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, "write the file", nil)
			other := filepath.Join(h.srv.Dir, "other-home")
			session := c.session(other)
			if err := os.MkdirAll(filepath.Dir(session), 0o755); err != nil {
				t.Fatal(err)
			}
			if c.agent == "gemini" { // how Gemini CLI knows its project's folder
				_ = os.WriteFile(filepath.Join(filepath.Dir(filepath.Dir(session)), ".project_root"), []byte(h.srv.Dir), 0o644)
			}
			fake := h.agentNamed(c.agent, sessionScript(t, c.fixture, session, h.srv.Dir)+"print done\nsleep 2s\nexit 0\n")
			h.asAgent(c.agent)
			if c.wrapper { // the wrapper is not exec'd: its own environment is the watcher's
				h.cfg.Command = []string{h.script(c.agent+"-wrapper", c.env(other)+" "+fake[0]+" "+fake[1]+` "$@"`+"\n")}
			} else {
				h.cfg.Command = append([]string{"env", c.env(other)}, fake...)
			}
			h.cfg.PromptMode = agent.ModeArg
			h.cfg.MaxIterations = 1
			h.wantResult(h.run(30*time.Second), contract.ExitDone, "max_iterations")
			want, err := readFixture(c.agent, c.fixture)
			if err != nil {
				t.Fatal(err)
			}
			rs := h.receipts()
			if len(rs) != 1 || rs[0].Source != session || rs[0].Usage.Input != want.Input || rs[0].Usage.Output != want.Output ||
				rs[0].Usage.Turns != want.Turns || want.Sum() == 0 {
				t.Fatalf("receipts = %+v\nwant one from %s with %+v\noutput:\n%s", rs, session, want, h.out.String())
			}
		})
	}
}

func readFixture(name, fixture string) (receipt.Usage, error) {
	path := filepath.Join("..", "testdata", "receipts", fixture)
	if name == "codex" {
		return receipt.ReadCodexFile(path, time.Time{})
	}
	return receipt.ReadGeminiFile(path, time.Time{})
}
