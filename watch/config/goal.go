package config

import (
	"flag"
	"path/filepath"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
)

// registerGoal registers goal mode's flags (--goal and the judge's).
func (f *Run) registerGoal(fs *flag.FlagSet) {
	g := &f.Config.Goal
	fs.StringVar(&g.Goal, "goal", "", "the goal a judge must find met before the loop ends done, from the diff and the checks alone")
	fs.StringVar(&g.GoalFile, "goal-file", "", "file holding the goal, re-read at each judging (instead of --goal)")
	fs.Var(commandString{&g.Judge.Command}, "judge", "one-shot command (sh -c) that judges the goal from its input and answers JSON (default the agent's one-shot form: claude -p --output-format json, codex exec, gemini -p)")
	fs.IntVar(&g.Every, "judge-every", 0, "ask the judge after every N-th iteration too, not only when the loop would end done (0: only then)")
	fs.StringVar(&g.Judge.Mode, "judge-prompt-mode", judge.ModeStdin, "how the judge gets its input: stdin, or arg (its last argument)")
	fs.DurationVar(&g.Judge.Timeout, "judge-timeout", g.Judge.Timeout, "longest a judge may run; over it, the verdict is not met")
	fs.IntVar(&g.Patience, "judge-patience", g.Patience, "end the loop (goal_stalemate, exit 3) after this many not-met verdicts in a row naming the same missing, the work unchanged")
	fs.Var(globsFlag{&g.Protect}, "protect", "`glob` of files the agent may not change, put back before the checks run (repeatable; besides .ralph/ and the files a --check names)")
	fs.BoolVar(&g.NoProtect, "no-protect", false, "protect only the --protect globs, not .ralph/ and the files a --check names")
}

// globsFlag is a repeatable flag of globs.
type globsFlag struct{ list *[]string }

func (f globsFlag) String() string {
	if f.list == nil {
		return ""
	}
	return strings.Join(*f.list, ",")
}

func (f globsFlag) Set(s string) error { *f.list = append(*f.list, s); return nil }

// applyGoal checks goal mode's flags and gives a goal without --judge the
// agent's own one-shot form: a goal no judge can be found for is refused.
func applyGoal(f *Run) error {
	g := &f.Config.Goal
	refuse := func(format string, args ...any) error { return control.Errorf(contract.ExitUsage, format, args...) }
	if !g.On() {
		if g.Judge.Command != "" || g.Every != 0 || len(g.Protect) > 0 {
			return refuse("--judge, --judge-every and --protect need --goal or --goal-file")
		}
		return nil
	}
	switch {
	case g.Goal != "" && g.GoalFile != "":
		return refuse("give --goal or --goal-file, not both")
	case g.Judge.Mode != judge.ModeStdin && g.Judge.Mode != judge.ModeArg:
		return refuse("invalid --judge-prompt-mode %q: use stdin or arg", g.Judge.Mode)
	case g.Every < 0:
		return refuse("--judge-every must not be negative")
	case g.Patience < 1:
		return refuse("--judge-patience must be at least 1")
	case g.Judge.Timeout <= 0:
		return refuse("--judge-timeout must be more than 0")
	}
	if g.GoalFile != "" {
		abs, err := filepath.Abs(g.GoalFile)
		if err != nil {
			return refuse("goal file: %v", err)
		}
		g.GoalFile = abs
		if _, err := g.ReadGoal(); err != nil {
			return refuse("%v", err)
		}
	}
	if strings.TrimSpace(g.Judge.Command) == "" {
		command, mode, ok := judge.Default(f.Config.Agent.Name)
		if !ok {
			return refuse("--goal needs --judge COMMAND: %s has no one-shot form the loop knows (claude -p, codex exec, gemini -p)", agentName(&f.Config))
		}
		g.Judge.Command, g.Judge.Mode = command, mode
	}
	return nil
}
