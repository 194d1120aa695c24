package tmux

import (
	"os"
	"path/filepath"
	"strconv"
)

// DefaultSocket is the socket a tmux run without -L or -S uses, found as
// tmux finds it: $TMUX_TMPDIR (when it names a folder), else /tmp, then
// tmux-UID/default.
func DefaultSocket(getenv func(string) string) string {
	dir := "/tmp"
	if d := getenv("TMUX_TMPDIR"); d != "" {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			dir = real
		}
	} else if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	base := filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()))
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	return filepath.Join(base, "default")
}
