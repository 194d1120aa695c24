package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
)

// --goal without --judge takes the agent's one-shot form, or is refused
// at start (exit 2) when its profile knows none.
func TestGoalWithoutJudgeTakesTheAgentsOneShotFormOrIsRefused(t *testing.T) {
	for _, tc := range []struct {
		profile, command, mode string
	}{
		{"claude", "claude -p --output-format json", judge.ModeArg},
		{"codex", "codex exec", judge.ModeArg},
		{"gemini", "gemini -p", judge.ModeArg},
		{"generic", "", ""},
		{"aider", "", ""},
	} {
		f, fs := NewRun()
		if err := fs.Parse([]string{"--goal", "a parser"}); err != nil {
			t.Fatal(err)
		}
		f.Config.Agent, _ = agent.Lookup(tc.profile)
		err := applyGoal(f)
		if tc.command == "" {
			var usage *control.Error
			if !errors.As(err, &usage) || usage.Code != contract.ExitUsage || !strings.Contains(err.Error(), "--goal needs --judge COMMAND") {
				t.Errorf("%s: %v, want refused with exit 2", tc.profile, err)
			}
			continue
		}
		if g := f.Config.Goal; err != nil || g.Judge.Command != tc.command || g.Judge.Mode != tc.mode {
			t.Errorf("%s: judge %q mode %q, %v; want %q %q", tc.profile, g.Judge.Command, g.Judge.Mode, err, tc.command, tc.mode)
		}
	}
}

func TestGoalFlagsAreCheckedAtStart(t *testing.T) {
	goalFile := filepath.Join(t.TempDir(), "GOAL.md")
	if err := os.WriteFile(goalFile, []byte("a parser\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string // "": taken
	}{
		{[]string{"--goal", "g", "--judge", "j"}, ""},
		{[]string{"--goal-file", goalFile, "--judge", "j", "--judge-every", "2", "--judge-prompt-mode", "arg", "--protect", "a/**", "--protect", "b"}, ""},
		{[]string{"--goal", "g", "--goal-file", goalFile, "--judge", "j"}, "not both"},
		{[]string{"--goal-file", goalFile + ".gone", "--judge", "j"}, "read goal file"},
		{[]string{"--goal", "g", "--judge", "j", "--judge-prompt-mode", "type"}, "invalid --judge-prompt-mode"},
		{[]string{"--goal", "g", "--judge", "j", "--judge-patience", "0"}, "--judge-patience must be at least 1"},
		{[]string{"--goal", "g", "--judge", "j", "--judge-every", "-1"}, "--judge-every must not be negative"},
		{[]string{"--goal", "g", "--judge", "j", "--judge-timeout", "0s"}, "--judge-timeout must be more than 0"},
		{[]string{"--judge", "j"}, "need --goal"},
	} {
		f, fs := NewRun()
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		err := applyGoal(f)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
	f, fs := NewRun()
	if err := fs.Parse([]string{"--goal", "g", "--judge", "j", "--protect", "a/**", "--protect", "b"}); err != nil {
		t.Fatal(err)
	}
	if g := f.Config.Goal; strings.Join(g.Protect, " ") != "a/** b" || g.Patience != judge.DefaultPatience || g.Judge.Timeout != judge.DefaultTimeout || g.Judge.Mode != judge.ModeStdin {
		t.Errorf("settings %+v", g)
	}
}
