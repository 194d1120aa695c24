package tmux

import (
	"strconv"
	"time"
)

// Later implements Client: the server runs the tmux command after d, in the
// background (run-shell -b -d -C, tmux 3.2), whether or not this program
// still runs.
func (c *Exec) Later(d time.Duration, command string) error {
	secs := strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
	_, err := c.command(nil, "run-shell", "-b", "-d", secs, "-C", Escape(command))
	return err
}
