package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
)

func TestNameFromMakesAValidLoopName(t *testing.T) {
	tests := []struct {
		name       string
		base, pane string
		want       string
	}{
		{"spaces become dashes and the pane number is added", "my proj", "3", "my-proj-3"},
		{"an empty folder name gives ralph", "", "", "ralph"},
		{"an empty folder name keeps the pane number", "", "12", "ralph-12"},
		{"the root folder gives ralph", "/", "", "ralph"},
		{"dots alone give ralph", "..", "", "ralph"},
		{"unsafe characters become one dash", "a & b (copy)", "", "a-b-copy"},
		{"non-ASCII letters become dashes", "café crème", "1", "caf-cr-me-1"},
		{"leading dots and dashes are trimmed", ".config", "", "config"},
		{"a long folder name is cut to 48 characters", strings.Repeat("x", 60), "7", strings.Repeat("x", 48) + "-7"},
		{"a safe name is kept", "api.v2_beta", "", "api.v2_beta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nameFrom(tt.base, tt.pane)
			if got != tt.want {
				t.Errorf("nameFrom(%q, %q) = %q, want %q", tt.base, tt.pane, got, tt.want)
			}
			if !control.ValidName(got) {
				t.Errorf("nameFrom(%q, %q) = %q is not a valid name", tt.base, tt.pane, got)
			}
		})
	}
}

func TestShellWordsRunsOneWordWithShellSyntaxThroughSh(t *testing.T) {
	tests := []struct {
		name    string
		command []string
		mode    string
		want    []string
	}{
		{"a single word with spaces goes through /bin/sh -c, which execs a simple command",
			[]string{"claude --dangerously-skip-permissions"}, agent.ModeType,
			[]string{"/bin/sh", "-c", "exec claude --dangerously-skip-permissions"}},
		{"a single word with a pipe goes through /bin/sh -c",
			[]string{"cat PROMPT.md|agent"}, agent.ModeStdin,
			[]string{"/bin/sh", "-c", "cat PROMPT.md|agent"}},
		{"a single word with $VAR goes through /bin/sh -c",
			[]string{"$AGENT"}, agent.ModeType,
			[]string{"/bin/sh", "-c", "$AGENT"}},
		{"in arg mode the prompt still comes last through \"$@\"",
			[]string{"codex exec --full-auto"}, agent.ModeArg,
			[]string{"/bin/sh", "-c", `exec codex exec --full-auto "$@"`, "sh"}},
		{"several words are run as they are",
			[]string{"claude", "--dangerously-skip-permissions"}, agent.ModeType,
			[]string{"claude", "--dangerously-skip-permissions"}},
		{"several words with spaces inside are run as they are",
			[]string{"agent", "--say", "hello world"}, agent.ModeArg,
			[]string{"agent", "--say", "hello world"}},
		{"a single plain word is run as it is",
			[]string{"claude"}, agent.ModeType,
			[]string{"claude"}},
		{"a single plain word in arg mode is run as it is",
			[]string{"aider"}, agent.ModeArg,
			[]string{"aider"}},
		{"a single path is run as it is",
			[]string{"/usr/local/bin/agent-1.2"}, agent.ModeType,
			[]string{"/usr/local/bin/agent-1.2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shellWords(tt.command, tt.mode); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("shellWords(%q, %q) = %q, want %q", tt.command, tt.mode, got, tt.want)
			}
		})
	}
}
