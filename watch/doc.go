// Package watch answers "how does one loop run?": a Loop supervises one
// tmux pane, running the agent again and again, and judges how each
// iteration ends until the loop is done, limited, paused or failed.
//
// The loop decides; a few parts, each owning its data, do the rest:
//
//	loop.go               Loop: the iterations in turn, from the prompt to the settling of each
//	exit.go               Exit: every end of the loop as a value, and Loop.exit, the one place it ends
//	gates.go              the gates before an iteration, each an exit or nil; signalFiles, the done and pause files
//	steps.go              settle and the steps after an iteration, each adding to its report; the checks'
//	                      work (checks, progress file, commit, on-* commands) is package checks' Work
//	decide.go             decide: what comes after an iteration, pure, by the endings table
//	limitwait.go          the waits between iterations: the restart delay, a backoff, a usage limit's reset;
//	                      max time as an iteration's interrupt
//	hooks/                Hooks: what the agent reports itself, and the command it runs with (package hooks)
//	spending.go           the loop's side of package spending (each iteration's receipt, the budget, the context guard)
//	config.go             Config (package settings: the loop's settings, one value the iteration reads too) and its defaults
//	pane/                 Pane, Stream, Line, Cast: the pane taken over and given back, its output stream,
//	                      its @ralph-* options, the watcher's beat and the notices, each iteration's cast (package pane)
//	requests.go           pause and stop requests
//	tasks.go              the loop's side of the plan's progress: its record kept, its verify commands, the done signal
//
// The plan's progress (the task each iteration works on, its verdict) is
// package progress; the prompt each iteration delivers, package prompt.
//
// The loop's record (state.json, the logs, the receipts: the one writer of
// the loop's state, in memory and on disk) is package record.
//
// The words the loop shares with control, doctor and the command line
// (statuses, events, exit codes, end reasons) are in package contract.
package watch
