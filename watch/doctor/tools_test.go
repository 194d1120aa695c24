package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Doctor says when the agent as launched would stop at every tool in a
// loop (nobody at the keyboard), and what to add; nothing when its flags or
// settings let it run its tools.
func TestDoctorWarnsWhenTheAgentAsLaunchedStopsAtEveryTool(t *testing.T) {
	for _, c := range []struct {
		name     string
		agent    string
		command  []string
		settings string // the project's .claude/settings.json
		root     bool
		want     string // in the one warning; "": none
	}{
		{"claude with nothing", "claude", []string{"claude"}, "", false, "add --permission-mode acceptEdits and allow the commands"},
		{"claude through env, nothing", "claude", []string{"env", "X=1", "claude", "--model", "opus"}, "", false, "add --permission-mode acceptEdits"},
		{"claude acceptEdits, no command allowed", "claude", []string{"claude", "--permission-mode", "acceptEdits"}, "", false, "asks before each command"},
		{"claude acceptEdits with allow rules", "claude", []string{"claude", "--permission-mode=acceptEdits"},
			`{"permissions": {"allow": ["Bash(make test)"]}}`, false, ""},
		{"claude allowed tools on the command line", "claude", []string{"claude", "--allowedTools", "Bash(make test),Edit"}, "", false, ""},
		{"claude settings with a mode", "claude", []string{"claude"}, `{"permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(go test:*)"]}}`, false, ""},
		{"claude auto mode drops broad Bash", "claude", []string{"claude", "--permission-mode", "auto", "--allowedTools", "Bash"}, "", false, "drops a broad allow rule (Bash)"},
		{"claude auto mode, narrow rules", "claude", []string{"claude", "--permission-mode", "auto", "--allowedTools", "Bash(make test)"}, "", false, ""},
		{"claude skip permissions", "claude", []string{"claude", "--dangerously-skip-permissions"}, "", false, ""},
		{"claude skip permissions as root", "claude", []string{"claude", "--dangerously-skip-permissions"}, "", true, "set IS_SANDBOX=1"},
		{"claude bypass as root", "claude", []string{"claude", "--permission-mode", "bypassPermissions"}, "", true, "as root"},
		{"claude skip as root, IS_SANDBOX", "claude", []string{"env", "IS_SANDBOX=1", "claude", "--dangerously-skip-permissions"}, "", true, ""},
		{"claude plan mode", "claude", []string{"claude", "--permission-mode", "plan"}, "", false, "makes no progress"},
		{"gemini with nothing", "gemini", []string{"gemini"}, "", false, "--approval-mode auto_edit"},
		{"gemini yolo", "gemini", []string{"gemini", "--approval-mode=yolo"}, "", false, ""},
		{"copilot with nothing", "copilot", []string{"copilot"}, "", false, "--allow-tool"},
		{"copilot all tools", "copilot", []string{"copilot", "--allow-all-tools"}, "", false, ""},
		{"codex as it comes", "codex", []string{"codex"}, "", false, ""},
		{"codex untrusted", "codex", []string{"codex", "-a", "untrusted"}, "", false, "asks before each command"},
		{"opencode", "opencode", []string{"opencode"}, "", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, dir := t.TempDir(), t.TempDir()
			if c.settings != "" {
				_ = os.MkdirAll(filepath.Join(dir, ".claude"), 0o700)
				if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(c.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got := ToolWarnings(Launched{Agent: c.agent, Command: c.command, Home: home, Dir: dir,
				Getenv: func(string) string { return "" }, Root: c.root})
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("warned %q, want no warning", got)
			case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
				t.Errorf("warnings %q, want one saying %q", got, c.want)
			}
		})
	}
}

// The warning is a line of doctor's report, beside the signals.
func TestDoctorsReportPrintsTheToolWarning(t *testing.T) {
	r := &Report{Agent: "claude", Version: "2.1.332", Command: []string{"claude"},
		Warnings: ToolWarnings(Launched{Agent: "claude", Command: []string{"claude"}, Home: t.TempDir(), Dir: t.TempDir(), Getenv: os.Getenv})}
	var out bytes.Buffer
	r.WriteText(&out)
	if !strings.Contains(out.String(), "⚠ tools") || !strings.Contains(out.String(), "--permission-mode acceptEdits") {
		t.Errorf("the report lacks the tools warning:\n%s", out.String())
	}
}
