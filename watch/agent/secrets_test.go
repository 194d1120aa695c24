package agent

import (
	"slices"
	"strings"
	"testing"
)

func TestHideSecretsKeepsValuesOutOfTheShownCommand(t *testing.T) {
	env := map[string]string{"GH_TOKEN": "ghp-from-env"}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		name                string
		command, shown, run []string
		held, missing       []string
	}{
		{"env words", []string{"env", "HOME=/x", "ANTHROPIC_API_KEY=sk-1", "ANTHROPIC_BASE_URL=http://h", "claude"},
			[]string{"env", "HOME=/x", "ANTHROPIC_API_KEY=…", "ANTHROPIC_BASE_URL=http://h", "claude"},
			[]string{"env", "HOME=/x", "ANTHROPIC_BASE_URL=http://h", "claude"},
			[]string{"ANTHROPIC_API_KEY=sk-1"}, nil},
		{"an argument of the agent is its own", []string{"claude", "API_KEY=x"}, []string{"claude", "API_KEY=x"}, []string{"claude", "API_KEY=x"}, nil, nil},
		{"hidden: from the environment", []string{"env", "GH_TOKEN=…", "OPENAI_API_KEY=…", "codex"},
			[]string{"env", "GH_TOKEN=…", "OPENAI_API_KEY=…", "codex"}, []string{"env", "codex"},
			[]string{"GH_TOKEN=ghp-from-env"}, []string{"OPENAI_API_KEY"}},
		{"a shell line", []string{"/bin/sh", "-c", "ANTHROPIC_AUTH_TOKEN='sk 2' HOME=/x exec claude"},
			[]string{"/bin/sh", "-c", "ANTHROPIC_AUTH_TOKEN=… HOME=/x exec claude"},
			[]string{"/bin/sh", "-c", "HOME=/x exec claude"},
			[]string{"ANTHROPIC_AUTH_TOKEN=sk 2"}, nil},
		{"one word", []string{"X=1 GEMINI_API_KEY=gk-3 gemini"}, []string{"X=1 GEMINI_API_KEY=… gemini"}, []string{"X=1 gemini"},
			[]string{"GEMINI_API_KEY=gk-3"}, nil},
		{"env in a shell line", []string{"env GH_TOKEN='a b' OPENAI_API_KEY=\"c d\" codex --x"}, []string{"env GH_TOKEN=… OPENAI_API_KEY=… codex --x"},
			[]string{"env codex --x"}, []string{"GH_TOKEN=a b", "OPENAI_API_KEY=c d"}, nil},
		{"not a secret", []string{"env", "GIT_AUTHOR_NAME=a", "claude"}, []string{"env", "GIT_AUTHOR_NAME=a", "claude"}, []string{"env", "GIT_AUTHOR_NAME=a", "claude"}, nil, nil},
	} {
		shown, held, missing := HideSecrets(c.command, getenv)
		if !slices.Equal(shown, c.shown) || !slices.Equal(held, c.held) || !slices.Equal(missing, c.missing) {
			t.Errorf("%s: HideSecrets(%q) = %q, %q, %q; want %q, %q, %q", c.name, c.command, shown, held, missing, c.shown, c.held, c.missing)
		}
		if run := Runnable(shown); !slices.Equal(run, c.run) {
			t.Errorf("%s: Runnable(%q) = %q, want %q", c.name, shown, run, c.run)
		}
		for _, kv := range held {
			_, v, _ := strings.Cut(kv, "=")
			if strings.Contains(strings.Join(shown, " "), v) {
				t.Errorf("%s: the shown command %q holds the value %q", c.name, shown, v)
			}
		}
	}
}

func TestHiddenAtSaysWhereTheRunnableFormLacksAWord(t *testing.T) {
	shown := []string{"env", "HOME=/x", "ANTHROPIC_API_KEY=…", "GH_TOKEN=…", "claude", "--model", "big"}
	if got := HiddenAt(shown); got != "2:ANTHROPIC_API_KEY 3:GH_TOKEN" {
		t.Errorf("HiddenAt = %q", got)
	}
	if got := HiddenAt([]string{"claude"}); got != "" {
		t.Errorf("HiddenAt of a command without secrets = %q", got)
	}
}
