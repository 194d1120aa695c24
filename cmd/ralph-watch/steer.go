package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
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
				return control.Errorf(words.ExitUsage, "note takes --sticky or --clear, not both")
			case *clear && len(args) > 1:
				return control.Errorf(words.ExitUsage, "note --clear takes a loop name only")
			case *clear:
			case len(args) < 2:
				return control.Errorf(words.ExitUsage, "note takes a loop name and a text ('-' reads it from standard input)")
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
			return "", control.Errorf(words.ExitFailed, "read note: %v", err)
		}
		text = string(data)
	}
	text = strings.TrimRight(text, "\n")
	switch {
	case strings.TrimSpace(text) == "":
		return "", control.Errorf(words.ExitUsage, "the note is empty")
	case len(text) > maxNote:
		return "", control.Errorf(words.ExitUsage, "the note is longer than %d KiB", maxNote>>10)
	}
	return text, nil
}

func setCommand(e env) *ffcli.Command {
	fs := newFlags("set")
	limits := limitFlags(fs)
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch set NAME [--max-iterations N|+N] [--max-time D] [--max-tokens N] [--max-cost USD] [--inactivity-timeout D] [--iteration-timeout D] [--task-attempts N]",
		ShortHelp:  "change a running or paused loop's limits from its next iteration",
		LongHelp: `
Change a loop's limits from its next iteration on (the iteration running
goes on as it started). --max-iterations +N adds N to the limit. A value
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
// and returns what they set (nil: none given).
func limitFlags(fs *flag.FlagSet) func() (*state.Limits, error) {
	var iterations string
	var maxTime, inactivity, iterTimeout time.Duration
	var tokens int64
	var cost float64
	var attempts int
	fs.StringVar(&iterations, "max-iterations", "", "the most iterations the loop runs; +N adds N (0: no limit)")
	config.DurationVar(fs, &maxTime, "max-time", "stop the loop this long after it first started (0: no limit)")
	fs.Int64Var(&tokens, "max-tokens", 0, "stop the loop once its iterations used this many tokens (0: no limit)")
	fs.Float64Var(&cost, "max-cost", 0, "stop the loop once its estimated cost reaches this many US dollars (0: no limit)")
	config.DurationVar(fs, &inactivity, "inactivity-timeout", "restart when the screen is unchanged this long")
	config.DurationVar(fs, &iterTimeout, "iteration-timeout", "restart an iteration that runs this long (0: none)")
	fs.IntVar(&attempts, "task-attempts", 0, "tries of a plan's task before it is skipped")
	return func() (*state.Limits, error) {
		given := config.Visited(fs)
		var l state.Limits
		secs := func(d time.Duration) *int { n := int(d / time.Second); return &n }
		if given["max-iterations"] {
			s := strings.TrimSpace(iterations)
			n, err := strconv.Atoi(strings.TrimPrefix(s, "+"))
			switch {
			case err != nil || n < 0:
				return nil, control.Errorf(words.ExitUsage, "invalid value %q for --max-iterations: use N or +N", iterations)
			case strings.HasPrefix(s, "+"):
				l.AddIterations = n
			default:
				l.MaxIterations = &n
			}
		}
		if given["max-time"] {
			l.MaxTime = secs(maxTime)
		}
		if given["max-tokens"] {
			l.MaxTokens = &tokens
		}
		if given["max-cost"] {
			if cost < 0 {
				return nil, control.Errorf(words.ExitUsage, "invalid value %v for --max-cost: must be 0 or more", cost)
			}
			l.MaxCostUSD = &cost
		}
		if given["inactivity-timeout"] {
			l.InactivityTimeout = secs(inactivity)
		}
		if given["iteration-timeout"] {
			l.IterationTimeout = secs(iterTimeout)
		}
		if given["task-attempts"] {
			l.TaskAttempts = &attempts
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
