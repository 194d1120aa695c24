package config

import (
	"reflect"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

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
