package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os/exec"
	"regexp"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/doctor"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
)

// doctorAgents are checked, when found on PATH, by a doctor given no agent.
var doctorAgents = []string{"claude", "codex", "gemini", "opencode", "copilot"}

func doctorCommand(e env) *ffcli.Command {
	fs := newFlags("doctor")
	agent := fs.String("agent", "", "agent profile: "+strings.Join(agent.Names(), ", ")+" (default guessed from the command)")
	ready := fs.String("ready-pattern", "", "try this ready pattern instead of the profile's (Go RE2)")
	asJSON := fs.Bool("json", false, "print each report as one line of JSON")
	markdown := fs.Bool("markdown", false, "print rows of the compatibility table in docs/agents.md")
	judgeCommand := fs.String("judge", "", "check that this goal-mode judge (sh -c, as run --judge) answers in the JSON form, offline")
	judgeMode := fs.String("judge-prompt-mode", judge.ModeStdin, "how the judge gets its input: stdin, or arg (its last argument)")
	judgeTimeout := doctor.JudgeTimeout
	config.DurationVar(fs, &judgeTimeout, "judge-timeout", "longest the judge may run (default 2m)")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch doctor [--agent NAME] [--ready-pattern RE] [--json | --markdown] [--judge COMMAND] [-- COMMAND [ARG...]]",
		ShortHelp:  "check an installed agent, offline: would a loop of it work?",
		LongHelp: `
Start the installed agent on a private tmux server, offline, against a fake
of its model API built into ralph-watch, with a throwaway HOME (your own
configuration and network are never touched), and drive two short loops of
it: one with its turn-end hook, one without, whose last turn meets a usage
limit. Print one line per signal a loop relies on, with how long it took:
starts without a dialog, ready, paste lands, submit taken, busy seen, turn
end by hook, turn end by screen, done token after the prompt only, usage
limit recognised, prompt reaches the model intact.

The agent is --agent's program on PATH, or COMMAND (an absolute path, npx …).
With neither, each of claude, codex, gemini, opencode and copilot found on
PATH is checked.
A failed check keeps its screens and logs and names the folder.

A line marked · was not tried: no turn got that far (an earlier line says
why). A command that gives the agent its own HOME or model API (a wrapper
script that sets HOME or ANTHROPIC_BASE_URL, env HOME=… claude) would replace
doctor's sandbox: doctor sees it in the agent's environment, ends the agent
before typing anything, checks nothing, and prints what the command set and
where the agent's own settings are.

A line marked ⚠ tools warns that the agent as launched (its flags, and
Claude Code's and Gemini CLI's settings files) would stop at every tool in
a loop, with nobody to answer, and says what to add (for claude:
--permission-mode acceptEdits with allow rules for the commands the loop
needs). docs/agents.md says, per agent, how a loop runs its tools
unattended and what that risks.

Exit status: 0 a loop would work, 1 it would not (the lines say what to
set) or could not be checked, 2 usage error or no agent found.

Examples:
  ralph-watch doctor --agent claude
  ralph-watch doctor -- ~/.npm-global/bin/codex
  ralph-watch doctor --agent claude -- npx -y @anthropic-ai/claude-code
  ralph-watch doctor --agent claude --ready-pattern 'auto mode on'
  ralph-watch doctor --markdown
  ralph-watch doctor --judge 'claude -p --model haiku'`,
		Exec: func(ctx context.Context, args []string) error {
			o := doctor.Options{Agent: *agent, Command: args}
			if *asJSON && *markdown {
				return control.Errorf(contract.ExitUsage, "doctor: --json and --markdown do not go together")
			}
			judging := false
			fs.Visit(func(f *flag.Flag) { judging = judging || f.Name == "judge" })
			if judging {
				j := doctor.JudgeOptions{Command: *judgeCommand, Mode: *judgeMode, Timeout: judgeTimeout}
				switch {
				case strings.TrimSpace(j.Command) == "":
					return control.Errorf(contract.ExitUsage, "doctor: --judge needs a command")
				case j.Mode != judge.ModeStdin && j.Mode != judge.ModeArg:
					return control.Errorf(contract.ExitUsage, "doctor: invalid --judge-prompt-mode %q: use stdin or arg", j.Mode)
				case j.Timeout <= 0:
					return control.Errorf(contract.ExitUsage, "doctor: --judge-timeout must be more than 0")
				case *markdown:
					return control.Errorf(contract.ExitUsage, "doctor: --judge and --markdown do not go together")
				}
				var agentErr error
				if o.Agent != "" || len(o.Command) > 0 {
					agentErr = runDoctor(ctx, e, []doctor.Options{withExecutable(e, o)}, *asJSON, false)
					var ce *control.Error
					if agentErr != nil && (!errors.As(agentErr, &ce) || ce.Code != contract.ExitFailed) {
						return agentErr // could not check it at all: usage, interrupted
					}
					if !*asJSON {
						fmt.Fprintln(e.Stdout)
					}
				}
				if err := runJudgeDoctor(ctx, e, j, *asJSON); err != nil {
					return err
				}
				return agentErr
			}
			if *ready != "" {
				re, err := regexp.Compile(*ready)
				if err != nil {
					return control.Errorf(contract.ExitUsage, "invalid --ready-pattern: %v", err)
				}
				o.ReadyPattern = re
			}
			o = withExecutable(e, o)
			checks := []doctor.Options{o}
			if o.Agent == "" && len(o.Command) == 0 {
				checks = nil
				for _, name := range doctorAgents {
					if _, err := exec.LookPath(name); err == nil {
						c := o
						c.Agent = name
						checks = append(checks, c)
					}
				}
				if len(checks) == 0 {
					return control.Errorf(contract.ExitUsage, "doctor: none of %s is on PATH: name one (--agent NAME) or give its command (-- COMMAND)",
						strings.Join(doctorAgents, ", "))
				}
			}
			return runDoctor(ctx, e, checks, *asJSON, *markdown)
		},
	})
}

// withExecutable is o with this program, which the agent's hook calls back.
func withExecutable(e env, o doctor.Options) doctor.Options {
	if exe, err := e.Executable(); err == nil {
		o.Executable = exe
	}
	return o
}

// runJudgeDoctor checks a goal loop's judge and prints its report: exit 1
// when a loop could not read its verdicts.
func runJudgeDoctor(ctx context.Context, e env, o doctor.JudgeOptions, asJSON bool) error {
	if !asJSON {
		against := "run as given"
		if name := agent.Guess(strings.Fields(o.Command)); name != "generic" {
			against = "against the fake model API"
		}
		shown, _, _ := agent.HideSecrets(strings.Fields(o.Command), e.Getenv)
		fmt.Fprintf(e.Stdout, "ralph-watch doctor: checking the judge %s offline (%s)\n", strings.Join(shown, " "), against)
	}
	rep, err := doctor.CheckJudge(ctx, o)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "doctor: %v", err)
	}
	if asJSON {
		_ = rep.WriteJSON(e.Stdout)
	} else {
		rep.WriteText(e.Stdout)
	}
	if ctx.Err() != nil {
		return control.Errorf(contract.ExitInterrupted, "interrupted")
	}
	if !rep.Works {
		return control.Errorf(contract.ExitFailed, "")
	}
	return nil
}

// runDoctor checks each agent in turn and prints its report.
func runDoctor(ctx context.Context, e env, checks []doctor.Options, asJSON, markdown bool) error {
	if markdown {
		fmt.Fprint(e.Stdout, doctor.MarkdownHeader())
	}
	works := true
	for i, o := range checks {
		if !asJSON && !markdown {
			if i > 0 {
				fmt.Fprintln(e.Stdout)
			}
			what := o.Agent
			if what == "" {
				shown, _, _ := agent.HideSecrets(o.Command, e.Getenv)
				what = strings.Join(shown, " ")
			}
			fmt.Fprintf(e.Stdout, "ralph-watch doctor: checking %s offline (about 30 seconds)\n", what)
		}
		rep, err := doctor.Run(ctx, o)
		if errors.Is(err, doctor.ErrNotFound) {
			return control.Errorf(contract.ExitUsage, "doctor: %v (install it, or give its command: -- COMMAND)", err)
		}
		if err != nil {
			return control.Errorf(contract.ExitUsage, "doctor: %v", err)
		}
		switch {
		case asJSON:
			_ = rep.WriteJSON(e.Stdout)
		case markdown:
			fmt.Fprint(e.Stdout, rep.MarkdownRow())
		default:
			rep.WriteText(e.Stdout)
		}
		works = works && rep.Works
		if ctx.Err() != nil {
			return control.Errorf(contract.ExitInterrupted, "interrupted")
		}
	}
	if !works {
		return control.Errorf(contract.ExitFailed, "")
	}
	return nil
}
