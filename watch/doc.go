// Package watch answers "how does one loop run?": a Loop supervises one
// tmux pane, running the agent again and again, and judges how each
// iteration ends (see endings.go) until the loop is done, limited, paused
// or failed. Each file answers one question: loop.go the iterations in
// turn, iteration.go one iteration, ready.go and typing.go the prompt's
// delivery, monitor.go watching a running agent, turn.go what its screen
// and hooks say, wrapper.go its exit marker and output, settle.go and
// endings.go what comes after an iteration, afteriteration.go the work
// between iterations, limitwait.go a usage limit's wait, pane.go and
// cleanup.go taking over the pane and giving it back, record.go and
// status.go what the loop writes down and shows.
package watch
