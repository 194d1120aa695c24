package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Steering a running loop: a note for its next prompts, new limits.

func noteCommand(e env) *ffcli.Command {
	fs := newFlags("note")
	sticky := fs.Bool("sticky", false, "keep the note in every iteration's prompt until --clear")
	clear := fs.Bool("clear", false, "drop the notes left so far, sticky ones too")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch note [--sticky] NAME TEXT...|-  |  note --clear NAME",
		ShortHelp:  "leave a note for a loop's next iteration (its prompt carries it)",
		LongHelp: `
Leave a note for the loop's next iteration: its prompt carries it once,
under a heading "## Notes from the person" at its end, or where the prompt
file writes {{notes}}. Several words after NAME are one note, joined by
spaces; TEXT "-" reads the note from standard input; a TEXT that begins
with "-" goes after "--". With
--sticky the note goes into every iteration's prompt until 'note NAME
--clear'. Several notes keep their order; status shows those not yet sent,
and each iteration's receipt and the log ([NOTE]) keep those it carried.

A loop whose watcher is not running (paused, or its watcher died) gets the
note when it goes on. A fan's name leaves the note with the fan: once, for
the next iteration of each of its loops at work (one that ends first leaves
it to the next loop the fan starts; with none at work, the next loop
started has it); sticky, for every iteration of its loops, those it starts
later too, until 'note FAN --clear'.

Examples:
  ralph-watch note myproj-3 'the API moved to v2; use /v2/users'
  ralph-watch note --sticky myproj-3 'never touch vendor/'
  git diff | ralph-watch note myproj-3 -
  ralph-watch note --clear myproj-3`,
		Exec: func(ctx context.Context, args []string) error {
			var text string
			switch {
			case *clear && *sticky:
				return control.Errorf(contract.ExitUsage, "note takes --sticky or --clear, not both")
			case *clear && len(args) > 1:
				return control.Errorf(contract.ExitUsage, "note --clear takes a loop name only")
			case *clear:
			case len(args) < 2:
				return control.Errorf(contract.ExitUsage, "note takes a loop name and a text ('-' reads it from standard input)")
			default:
				var err error
				if text, err = noteText(e.Stdin, strings.Join(args[1:], " ")); err != nil { // note NAME the API moved: one note, as typed
					return err
				}
				args = args[:1]
			}
			if f, ok := fanArg(e, args); ok {
				return noteFan(f, text, *sticky, *clear, e.Stdout)
			}
			l, err := loopArg(e, args, "note")
			if err != nil {
				return err
			}
			return control.Note(l, text, *sticky, *clear, e.Stdout, clock.Real{})
		},
	})
}

// maxNote bounds a note: it goes into every prompt that carries it.
const maxNote = 64 << 10

// noteText is the note as given, or read from in for "-".
func noteText(in io.Reader, arg string) (string, error) {
	text := arg
	if arg == "-" {
		data, err := io.ReadAll(io.LimitReader(in, maxNote+1))
		if err != nil {
			return "", control.Errorf(contract.ExitFailed, "read note: %v", err)
		}
		text = string(data)
	}
	text = strings.TrimRight(text, "\n")
	switch {
	case strings.TrimSpace(text) == "":
		return "", control.Errorf(contract.ExitUsage, "the note is empty")
	case len(text) > maxNote:
		return "", control.Errorf(contract.ExitUsage, "the note is longer than %d KiB", maxNote>>10)
	}
	return text, nil
}

func setCommand(e env) *ffcli.Command {
	fs := newFlags("set")
	limits := limitFlags(fs)
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch set NAME [--max-iterations N|+N] [--max-time D|+D] [--max-tokens N|+N] [--max-cost USD|+USD] [--inactivity-timeout D|+D] [--iteration-timeout D|+D] [--task-attempts N|+N]",
		ShortHelp:  "change a running or paused loop's limits from its next iteration",
		LongHelp: `
Change a loop's limits from its next iteration on (the iteration running
goes on as it started). Each limit takes +N: N more than the limit in
force (--max-cost +1 on --max-cost 5 is 6; --max-time +2h). A value
below what the loop has already run (iterations, time, tokens, cost) is
refused, with the reason. The change is logged ([SET]), shown by status and
the status line, and kept when the loop is resumed or restored. A loop that
ended at a limit goes on with 'ralph-watch resume NAME' once it is raised.
A fan's name sets the limits on the fan: each of its loops at work (refused
whole when one has run past them), and every loop it starts later (kept in
the fan's record, over its flags; +N adds to the fan's limit).

Examples:
  ralph-watch set myproj-3 --max-iterations +10
  ralph-watch set myproj-3 --max-cost 25 --iteration-timeout 45m`,
		Exec: func(ctx context.Context, args []string) error {
			lim, err := limits()
			if err != nil {
				return err
			}
			if f, ok := fanArg(e, args); ok {
				return setFan(f, lim, e.Stdout)
			}
			l, err := loopArg(e, args, "set")
			if err != nil {
				return err
			}
			return control.Set(l, lim, e.Stdout, clock.Real{})
		},
	})
}

// limitFlags adds the flags of the limits set and resume may change to fs,
// and returns what they set (nil: none given). Each takes +N: N more than
// the limit in force.
func limitFlags(fs *flag.FlagSet) func() (*state.Limits, error) {
	var iterations, maxTime, tokens, cost, inactivity, iterTimeout, attempts string
	fs.StringVar(&iterations, "max-iterations", "", "the most iterations the loop runs; +N adds N (0: no limit)")
	fs.StringVar(&maxTime, "max-time", "", "stop the loop this long after it first started; +D adds D (0: no limit)")
	fs.StringVar(&tokens, "max-tokens", "", "stop the loop once its iterations used this many tokens; +N adds N (0: no limit)")
	fs.StringVar(&cost, "max-cost", "", "stop the loop once its estimated cost reaches this many US dollars; +USD adds USD (0: no limit)")
	fs.StringVar(&inactivity, "inactivity-timeout", "", "restart when the screen is unchanged this long; +D adds D")
	fs.StringVar(&iterTimeout, "iteration-timeout", "", "restart an iteration that runs this long; +D adds D (0: none)")
	fs.StringVar(&attempts, "task-attempts", "", "tries of a plan's task before it is skipped; +N adds N")
	return func() (*state.Limits, error) {
		given := config.Visited(fs)
		var l, add state.Limits
		// value parses flag name's value into set (absolute) or into the
		// same field of add (+N).
		value := func(name, raw string, parse func(string) error) error {
			if !given[name] {
				return nil
			}
			s := strings.TrimSpace(raw)
			if err := parse(strings.TrimPrefix(s, "+")); err != nil {
				return control.Errorf(contract.ExitUsage, "invalid value %q for --%s: %v", raw, name, err)
			}
			return nil
		}
		plus := func(raw string) bool { return strings.HasPrefix(strings.TrimSpace(raw), "+") }
		into := func(raw string) *state.Limits {
			if plus(raw) {
				return &add
			}
			return &l
		}
		count := func(name, raw string, least int, set func(*state.Limits, *int)) error {
			return value(name, raw, func(s string) error {
				n, err := strconv.Atoi(s)
				if err != nil || n < least {
					return fmt.Errorf("use N or +N, N %d or more", least)
				}
				set(into(raw), &n)
				return nil
			})
		}
		duration := func(name, raw string, set func(*state.Limits, *int)) error {
			return value(name, raw, func(s string) error {
				d, err := config.ParseDuration(s)
				if err != nil {
					return err
				}
				n := int(d / time.Second)
				set(into(raw), &n)
				return nil
			})
		}
		errs := []error{
			count("max-iterations", iterations, 0, func(l *state.Limits, n *int) { l.MaxIterations = n }),
			duration("max-time", maxTime, func(l *state.Limits, n *int) { l.MaxTime = n }),
			value("max-tokens", tokens, func(s string) error {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil || n < 0 {
					return fmt.Errorf("use N or +N, N 0 or more")
				}
				into(tokens).MaxTokens = &n
				return nil
			}),
			value("max-cost", cost, func(s string) error {
				n, err := strconv.ParseFloat(s, 64)
				if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
					return fmt.Errorf("must be 0 or more US dollars, or +USD")
				}
				into(cost).MaxCostUSD = &n
				return nil
			}),
			duration("inactivity-timeout", inactivity, func(l *state.Limits, n *int) { l.InactivityTimeout = n }),
			duration("iteration-timeout", iterTimeout, func(l *state.Limits, n *int) { l.IterationTimeout = n }),
			count("task-attempts", attempts, 0, func(l *state.Limits, n *int) { l.TaskAttempts = n }),
		}
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		if !add.Empty() {
			l.Add = &add
		}
		if l.Empty() {
			return nil, nil
		}
		return &l, nil
	}
}

// resumeLimits raises a loop's limits before resume brings it back.
func resumeLimits(l *control.Loop, lim *state.Limits, out io.Writer) error {
	if lim == nil {
		return nil
	}
	if err := control.Set(l, lim, io.Discard, clock.Real{}); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %s\n", l.Name, lim)
	return nil
}

func skipCommand(e env) *ffcli.Command {
	return endIterationCommand(e, "skip", state.RequestSkip, "end the current iteration now; with a plan, skip its task", `
End the loop's current iteration now and start the next; with a plan
(--tasks) its task is marked skipped ([TASK] ... skipped). The agent's
work is left in the tree as it is.

Example:
  ralph-watch skip myproj-3`)
}

func retryCommand(e env) *ffcli.Command {
	return endIterationCommand(e, "retry", state.RequestRetry, "end the current iteration and start its task again in a fresh agent", `
End the loop's current iteration now and start its task again in a fresh
agent: the try counts neither as a failure nor as one of the task's
attempts or reviews, and it starts from the plan as the iteration found it
(a box the agent ticked meanwhile is reopened, one a reviewer unticked is
ticked again). The agent's work is left in the tree as it is. Without a
plan, the next iteration starts.

Example:
  ralph-watch retry myproj-3`)
}

// endIterationCommand is skip or retry: a request that ends the running
// iteration.
func endIterationCommand(e env, name, request, short, long string) *ffcli.Command {
	return subcommand(newFlags(name), ffcli.Command{
		ShortUsage: "ralph-watch " + name + " NAME",
		ShortHelp:  short,
		LongHelp:   long,
		Exec: func(ctx context.Context, args []string) error {
			l, err := loopArg(e, args, name)
			if err != nil {
				return err
			}
			return control.EndIteration(l, request, e.Stdout, clock.Real{})
		},
	})
}
