package config

import (
	"flag"
	"io"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

// Run are run's flags, which .ralph/config may give too: most fill Config
// as typed; the rest say where and how the watcher runs, or are read into
// Config once checked (patterns, the agent, paths made absolute, the end
// command).
type Run struct {
	Config watch.Config

	Target, SocketName, SocketPath                  string
	PromptFile, DoneFile, PauseFile, ProgressFile   string
	DonePattern, ReadyPattern                       string
	Agent, BusyPattern, DialogPattern, LimitPattern string
	IdleGrace                                       time.Duration
	EndCommand                                      string
	Detach, Replace, CleanState, NoRun, TmuxNoOp    bool
	Worktree                                        bool
	NoCast                                          bool
	PricesFile                                      string
	WindowsFile                                     string
	TasksFile                                       string
}

func (f *Run) register(fs *flag.FlagSet) {
	c := &f.Config
	fs.StringVar(&f.Target, "t", "", "pane to loop (short for --target)")
	fs.StringVar(&f.Target, "target", "", "pane to loop (default $TMUX_PANE; outside tmux a new window in session \"ralph\")")
	fs.StringVar(&f.SocketName, "L", "", "tmux server socket name (short for --socket-name)")
	fs.StringVar(&f.SocketName, "socket-name", "", "tmux server socket name, as tmux -L")
	fs.StringVar(&f.SocketPath, "S", "", "tmux server socket path (short for --socket-path)")
	fs.StringVar(&f.SocketPath, "socket-path", "", "tmux server socket path, as tmux -S")
	fs.Var(loopName{&c.Name}, "name", "loop name, [A-Za-z0-9._-]{1,64}, not starting with - (default derived from the pane)")
	fs.StringVar(&f.PromptFile, "prompt-file", "PROMPT.md", "prompt file, read fresh every iteration")
	fs.StringVar(&c.PromptMode, "prompt-mode", agent.ModeType, "how the prompt reaches the agent: type, arg or stdin")
	fs.IntVar(&c.MaxIterations, "max-iterations", 0, "stop after this many iterations (0: no limit)")
	fs.Var(Duration{&c.InactivityTimeout}, "inactivity-timeout", "restart when the screen is unchanged this long")
	fs.Var(Duration{&c.PollInterval}, "poll-interval", "how often the screen is compared while the agent writes")
	fs.IntVar(&c.Lines, "lines", c.Lines, "lines compared for inactivity")
	fs.StringVar(&f.DonePattern, "done-pattern", "", "regular expression (RE2) that ends the loop when the agent prints it")
	fs.BoolVar(&c.CheckDoneContinuous, "check-done-continuous", true, "match the done pattern while the agent runs (=false: only when it ends)")
	fs.StringVar(&f.DoneFile, "done-file", "", "end the loop when this file exists")
	fs.StringVar(&f.ReadyPattern, "ready-pattern", "", "regular expression that shows the agent is ready for the prompt (type mode)")
	fs.Var(Duration{&c.ReadyTimeout}, "ready-timeout", "longest wait for the agent to be ready")
	fs.Var(Duration{&c.IterationTimeout}, "iteration-timeout", "restart an iteration that runs this long (0: none)")
	fs.Var(Duration{&c.MaxTime}, "max-time", "stop the loop after this long (0: no limit)")
	fs.Var(Duration{&c.RestartDelay}, "restart-delay", "pause between iterations")
	fs.StringVar(&f.Agent, "agent", "", "agent profile: "+strings.Join(agent.Names(), ", ")+" (default guessed from the command)")
	fs.StringVar(&f.BusyPattern, "busy-pattern", "", "regular expression that shows the agent is working (default the profile's)")
	fs.StringVar(&f.DialogPattern, "dialog-pattern", "", "regular expression that shows the agent waits on a question (default the profile's)")
	fs.StringVar(&f.LimitPattern, "limit-pattern", "", "regular expression that shows a usage limit (default the profile's)")
	fs.Var(Duration{&f.IdleGrace}, "idle-grace", "end the turn when the agent sits idle at its prompt this long (default the profile's; 0: never)")
	fs.Var(Duration{&c.DialogTimeout}, "dialog-timeout", "restart when a question waits this long (0: wait for an answer)")
	fs.Var(Duration{&c.LimitWait}, "limit-wait", "wait after a usage limit whose reset time is not shown")
	fs.BoolVar(&c.TurnHook, "turn-hook", c.TurnHook, "let the agent report the end of its turn by its own hook (Claude Code, Codex, Gemini CLI)")
	fs.BoolVar(&f.Detach, "detach", false, "run the watcher in the background and return")
	fs.BoolVar(&f.Replace, "replace", false, "stop a loop of the same name, or the loop of the pane (watcher and agent), and start afresh")
	fs.BoolVar(&f.CleanState, "clean-state", false, "clear the state of a loop of the same name first")
	fs.BoolVar(&f.NoRun, "no-run", false, "prepare the pane and state without looping ('resume NAME' starts it)")
	fs.BoolVar(&f.TmuxNoOp, "tmux", false, "accepted for compatibility; loops always use tmux")
	fs.Var(checkFlag{&c.Checks}, "check", "command run with sh -c after every iteration; its failures go into the next prompt (repeatable)")
	fs.Var(checkHintFlag{&c.Checks}, "check-hint", "hint for the --check just before it, given with its failures")
	fs.Var(Duration{&c.CheckTimeout}, "check-timeout", "longest a check or hook may run")
	fs.IntVar(&c.CheckOutputChars, "check-output-chars", c.CheckOutputChars, "characters of a failed check's output (its end) put into the next prompt")
	fs.StringVar(&c.CheckFailAction, "check-fail-action", c.CheckFailAction, "where check failures go in the next prompt: append, prepend or replace")
	fs.BoolVar(&c.IncludeIterationCount, "include-iteration-count", false, "start the prompt with \"Iteration X of Y, Z remaining.\"")
	fs.Var(commandString{&c.OnIterationEnd}, "on-iteration-end", "command run with sh -c after every iteration")
	fs.Var(commandString{&c.OnDone}, "on-done", "command run with sh -c when the loop ends done")
	fs.Var(commandString{&c.OnFail}, "on-fail", "command run with sh -c when the loop ends failed or at a limit")
	fs.BoolVar(&c.Commit, "commit", false, "commit all changes (git add -A) after an iteration whose checks pass")
	fs.StringVar(&f.ProgressFile, "progress-file", "", "append a section about every iteration to this file")
	fs.BoolVar(&f.Worktree, "worktree", false, "run the agent in the loop's own git worktree, branch ralph/NAME")
	fs.IntVar(&c.StallLimit, "stall-limit", 0, "stop after this many iterations in a row that changed nothing in git (0: never)")
	fs.StringVar(&f.PauseFile, "pause-file", "", "pause the loop when this file appears (it is removed)")
	fs.Var(sizeFlag{&c.CastLimit}, "cast-limit", "keep at most this `size` of iteration casts for replay, oldest dropped first: 20MB, 500KB or bytes")
	fs.BoolVar(&f.NoCast, "no-cast", false, "record no casts of the iterations (nothing to replay)")
	fs.Var(commandString{&f.EndCommand}, "end-command", "run in the pane when the loop ends with its agent gone (default $SHELL, else /bin/sh; none: leave the pane)")
	fs.Int64Var(&c.Budget.Tokens, "max-tokens", 0, "stop the loop once its iterations used this many tokens, ending an iteration that goes over (0: no limit)")
	fs.Float64Var(&c.Budget.CostUSD, "max-cost", 0, "stop the loop once its estimated cost reaches this many US dollars, ending an iteration that goes over (0: no limit)")
	fs.StringVar(&f.PricesFile, "prices", "", "JSON file of model prices (US dollars per million tokens) over the built-in table")
	fs.IntVar(&c.MaxContext, "max-context", 0, "at this share (percent) of its context window nudge the agent to wrap up; 15 points more ends the iteration (claude, codex, gemini; 0: never)")
	fs.StringVar(&c.ContextNudge, "context-nudge", "", "what --max-context tells the agent (default: finish the current step, commit, update the plan, stop)")
	fs.StringVar(&f.WindowsFile, "context-windows", "", "JSON file of models' context windows in tokens over the built-in table")
	fs.StringVar(&f.TasksFile, "tasks", "", "plan to work through, one task an iteration, each judged done by the loop: Markdown checkboxes, tasks.json or prd.json")
	fs.StringVar(&c.TaskID, "task", "", "work on this one task of the plan and stop when it is done or skipped (--tasks)")
	fs.IntVar(&c.TaskAttempts, "task-attempts", c.TaskAttempts, "tries a task gets before the loop skips it (--tasks)")
	fs.BoolVar(&c.Review, "review", false, "follow each implemented task with a review iteration, which alone approves it (--tasks)")
	fs.IntVar(&c.ReviewCap, "review-cap", c.ReviewCap, "reviews of one task; the last one approves it, its notes kept (--tasks)")
	fs.IntVar(&c.DiffChars, "diff-chars", c.DiffChars, "characters of {{diff}}, the work since the loop started; the rest is cut (--tasks)")
	f.registerGoal(fs)
}

// defaults are watch.Defaults, and the profile's idle grace.
func (f *Run) defaults() {
	f.Config = watch.Defaults()
	f.IdleGrace = -1 // the profile's
}

// NewRun are run's flags with their defaults, registered on a new set.
func NewRun() (*Run, *flag.FlagSet) {
	var f Run
	f.defaults()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	return &f, fs
}

// WatcherArgs are the run arguments that start this loop's watcher again:
// the resolved pane, name and server, every flag set (from the command line,
// the environment or the config file), each file as the loop resolved it
// (absolute, in its worktree), and the command.
func WatcherArgs(fs *flag.FlagSet, cfg watch.Config, command []string) []string {
	args := []string{"--target", cfg.Pane, "--name", cfg.Name, "--socket-path", cfg.Socket, "--prompt-file=" + cfg.PromptFile}
	skip := map[string]bool{"t": true, "target": true, "name": true, "L": true, "socket-name": true,
		"S": true, "socket-path": true, "detach": true, "replace": true, "clean-state": true, "no-run": true, "tmux": true,
		"check": true, "check-hint": true, "prompt-file": true}
	resolved := map[string]string{"tasks": cfg.TasksFile, "done-file": cfg.DoneFile, "pause-file": cfg.PauseFile, "progress-file": cfg.ProgressFile, "goal-file": cfg.Goal.GoalFile}
	fs.Visit(func(fl *flag.Flag) {
		switch {
		case skip[fl.Name]:
		case fl.Name == "cast-limit" && cfg.CastLimit == 0: // --no-cast, carried too, made it 0: no size
		case resolved[fl.Name] != "":
			args = append(args, "--"+fl.Name+"="+resolved[fl.Name])
		default:
			args = append(args, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	for _, c := range cfg.Checks { // repeated: each in its place
		args = append(args, "--check="+c.Command)
		if c.Hint != "" {
			args = append(args, "--check-hint="+c.Hint)
		}
	}
	return append(append(args, "--"), command...)
}
