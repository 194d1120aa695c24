package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/cast"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
)

// terminalReset shows the cursor and leaves the alternate screen, bracketed
// paste and colours an agent's output may have left on.
const terminalReset = "\x1b[0m\x1b[?25h\x1b[?2004l\x1b[?1049l"

func replayCommand(e env) *ffcli.Command {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	speed := fs.Float64("speed", 1, "play this many times as fast as recorded")
	idle := 2 * time.Second
	fs.Var(durationFlag{&idle}, "idle-limit", "cap every pause in the output at this long (0: none)")
	dump := fs.Bool("dump", false, "print the screen the iteration ended on, as text, instead of playing it")
	return &ffcli.Command{
		Name:       "replay",
		ShortUsage: "ralph-watch replay NAME [ITERATION] [--speed X] [--idle-limit D] [--dump]",
		ShortHelp:  "play an iteration's recorded pane output (default the newest)",
		LongHelp: strings.TrimSpace(`
Play what a loop's pane showed during an iteration, as it was recorded
(casts/ITERATION.cast in the loop's state folder, asciicast v2: asciinema
plays it too). With no ITERATION, the newest. Pauses are capped at the
idle limit; --dump prints the iteration's last screen as text instead.

Examples:
  ralph-watch replay myproj-3
  ralph-watch replay myproj-3 7 --speed 4
  ralph-watch replay myproj-3 --dump`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			args, err := interspersed(fs, args)
			if err != nil {
				return err
			}
			if *speed <= 0 || math.IsInf(*speed, 0) || math.IsNaN(*speed) {
				return control.Errorf(watch.ExitUsage, "invalid --speed %v: use a number above 0, e.g. 2 for twice as fast", *speed)
			}
			if len(args) > 2 {
				return control.Errorf(watch.ExitUsage, "replay takes a loop name and an iteration, got %d arguments", len(args))
			}
			iteration := 0
			if len(args) == 2 {
				if iteration, err = strconv.Atoi(args[1]); err != nil || iteration < 1 {
					return control.Errorf(watch.ExitUsage, "invalid iteration %q: use a number from 1 up", args[1])
				}
				args = args[:1]
			}
			l, err := loopArg(e, args, "replay")
			if err != nil {
				return err
			}
			path, _, err := control.Cast(l, iteration)
			if err != nil {
				return err
			}
			if *dump {
				screen, err := cast.Dump(path)
				if err != nil {
					return control.Errorf(watch.ExitFailed, "%v", err)
				}
				fmt.Fprint(e.Stdout, screen)
				return nil
			}
			return play(ctx, e, path, *speed, idle)
		},
	}
}

// play writes the cast's output to the terminal at its pace.
func play(ctx context.Context, e env, path string, speed float64, idle time.Duration) error {
	f, err := os.Open(path)
	if err != nil {
		return control.Errorf(watch.ExitFailed, "replay: %v", err)
	}
	_, events, err := cast.Read(f)
	f.Close()
	if err != nil {
		return control.Errorf(watch.ExitFailed, "replay %s: %v", path, err)
	}
	err = cast.Play(ctx, e.Stdout, events, speed, idle, clock.Real{})
	if isTerminal(e.Stdout) {
		fmt.Fprint(e.Stdout, terminalReset)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return control.Errorf(watch.ExitInterrupted, "")
	case err != nil:
		return control.Errorf(watch.ExitFailed, "%v", err)
	}
	return nil
}

// interspersed parses flags that follow the positional arguments too
// (replay NAME 3 --speed 2) and returns the positional ones.
func interspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional, args = append(positional, args[0]), args[1:]
	}
}

// isTerminal reports whether w is a terminal, where playing may leave modes on.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
