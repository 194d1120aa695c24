package judge

import "testing"

func TestDefaultIsTheAgentsOneShotForm(t *testing.T) {
	for profile, want := range map[string]string{"claude": "claude -p --output-format json", "codex": "codex exec", "gemini": "gemini -p", "copilot": "", "generic": "", "aider": "", "": ""} {
		command, mode, ok := Default(profile)
		if command != want || ok != (want != "") || ok && mode != ModeArg {
			t.Errorf("Default(%q) = %q, %q, %v; want %q", profile, command, mode, ok, want)
		}
	}
}
