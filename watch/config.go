package watch

import (
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/judge"
	"github.com/ralph-tmux/ralph.tmux/watch/prompt"
	"github.com/ralph-tmux/ralph.tmux/watch/record"
	"github.com/ralph-tmux/ralph.tmux/watch/settings"
)

// Config is everything one loop needs (package settings): the command
// line fills it; read only once the loop starts.
type Config = settings.Config

// Defaults is a loop's configuration before any flag: the one place run's
// flags, their help, doctor and the demo start from.
func Defaults() Config {
	return Config{
		InactivityTimeout: 180 * time.Second,
		PollInterval:      2 * time.Second,
		Lines:             20,
		ReadyTimeout:      60 * time.Second,
		RestartDelay:      time.Second,
		LimitWait:         30 * time.Minute,
		CheckTimeout:      120 * time.Second,
		CheckOutputChars:  5000,
		CheckFailAction:   prompt.FailAppend,
		TurnHook:          true,
		CastLimit:         20 << 20,
		TaskAttempts:      3,
		ReviewCap:         5,
		DiffChars:         20000,
		Goal:              judge.Settings{Patience: judge.DefaultPatience, Judge: judge.Judge{Timeout: judge.DefaultTimeout}},
	}
}

// Tunables of the loop that are not flags (yet); the iteration's own are in package iteration.
const (
	maxFailures  = 5
	maxLimitWait = 8 * 24 * time.Hour // a reset further off is misread
)

// minLimitWait (Config.MinLimitWait's default) keeps a misread reset time
// from relaunching into a limit at once.
const minLimitWait = time.Minute

// recordSetup is the loop's settings and whereabouts as its record keeps
// them: its settings as its flags gave them, the limits as in force.
func recordSetup(l *Loop) record.Setup {
	c, in := &l.Config, l.steer.Limits
	return record.Setup{PromptFile: c.PromptFile, MaxIterations: in.MaxIterations,
		InactivityTimeout: in.InactivityTimeout, ReadyTimeout: c.ReadyTimeout, CheckDoneContinuous: c.CheckDoneContinuous,
		Pane: c.Pane, Socket: c.Socket, Dir: c.Dir, Command: c.Command,
		WatcherArgs: c.WatcherArgs, WatcherDir: c.WatcherDir, Agent: c.Agent.Name,
		Worktree: c.Worktree, WorktreeBranch: c.WorktreeBranch, WorktreeBase: c.WorktreeBase,
		Resume: c.Resume, CommandSources: c.CommandSources, Path: c.Path, EndCommand: c.EndCommand,
		Budget: in.Budget, DonePattern: c.DonePattern, Settings: c.Settings()}
}
