// Package watch answers "how does one loop run?": a Loop supervises one
// tmux pane, running the agent again and again, and judges how each
// iteration ends until the loop is done, limited, paused or failed.
//
// The loop decides; a few parts, each owning its data, do the rest:
//
//	loop.go      Loop: its parts assembled, the iterations in turn, from the prompt to the settling
//	             of each; at its end the loop's side of the plan's progress (package progress)
//	exit.go      Exit: every end of the loop as a value, and Loop.exit, the one place it ends
//	gates.go     the gates before an iteration, each an exit or nil; signalFiles, the done and pause files
//	steps.go     settle and the steps after an iteration, each adding to its report; the receipt
//	             (package spending); the waits between iterations (the restart delay, a backoff,
//	             a usage limit's reset) and max time as an iteration's interrupt
//	decide.go    decide: what comes after an iteration, pure, by the endings table
//	steering.go  the loop's side of the person's steering (package steering): the requests taken, the
//	             limits in force, kept apart from the settings, which stay as the flags gave them
//	config.go    Config (package settings: the loop's settings, one value the iteration reads too) and its defaults
//	doc.go       this map
//
// Its parts are packages: the pane taken over and given back, its output
// stream, its @ralph-* options, the beat, the notices and the casts
// (package pane); what the agent reports itself (hooks); receipts, the
// budget and the context guard (spending); checks, progress file, commit
// and on-* commands (checks, Work); the git work (gitwork).
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
