package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/creack/pty"
	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/cast"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
)

// clearScreen starts a replay as the iteration started: on a cleared screen.
const clearScreen = "\x1b[H\x1b[2J"

// terminalReset turns off what an agent's output may have left on (colours,
// a hidden cursor, bracketed paste, mouse reports) and puts the cursor below
// the replayed screen, row %d, where the shell's prompt then goes. The
// alternate screen is not left: that would hide the last frame.
const terminalReset = "\x1b[0m\x1b[?25h\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[%d;1H\r\n"

func replayCommand(e env) *ffcli.Command {
	fs := newFlags("replay")
	speed := fs.Float64("speed", 1, "play this many times as fast as recorded")
	idle := 2 * time.Second
	config.DurationVar(fs, &idle, "idle-limit", "cap every pause in the output at this long (0: none)")
	dump := fs.Bool("dump", false, "print the screen the iteration ended on, as text, instead of playing it")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch replay NAME [ITERATION] [--speed X] [--idle-limit D] [--dump]",
		ShortHelp:  "play an iteration's recorded pane output (default the newest)",
		LongHelp: `
Play what a loop's pane showed during an iteration, as it was recorded
(casts/ITERATION.cast in the loop's state folder, asciicast v2: asciinema
plays it too). With no ITERATION, the newest. Pauses are capped at the
idle limit; --dump prints the iteration's last screen as text instead.

Examples:
  ralph-watch replay myproj-3
  ralph-watch replay myproj-3 7 --speed 4
  ralph-watch replay myproj-3 --dump`,
		Exec: func(ctx context.Context, args []string) error {
			if *speed <= 0 || math.IsInf(*speed, 0) || math.IsNaN(*speed) {
				return control.Errorf(contract.ExitUsage, "invalid --speed %v: use a number above 0, e.g. 2 for twice as fast", *speed)
			}
			if len(args) > 2 {
				return control.Errorf(contract.ExitUsage, "replay takes a loop name and an iteration, got %d arguments", len(args))
			}
			iteration := 0
			if len(args) == 2 {
				var err error
				if iteration, err = strconv.Atoi(args[1]); err != nil || iteration < 1 {
					return control.Errorf(contract.ExitUsage, "invalid iteration %q: use a number from 1 up", args[1])
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
					return control.Errorf(contract.ExitFailed, "%v", err)
				}
				fmt.Fprint(e.Stdout, screen)
				return nil
			}
			return play(ctx, e, path, *speed, idle)
		},
	})
}

// play writes the cast's output to the terminal at its pace.
func play(ctx context.Context, e env, path string, speed float64, idle time.Duration) error {
	f, err := os.Open(path)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "replay: %v", err)
	}
	h, events, err := cast.Read(f)
	f.Close()
	if err != nil {
		return control.Errorf(contract.ExitFailed, "replay %s: %v", path, err)
	}
	term := terminal(e.Stdout)
	if term != nil {
		fmt.Fprint(e.Stdout, clearScreen)
	}
	err = cast.Play(ctx, e.Stdout, events, speed, idle, clock.Real{})
	if term != nil {
		fmt.Fprintf(e.Stdout, terminalReset, h.Height)
		if rows, cols, serr := pty.Getsize(term); serr == nil && (cols < h.Width || rows < h.Height) {
			fmt.Fprintf(e.Stderr, "ralph-watch: warning: the pane was %dx%d, this terminal is %dx%d: lines may have wrapped\n", h.Width, h.Height, cols, rows)
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return control.Errorf(contract.ExitInterrupted, "")
	case err != nil:
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	return nil
}

// terminal is w when it is a terminal, which playing may leave in some
// mode; else nil.
func terminal(w any) *os.File {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if info, err := f.Stat(); err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return f
}
