package watch

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// NotifyOption is the global tmux option holding a shell command run when a
// loop ends; it reads RALPH_NAME, RALPH_STATE, RALPH_MESSAGE from its environment.
const NotifyOption = "@ralph-notify-command"

// notify tells whoever watches that the loop ended on its own (done, failed,
// limit): a message on the clients of the pane's session, and the command in
// @ralph-notify-command. A stop the person asked for needs no notice.
func (l *Loop) notify(shown, reason string) {
	var what string
	switch shown {
	case "done":
		what = "done"
	case "failed":
		what = "failed (" + reason + ")"
	case "limit":
		what = "reached its limit (" + reason + ") without the done signal"
	default:
		return
	}
	msg := fmt.Sprintf("[ralph] %s: %s after %d iteration", l.Name, what, l.iteration)
	if l.iteration != 1 {
		msg += "s"
	}
	l.Tmux.Message(l.Pane, msg)
	command, err := l.Tmux.GlobalOption(NotifyOption)
	if err != nil || command == "" {
		return
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = l.Dir
	cmd.Env = append(os.Environ(), "RALPH_NAME="+l.Name, "RALPH_STATE="+shown, "RALPH_REASON="+reason,
		"RALPH_ITERATION="+strconv.Itoa(l.iteration), "RALPH_PANE="+l.Pane, "RALPH_MESSAGE="+msg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives the watcher, which exits next
	if err := cmd.Start(); err != nil {
		l.warnf("run %s: %v", NotifyOption, err)
		return
	}
	cmd.Process.Release()
}
