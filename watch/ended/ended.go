// Package ended is what happens to a pane when its loop has ended: a shell
// comes back where the agent is gone, and the loop's options leave the
// status line after a while.
package ended

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// BackToShell respawns a dead pane with command in dir ("": the pane's
// own), so a loop that ended with its agent gone never leaves the pane dead;
// command "" leaves it. A respawn clears the screen: what the agent showed
// last is printed again above the shell's first prompt. It returns the
// shell's pid, 0 if none was started.
func BackToShell(client tmux.Client, pane, dir, command string) int {
	if command == "" {
		return 0
	}
	p, err := client.Pane(pane)
	if err != nil || !p.Dead {
		return 0 // the agent runs on, or the pane is gone
	}
	if dir == "" {
		dir = p.Path
	}
	screen, _ := client.Capture(tmux.CaptureRequest{Pane: pane})
	pid, err := client.Respawn(tmux.RespawnRequest{Pane: pane, Dir: dir, Command: []string{"/bin/sh", "-c",
		`[ -n "$1" ] && printf '%s\n' "$1"; eval "exec $2"`, "ralph", lastScreen(screen), command}})
	if err != nil {
		return 0
	}
	return pid
}

// lastScreen is a dead pane's screen without tmux's own "Pane is dead"
// line and the blank lines at its end.
func lastScreen(screen string) string {
	var keep []string
	for _, line := range strings.Split(screen, "\n") {
		if !strings.HasPrefix(line, "Pane is dead (") {
			keep = append(keep, strings.TrimRight(line, " "))
		}
	}
	return strings.TrimRight(strings.Join(keep, "\n"), "\n")
}

// Linger reads the global @ralph-ended-linger: how long an ended loop's
// options stay on its pane. 0 keeps them.
func Linger(client tmux.Client) time.Duration {
	v, err := client.GlobalOption(contract.LingerOption)
	if err != nil || strings.TrimSpace(v) == "" {
		return contract.DefaultLinger
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if d, err := time.ParseDuration(strings.TrimSpace(v)); err == nil && d >= 0 {
		return d
	}
	return contract.DefaultLinger
}

// Forget is the tmux command that removes a loop's options from pane
// when they still show the loop that ended at ended.
func Forget(pane string, ended time.Time) string {
	var unset []string
	for _, name := range contract.PaneOptionNames {
		unset = append(unset, fmt.Sprintf("set-option -p -u -t %s %s", pane, name))
	}
	// ## keeps the format for if-shell, which reads it when the time comes.
	return fmt.Sprintf(`if-shell -F -t %s "##{==:##{%s},%d}" "%s"`, pane, contract.OptionEnded, ended.Unix(),
		strings.Join(unset, ` \; `))
}
