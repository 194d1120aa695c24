package config

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/progress"
	"github.com/ralph-tmux/ralph.tmux/watch/prompt"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/spending"
)

// Env is what checking the flags reads of the outside world.
type Env struct {
	Getenv     func(string) string
	Stderr     io.Writer // warnings
	Executable func() (string, error)
}

// Check refuses bad input before anything is spawned and completes Config
// from the flags that are not config: the agent's profile and command,
// paths made absolute, patterns, prices, the plan.
func (f *Run) Check(e Env, command []string) error {
	cfg := &f.Config
	cfg.EndCommand = endCommand(e.Getenv, f.EndCommand)
	if f.NoCast {
		cfg.CastLimit = 0 // 0 records nothing
	}
	for _, refused := range []struct {
		is  bool
		msg string
	}{
		{cfg.Name != "" && !control.ValidName(cfg.Name), fmt.Sprintf("invalid loop name %q: use 1 to 64 of A-Z a-z 0-9 . _ -", cfg.Name)},
		{!slices.Contains([]string{agent.ModeType, agent.ModeArg, agent.ModeStdin}, cfg.PromptMode),
			fmt.Sprintf("invalid --prompt-mode %q: use type, arg or stdin", cfg.PromptMode)},
		{cfg.MaxIterations < 0, "--max-iterations must not be negative"},
		{cfg.Lines < 1, "--lines must be at least 1"},
		{cfg.PollInterval <= 0, "--poll-interval must be more than 0"},
		{cfg.InactivityTimeout <= 0, "--inactivity-timeout must be more than 0"},
		{!slices.Contains([]string{prompt.FailAppend, prompt.FailPrepend, prompt.FailReplace}, cfg.CheckFailAction),
			fmt.Sprintf("invalid --check-fail-action %q: use append, prepend or replace", cfg.CheckFailAction)},
		{cfg.CheckTimeout <= 0, "--check-timeout must be more than 0"},
		{cfg.CheckOutputChars < 0, "--check-output-chars must not be negative"},
		{cfg.StallLimit < 0, "--stall-limit must not be negative"},
		{cfg.Budget.Tokens < 0, "--max-tokens must not be negative"},
		{cfg.TaskAttempts < 1, "--task-attempts must be at least 1"},
		{cfg.ReviewCap < 1, "--review-cap must be at least 1"},
		{cfg.DiffChars < 0, "--diff-chars must not be negative"},
		{cfg.Budget.CostUSD < 0 || math.IsNaN(cfg.Budget.CostUSD) || math.IsInf(cfg.Budget.CostUSD, 0), "--max-cost must be a number of US dollars, not negative"},
	} {
		if refused.is {
			return control.Errorf(contract.ExitUsage, "%s", refused.msg)
		}
	}
	var err error
	if f.DonePattern != "" {
		if cfg.DonePattern, err = regexp.Compile(f.DonePattern); err != nil {
			return control.Errorf(contract.ExitUsage, "invalid --done-pattern: %v", err)
		}
	}
	if len(command) == 0 {
		return control.Errorf(contract.ExitUsage, "no command provided (use -- command...)")
	}
	cfg.Command = shellWords(command, cfg.PromptMode)
	if err := applyAgent(e, f); err != nil {
		return err
	}
	if cfg.PromptFile, err = filepath.Abs(f.PromptFile); err != nil {
		return control.Errorf(contract.ExitUsage, "prompt file: %v", err)
	}
	if _, err := prompt.Read(cfg.PromptFile); err != nil { // checked now: a loop that cannot read it never starts
		return control.Errorf(contract.ExitUsage, "%v", err)
	}
	for _, p := range []struct {
		name      string
		from, abs *string
	}{{"done file", &f.DoneFile, &cfg.DoneFile}, {"pause file", &f.PauseFile, &cfg.PauseFile}, {"progress file", &f.ProgressFile, &cfg.ProgressFile}} {
		if *p.from != "" {
			if *p.abs, err = filepath.Abs(*p.from); err != nil {
				return control.Errorf(contract.ExitUsage, "%s: %v", p.name, err)
			}
		}
	}
	if err := applyTasks(f); err != nil {
		return err
	}
	if err := applyPrices(e, f); err != nil {
		return err
	}
	if err := applyContext(f); err != nil {
		return err
	}
	if err := applyGoal(f); err != nil {
		return err
	}
	return nil
}

// endCommand is what the pane runs when the loop ends with its agent gone:
// the flag, else the person's shell; "none" leaves the pane as it is.
func endCommand(getenv func(string) string, flag string) string {
	switch {
	case flag == "none":
		return ""
	case flag != "":
		return flag
	case getenv("SHELL") != "":
		return getenv("SHELL")
	}
	return "/bin/sh"
}

// shellWords runs a single word holding spaces or shell syntax through sh,
// as tmux would; in arg mode the prompt still arrives as its last argument.
func shellWords(command []string, mode string) []string {
	if len(command) != 1 || !strings.ContainsAny(command[0], " \t\n;|&$<>()'\"*?`~") {
		return command
	}
	line := agent.ExecLine(command[0]) // the agent, not sh, is the pane's process
	if mode == agent.ModeArg {
		return []string{"/bin/sh", "-c", line + ` "$@"`, "sh"}
	}
	return []string{"/bin/sh", "-c", line}
}

// applyAgent picks the agent's profile (named, or guessed from the command),
// lets the flags override its patterns, and gives the command what the
// prompt mode needs (claude -p, codex exec, …).
func applyAgent(e Env, f *Run) error {
	cfg := &f.Config
	name := f.Agent
	if name == "" {
		name = agent.Guess(cfg.Command)
	}
	p, ok := agent.Lookup(name)
	if !ok {
		return control.Errorf(contract.ExitUsage, "unknown --agent %q: use %s", f.Agent, strings.Join(agent.Names(), ", "))
	}
	if !p.Supports(cfg.PromptMode) {
		return control.Errorf(contract.ExitUsage, "%s does not take prompts in %s mode: use --prompt-mode type", name, cfg.PromptMode)
	}
	for _, o := range []struct {
		flag, value string
		re          **regexp.Regexp
	}{
		{"--ready-pattern", f.ReadyPattern, &p.Ready},
		{"--busy-pattern", f.BusyPattern, &p.Busy},
		{"--dialog-pattern", f.DialogPattern, &p.Dialog},
		{"--limit-pattern", f.LimitPattern, &p.Limit},
	} {
		if o.value == "" {
			continue
		}
		re, err := regexp.Compile(o.value)
		if err != nil {
			return control.Errorf(contract.ExitUsage, "invalid %s: %v", o.flag, err)
		}
		*o.re = re
	}
	if f.IdleGrace >= 0 {
		p.IdleGrace = f.IdleGrace
	}
	if cfg.LimitWait <= 0 {
		return control.Errorf(contract.ExitUsage, "--limit-wait must be more than 0")
	}
	cfg.Agent, cfg.ReadyPattern = p, p.Ready
	command, err := p.CommandFor(cfg.PromptMode, cfg.Command)
	if err != nil {
		return control.Errorf(contract.ExitUsage, "%v", err)
	}
	cfg.Command = command
	if why := agent.ParseLaunch(command).NoTerminal; why != "" && cfg.PromptMode == agent.ModeType {
		fmt.Fprintf(e.Stderr, "ralph-watch: warning: the prompt is typed into the terminal, but %s\n", why)
	}
	if exe, err := e.Executable(); err == nil {
		cfg.Executable = exe
	}
	cfg.Path = e.Getenv("PATH") // kept in the state: a resume from another shell runs the same programs
	return nil
}

// applyContext checks --max-context: an agent whose session files do not
// tell how full its context is cannot be held to it.
func applyContext(f *Run) error {
	cfg := &f.Config
	if f.WindowsFile != "" {
		w, err := receipt.LoadWindows(f.WindowsFile)
		if err != nil {
			return control.Errorf(contract.ExitUsage, "--context-windows: %v", err)
		}
		cfg.ContextWindows = w
	}
	switch {
	case cfg.MaxContext == 0:
		return nil
	case cfg.MaxContext < 0 || cfg.MaxContext > 100-15:
		return control.Errorf(contract.ExitUsage, "--max-context %d: give a share of the context window from 1 to 85 (percent; the iteration ends 15 points later)", cfg.MaxContext)
	case !spending.ReportsContext(cfg.Agent.Name):
		return control.Errorf(contract.ExitUsage, "--max-context: %s does not tell how full its context window is (Claude Code, Codex and Gemini CLI do; give --agent)", agentName(cfg))
	}
	return nil
}

// applyPrices reads --prices over the built-in table, and warns of a budget
// the agent cannot be held to: it reports no usage.
func applyPrices(e Env, f *Run) error {
	cfg := &f.Config
	if f.PricesFile != "" {
		prices, err := receipt.LoadPrices(f.PricesFile)
		if err != nil {
			return control.Errorf(contract.ExitUsage, "--prices: %v", err)
		}
		cfg.Prices = prices
	}
	if cfg.Budget.Set() && !spending.ReportsUsage(cfg.Agent.Name) {
		fmt.Fprintf(e.Stderr, "ralph-watch: warning: %s reports no usage: --max-tokens and --max-cost cannot stop the loop\n", cfg.Agent.Name)
	}
	return nil
}

// agentName names the loop's agent for a message: its profile, else its program.
func agentName(cfg *watch.Config) string {
	if cfg.Agent.Name != "" && cfg.Agent.Name != "generic" {
		return cfg.Agent.Name
	}
	if launch := agent.ParseLaunch(cfg.Command); launch.Word != "" {
		return launch.Word
	}
	return "the agent"
}

// applyTasks makes --tasks absolute and refuses a plan the loop cannot
// read, with the line and why, before anything starts.
func applyTasks(f *Run) error {
	if f.TasksFile == "" {
		if f.Config.Review {
			return control.Errorf(contract.ExitUsage, "--review needs --tasks FILE: it reviews the plan's tasks")
		}
		if f.Config.TaskID != "" {
			return control.Errorf(contract.ExitUsage, "--task needs --tasks FILE: it names a task of the plan")
		}
		return nil
	}
	path, err := filepath.Abs(f.TasksFile)
	if err != nil {
		return control.Errorf(contract.ExitUsage, "tasks file: %v", err)
	}
	p, _, err := progress.ReadPlan(path)
	if err != nil {
		return control.Errorf(contract.ExitUsage, "%v", err)
	}
	if id := f.Config.TaskID; id != "" && p.Task(id) == nil {
		return control.Errorf(contract.ExitUsage, "--task %s: the plan %s has no such task", id, path)
	}
	f.Config.TasksFile = path
	return nil
}

// CheckGit refuses --worktree and --stall-limit outside a git repository.
// dir is the loop's folder ("" for a new window: the current one).
func (f *Run) CheckGit(dir string) error {
	if !f.Worktree && f.Config.StallLimit == 0 {
		return nil
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if gitwork.InGitRepo(dir) {
		return nil
	}
	if f.Worktree {
		return control.Errorf(contract.ExitUsage, "--worktree needs a git repository: %s is not in one", dir)
	}
	return control.Errorf(contract.ExitUsage, "--stall-limit needs a git repository: %s is not in one", dir)
}
