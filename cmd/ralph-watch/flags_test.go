package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
)

func TestParseDurationTakesGoDurationsAndBareSeconds(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    time.Duration
		wantErr string // part of the error, "" for none
	}{
		{"seconds with a unit", "90s", 90 * time.Second, ""},
		{"minutes with a unit", "3m", 3 * time.Minute, ""},
		{"a bare integer is seconds", "5", 5 * time.Second, ""},
		{"zero disables", "0", 0, ""},
		{"zero with a unit", "0s", 0, ""},
		{"a fraction of an hour", "1.5h", 90 * time.Minute, ""},
		{"a combined duration", "1h2m3s", time.Hour + 2*time.Minute + 3*time.Second, ""},
		{"spaces around are trimmed", " 30 ", 30 * time.Second, ""},
		{"the largest bare number of seconds allowed", "4611686018", 4611686018 * time.Second, ""},
		{"a bare negative number is refused", "-1", 0, "negative"},
		{"a negative duration is refused", "-5s", 0, "negative"},
		{"a word is refused with a hint", "abc", 0, "use 90s, 3m or a number of seconds"},
		{"the empty string is refused", "", 0, "invalid duration"},
		{"a bare fraction without unit is refused", "1.5", 0, "invalid duration"},
		{"an unknown unit is refused", "3 days", 0, "invalid duration"},
		{"too many seconds are refused", "4611686019", 0, "too long"},
		{"a number past int64 is refused", "99999999999999999999", 0, "invalid duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDuration(tt.in)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("parseDuration(%q) error %v, want %v", tt.in, err, tt.want)
			case tt.wantErr != "" && err == nil:
				t.Errorf("parseDuration(%q) = %v, want an error with %q", tt.in, got, tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("parseDuration(%q) error %q, want it to contain %q", tt.in, err, tt.wantErr)
			case tt.wantErr == "" && got != tt.want:
				t.Errorf("parseDuration(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestDurationFlagSetsOnlyValidValues(t *testing.T) {
	d := 7 * time.Second
	f := durationFlag{&d}
	if err := f.Set("2m"); err != nil || d != 2*time.Minute || f.String() != "120s" {
		t.Errorf("Set(2m): err %v, value %v, String %q", err, d, f.String())
	}
	if err := f.Set("-1"); err == nil || d != 2*time.Minute {
		t.Errorf("Set(-1): err %v, value %v; want an error and the value unchanged", err, d)
	}
	if got := (durationFlag{}).String(); got != "" {
		t.Errorf("zero durationFlag String = %q, want empty", got)
	}
}

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
