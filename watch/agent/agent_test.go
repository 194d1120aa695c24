package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestClassifyTellsTheAgentsStatesApart(t *testing.T) {
	claude, _ := Lookup("claude")
	codex, _ := Lookup("codex")
	gemini, _ := Lookup("gemini")
	tests := []struct {
		name   string
		p      Profile
		screen string
		want   State
	}{
		{"claude working", claude, "> fix the bug\n✽ Pondering… (12s · ↑ 1.2k tokens · esc to interrupt)\n─────\n❯\u00a0\n─────\n", StateWorking},
		{"claude idle after a turn", claude, "● Fixed it.\n✻ Worked for 3m 5s\n─────\n❯\u00a0\n─────\n  ? for shortcuts\n", StateFinished},
		{"claude idle, quick turn", claude, "● Still working on it.\n✻ Cogitated for 0s\n───\n❯\u00a0\n───\n  ? for shortcuts · ← for agents       ● high · /effort\n", StateFinished},
		{"claude idle before a turn", claude, "─────\n❯\u00a0\n─────\n  ? for shortcuts\n", StateIdle},
		{"claude permission", claude, "Bash command\n  rm -rf build\nDo you want to proceed?\n❯ 1. Yes\n  2. No, and tell Claude what to do differently (esc)\n", StateDialog},
		{"claude limit", claude, "● Working on it\n  ⎿  You've hit your limit · resets 8pm (Europe/Berlin)\n─────\n❯\u00a0\n", StateLimited},
		{"claude limit in print mode", claude, "Claude AI usage limit reached|1795370400\n", StateLimited},
		{"claude trust", claude, "Do you trust the files in this folder?\n\n/tmp/x\n\n❯ 1. Yes, proceed\n  2. No, exit\n", StateStartup},
		{"claude trust 2.x", claude, "Quick safety check: Is this a project you created or one you trust?\n❯ 1. Yes, I trust this folder\n", StateStartup},
		{"claude theme", claude, "Let's get started.\nChoose the text style that looks best with your terminal\n❯ 1. Dark mode ✔\n", StateStartup},
		{"claude nothing yet", claude, "$ claude\n", StateUnknown},
		{"codex working", codex, "• Working (5s • esc to interrupt)\n\n› Ask Codex to do anything\n", StateWorking},
		{"codex limit", codex, "■ You've hit your usage limit. Upgrade to Pro or try again in 4 days 20 hours 9 minutes.\n", StateLimited},
		{"gemini working", gemini, " ⠏ Thinking about it... (esc to cancel, 12s)\n >   Type your message or @path/to/file\n", StateWorking},
		{"gemini idle", gemini, "✦ Done.\n >   Type your message or @path/to/file\n", StateIdle},
		{"generic knows nothing", profiles["generic"], "Do you want to proceed?\nesc to interrupt\n", StateUnknown},
	}
	for _, tt := range tests {
		got, _ := tt.p.Classify(strings.Split(tt.screen, "\n"))
		if got != tt.want {
			t.Errorf("%s: Classify = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestClassifyHandsTheLimitLineToTheResetParser(t *testing.T) {
	claude, _ := Lookup("claude")
	_, detail := claude.Classify([]string{"● Working", "  ⎿  You've hit your limit · resets 8pm (Europe/Berlin)", "❯\u00a0"})
	if !strings.Contains(detail, "resets 8pm (Europe/Berlin)") {
		t.Errorf("limit detail = %q, want the line with the reset time", detail)
	}
}

func TestGuessAgentByTheProgramName(t *testing.T) {
	tests := []struct {
		command []string
		want    string
	}{
		{[]string{"claude"}, "claude"},
		{[]string{"/usr/local/bin/codex", "--model", "o3"}, "codex"},
		{[]string{"/bin/sh", "-c", "env FOO=1 gemini -m pro"}, "gemini"},
		{[]string{"npx", "opencode"}, "opencode"},
		{[]string{"python", "agent.py"}, "generic"},
		{[]string{"bash"}, "generic"},
		{[]string{"env", "HOME=/h", "ANTHROPIC_BASE_URL=http://x", "claude"}, "claude"},
		{[]string{"npx", "-y", "@anthropic-ai/claude-code@2.1.330"}, "claude"},
		{[]string{"/bin/sh", "-c", "nice -n 5 codex --model o3"}, "codex"},
		{[]string{"mywrap", "claude"}, "generic"},
	}
	for _, tt := range tests {
		if got := Guess(tt.command); got != tt.want {
			t.Errorf("Guess(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}

func TestCommandForAddsWhatThePromptModeNeedsOnce(t *testing.T) {
	tests := []struct {
		agent, mode string
		command     []string
		want        []string
	}{
		{"claude", ModeArg, []string{"claude", "--model", "opus"}, []string{"claude", "--model", "opus", "-p"}},
		{"claude", ModeArg, []string{"claude", "-p"}, []string{"claude", "-p"}},
		{"claude", ModeType, []string{"claude"}, []string{"claude"}},
		{"codex", ModeArg, []string{"codex", "-m", "o3"}, []string{"codex", "exec", "-m", "o3"}},
		{"codex", ModeStdin, []string{"codex"}, []string{"codex", "exec", "-"}},
		{"codex", ModeArg, []string{"codex", "exec"}, []string{"codex", "exec"}},
		{"gemini", ModeArg, []string{"gemini", "-m", "pro"}, []string{"gemini", "-m", "pro", "-p"}},
		{"generic", ModeArg, []string{"my-agent"}, []string{"my-agent"}},
		{"claude", ModeArg, []string{"/bin/sh", "-c", `claude --model opus "$@"`, "sh"}, []string{"/bin/sh", "-c", `claude --model opus '-p' "$@"`, "sh"}},
		{"claude", ModeArg, []string{"env", "HOME=/h", "claude"}, []string{"env", "HOME=/h", "claude", "-p"}},
		{"codex", ModeArg, []string{"npx", "-y", "@openai/codex", "-m", "o3"}, []string{"npx", "-y", "@openai/codex", "exec", "-m", "o3"}},
		{"claude", ModeArg, []string{"mywrap", "-p"}, []string{"mywrap", "-p"}},
		{"opencode", ModeArg, []string{"opencode", "-m", "fake/m"}, []string{"opencode", "run", "-m", "fake/m"}},
		{"opencode", ModeStdin, []string{"npx", "opencode-ai"}, []string{"npx", "opencode-ai", "run"}},
		{"copilot", ModeArg, []string{"copilot", "--model", "gpt-5"}, []string{"copilot", "--model", "gpt-5", "-p"}},
		{"copilot", ModeStdin, []string{"copilot"}, []string{"copilot"}},
	}
	for _, tt := range tests {
		p, _ := Lookup(tt.agent)
		if got, err := p.CommandFor(tt.mode, tt.command); err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s %s: CommandFor(%q) = %q, %v; want %q", tt.agent, tt.mode, tt.command, got, err, tt.want)
		}
	}
}

func TestCommandForRefusesWhatItCannotPlace(t *testing.T) {
	tests := []struct {
		agent, mode string
		command     []string
		want        string
	}{
		{"claude", ModeArg, []string{"mywrap"}, `--prompt-mode arg needs claude … -p, and that cannot be added to 'mywrap' (not claude's own program)`},
		{"codex", ModeStdin, []string{"/bin/sh", "-c", "cd sub && codex"}, `--prompt-mode stdin needs codex exec … -, and that cannot be added to the shell line 'cd sub && codex' (it uses '&')`},
		{"codex", ModeArg, []string{"claude"}, `not codex's own program`},
	}
	for _, tt := range tests {
		p, _ := Lookup(tt.agent)
		got, err := p.CommandFor(tt.mode, tt.command)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: CommandFor(%q) = %q, %v; want an error with %q", tt.agent, tt.mode, tt.command, got, err, tt.want)
		}
	}
}

func TestEveryProfileTakesTypedPromptsAndNamesItself(t *testing.T) {
	for _, name := range Names() {
		p, _ := Lookup(name)
		if p.Name != name || !p.Supports(ModeType) {
			t.Errorf("profile %q: name %q, type mode %v", name, p.Name, p.Supports(ModeType))
		}
	}
}

func FuzzClassify(f *testing.F) {
	f.Add("Do you want to proceed?\n❯ 1. Yes")
	f.Add("You've hit your limit · resets 8pm")
	f.Fuzz(func(t *testing.T, screen string) {
		for _, name := range Names() {
			p, _ := Lookup(name)
			state, detail := p.Classify(strings.Split(screen, "\n"))
			if state == StateStartup {
				p.StartupAdvice(detail)
			}
			if state == StateLimited {
				ParseReset(detail, time.Date(2026, 11, 22, 14, 30, 0, 0, time.UTC))
			}
		}
	})
}

// The screens the real agents showed (watch/agent/testdata/screens, see NOTES.md
// there), each read the way the loop reads a pane: its last 20 lines.
func TestClassifyReadsTheRealAgentsScreens(t *testing.T) {
	const (
		W = StateWorking
		I = StateIdle
		F = StateFinished
		D = StateDialog
		L = StateLimited
		S = StateStartup
		U = StateUnknown
	)
	want := map[string][]State{
		"claude-2.1.197-busy-start": {W}, "claude-2.1.197-busy-streaming": {W}, "claude-2.1.197-busy-thinking-12s": {W},
		"claude-2.1.197-busy-timer": {W}, "claude-2.1.197-bypass-busy": {W}, "claude-2.1.197-bypass-idle": {F},
		"claude-2.1.197-bypass-ready": {I}, "claude-2.1.197-dialog-apikey": {S}, "claude-2.1.197-dialog-bypass": {S},
		"claude-2.1.197-dialog-trust": {S}, "claude-2.1.197-idle-after-tool": {F}, "claude-2.1.197-idle-paste-hint": {L},
		"claude-2.1.197-idle": {F}, "claude-2.1.197-interrupted": {I, F}, "claude-2.1.197-limit-apikey": {L},
		"claude-2.1.197-limit-session-dialog": {L}, "claude-2.1.197-limit-session": {L}, "claude-2.1.197-limit-weekly": {L},
		"claude-2.1.197-onboarding-offline": {S}, "claude-2.1.197-pasted-multiline": {L}, "claude-2.1.197-pasted": {U},
		"claude-2.1.197-permission": {D}, "claude-2.1.197-ready": {I},

		"claude-2.1.330-busy-start": {W}, "claude-2.1.330-busy-streaming": {W}, "claude-2.1.330-busy-timer": {W},
		"claude-2.1.330-dialog-trust": {S}, "claude-2.1.330-idle": {F}, "claude-2.1.330-interrupted": {I},
		"claude-2.1.330-limit-apikey": {L}, "claude-2.1.330-pasted": {I}, "claude-2.1.330-permission": {D},
		"claude-2.1.330-ready-default-mode": {I}, "claude-2.1.330-ready": {I},

		"codex-0.169.0-busy-streaming": {U}, "codex-0.169.0-busy": {W}, "codex-0.169.0-dialog-hooks-review": {S},
		"codex-0.169.0-dialog-trust": {S}, "codex-0.169.0-idle-multiline": {L}, "codex-0.169.0-idle": {F},
		"codex-0.169.0-interrupted": {U, F}, "codex-0.169.0-limit-dialog-enter-switched-model": {L, F, U},
		"codex-0.169.0-limit-dialog": {L}, "codex-0.169.0-limit-other-day": {L}, "codex-0.169.0-limit": {L},
		"codex-0.169.0-pasted-multiline": {L}, "codex-0.169.0-pasted": {U}, "codex-0.169.0-permission-approved": {W, U, F},
		"codex-0.169.0-permission": {D}, "codex-0.169.0-ready-untrusted": {U}, "codex-0.169.0-ready": {U},
		"codex-0.169.0-warnings": {U},

		"gemini-0.61.0-busy-streaming": {W}, "gemini-0.61.0-busy": {W}, "gemini-0.61.0-cancelled": {I},
		"gemini-0.61.0-dialog-apikey": {S}, "gemini-0.61.0-dialog-auth": {S}, "gemini-0.61.0-dialog-trust": {S},
		"gemini-0.61.0-idle": {I}, "gemini-0.61.0-limit-dialog": {L}, "gemini-0.61.0-limit-routing-loop": {W},
		"gemini-0.61.0-limit": {L}, "gemini-0.61.0-pasted-multiline": {L}, "gemini-0.61.0-pasted": {U, I},
		"gemini-0.61.0-permission-approved": {W, I}, "gemini-0.61.0-permission": {D}, "gemini-0.61.0-ready": {I},

		"opencode-1.18.33-starting": {U}, "opencode-1.18.33-ready": {I}, "opencode-1.18.33-pasted": {I},
		"opencode-1.18.33-busy": {W}, "opencode-1.18.33-idle": {F}, "opencode-1.18.33-limit": {L},
		"opencode-1.18.33-limit-interrupted": {I, F}, "opencode-1.18.33-permission": {D},
		"opencode-1.18.33-permission-approved": {F},

		"copilot-1.0.102-starting": {U}, "copilot-1.0.102-dialog-trust": {S}, "copilot-1.0.102-ready": {I},
		"copilot-1.0.102-pasted": {U}, "copilot-1.0.102-busy": {W}, "copilot-1.0.102-idle": {I},
		"copilot-1.0.102-permission": {D}, "copilot-1.0.102-permission-approved": {I},
		"copilot-1.0.102-limit-retrying": {W}, // the limit shows only to its errorOccurred hook
	}
	files, _ := filepath.Glob("testdata/screens/*-*.txt")
	seen := 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		if strings.HasSuffix(name, ".ansi") {
			continue
		}
		ok, known := want[name]
		if !known {
			t.Errorf("%s: no expected state; add it to the table", name)
			continue
		}
		seen++
		screen, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := Lookup(strings.SplitN(name, "-", 2)[0])
		got, detail := p.Classify(ScreenLines(string(screen), 20))
		if !slices.Contains(ok, got) {
			t.Errorf("%s: Classify = %v, want one of %v", name, got, ok)
		}
		if got == StateLimited && strings.Contains(name, "limit-session") {
			if _, parsed := ParseReset(detail, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)); !parsed {
				t.Errorf("%s: no reset time read from %q", name, detail)
			}
		}
	}
	if seen < 50 {
		t.Errorf("read %d screens, want the 50 or more in testdata/screens", seen)
	}
}
