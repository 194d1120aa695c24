// Package control answers how a command reaches a loop: it finds a loop by
// name, shows its status and log, and pauses, resumes, stops, cleans or
// types into it, through its watcher when one runs (a request file and
// SIGUSR1) and on disk and in its pane when none does. It also starts a
// detached watcher and claims a name for a new run.
package control

import (
	"fmt"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// Error is a command's failure: the one line to print (none if empty) and
// the exit code, one of the command-line contract's watch.Exit* codes.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Errorf is the one way to fail a command with an exit code.
func Errorf(code int, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// failed is an error of exit code 1 that prints err as it is.
func failed(err error) error { return Errorf(contract.ExitFailed, "%v", err) }
