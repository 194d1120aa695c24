package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolvePicksTheProfileAndTheCommand(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude")
	for _, name := range []string{"claude", "env", "sh"} { // the only programs on PATH
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.Chdir(wd) }()
	for _, tc := range []struct {
		agent   string
		command []string
		profile string
		want    []string
		err     string
	}{
		{"claude", nil, "claude", []string{"claude"}, ""},
		{"", []string{claude, "--model", "opus"}, "claude", []string{claude, "--model", "opus"}, ""},
		{"", []string{"./claude"}, "claude", []string{claude}, ""},
		{"claude", []string{"env", "X=1", "claude"}, "claude", []string{"env", "X=1", "claude"}, ""},
		{"", []string{"env", "X=1", "claude"}, "claude", []string{"env", "X=1", "claude"}, ""},
		{"", []string{"sh"}, "generic", []string{"sh"}, ""},
		{"codex", nil, "", nil, "codex: not found"},
		{"nope", nil, "", nil, `unknown agent "nope"`},
		{"generic", nil, "", nil, "no program of its own"},
		{"", nil, "", nil, "name an agent"},
	} {
		p, command, err := Resolve(tc.agent, tc.command)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Resolve(%q, %q): error %v, want %q", tc.agent, tc.command, err, tc.err)
			}
			continue
		}
		if err != nil || p.Name != tc.profile || strings.Join(command, " ") != strings.Join(tc.want, " ") {
			t.Errorf("Resolve(%q, %q) = %s, %q, %v; want %s, %q", tc.agent, tc.command, p.Name, command, err, tc.profile, tc.want)
		}
	}
	if _, _, err := Resolve("codex", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing program is not ErrNotFound: %v", err)
	}
}

// The agents' own variables never reach the private server: a key, a base
// URL or a proxy of the person's could send an agent elsewhere.
func TestCleanEnvKeepsNothingThatCouldSendAnAgentElsewhere(t *testing.T) {
	env := cleanEnv([]string{"PATH=/bin", "HOME=/root", "TMUX=/tmp/x,1,0", "TMUX_PANE=%1", "TMUX_TMPDIR=/t",
		"ANTHROPIC_API_KEY=real", "ANTHROPIC_BASE_URL=https://x", "CLAUDE_CONFIG_DIR=/c", "OPENAI_API_KEY=k",
		"CODEX_HOME=/c", "GEMINI_API_KEY=k", "GOOGLE_GEMINI_BASE_URL=u", "https_proxy=p", "CI=true", "CI_JOB=1",
		"RALPH_STATE_DIR=/s", "XDG_CONFIG_HOME=/x", "LANG=C.UTF-8"})
	if got := strings.Join(env, " "); got != "PATH=/bin TMUX_TMPDIR=/t LANG=C.UTF-8" {
		t.Errorf("cleanEnv kept %q", got)
	}
}

func TestPrepareWritesEachAgentsConfiguration(t *testing.T) {
	for agent, files := range map[string][]string{
		"claude":  {".claude.json"},
		"codex":   {".codex/config.toml"},
		"gemini":  {".gemini/settings.json", ".gemini/trustedFolders.json"},
		"generic": nil,
	} {
		home, proj := t.TempDir(), t.TempDir()
		s, err := Prepare(agent, home, proj, "http://127.0.0.1:9")
		if err != nil {
			t.Fatalf("%s: %v", agent, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(home, f))
			if err != nil {
				t.Errorf("%s: %v", agent, err)
			}
			if strings.Contains(f, "config.toml") && !strings.Contains(string(b), "http://127.0.0.1:9/v1") {
				t.Errorf("codex config lacks the base URL:\n%s", b)
			}
			if strings.Contains(f, "claude") || strings.Contains(f, "trusted") {
				if !strings.Contains(string(b), proj) {
					t.Errorf("%s does not trust the project:\n%s", f, b)
				}
			}
		}
		if !strings.Contains(strings.Join(s.Env, " "), "127.0.0.1:9") && agent != "codex" {
			t.Errorf("%s runs without the fake API's URL: %q", agent, s.Env)
		}
	}
}
