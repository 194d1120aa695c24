package tmux

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// A lifeline tells the server that this process is gone without a word
// from it (kill -9): a job of the server reads a FIFO that only this
// process holds open for writing, and runs a tmux command once it reads
// the end. It costs nothing while this process lives: no process starts
// and nothing is written.

// lifelineWait bounds how long the server's job may take to open the FIFO.
const lifelineWait = 5 * time.Second

// Lifeline has the server run command once the returned file is closed,
// by Close or by this process's end, whichever comes first. The line is a
// FIFO made at path, removed again once both its ends are open.
func (c *Exec) Lifeline(path, command string) (*os.File, error) {
	_ = os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		return nil, fmt.Errorf("make lifeline fifo: %w", err)
	}
	// if-shell, not run-shell: the server runs command itself once cat
	// ends with 0 (a job killed by a signal runs nothing), and expands the
	// formats in it then, not now.
	job := "cat " + quote(path) + " >/dev/null" // quote's form is sh's too
	if _, err := c.command(nil, "if-shell", "-b", EscapeFormat(job), Escape(command)); err != nil {
		_ = os.Remove(path)
		return nil, err
	}
	// Opening for writing never blocks: it fails until the job has the
	// FIFO open for reading, and then this process holds the line.
	for deadline := time.Now().Add(lifelineWait); ; time.Sleep(10 * time.Millisecond) {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			_ = os.Remove(path) // both ends are open: the name is needed no more
			return f, nil
		}
		if !errors.Is(err, syscall.ENXIO) || time.Now().After(deadline) {
			// The job, if it comes late, finds no FIFO and runs nothing.
			_ = os.Remove(path)
			return nil, fmt.Errorf("hold lifeline %s: the server's job did not open it: %w", path, err)
		}
	}
}
