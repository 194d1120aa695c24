package watch

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// NotifyOption is the global tmux option holding a shell command run when a
// loop needs the person; it reads RALPH_NAME, RALPH_STATE, RALPH_REASON,
// RALPH_ITERATION, RALPH_PANE and RALPH_MESSAGE from its environment.
const NotifyOption = "@ralph-notify-command"

// notice is what to tell the person of a status, "" when it needs no one:
// a question waits, a limit pauses the loop, it failed or it finished. A
// stop or pause the person asked for needs no notice.
func notice(s words.Shown, iteration int) string {
	var what string
	switch s.Status {
	case words.StatusNeedsInput:
		return fmt.Sprintf("[ralph] %s: needs input in iteration %s (the agent is asking a question)", s.Name, s.Progress())
	case words.StatusWaiting:
		return fmt.Sprintf("[ralph] %s: usage limit reached, %s", s.Name, s.Note)
	case words.StatusDone:
		what = "done"
	case words.StatusFailed:
		what = "failed (" + s.Reason + ")"
	case words.StatusLimit:
		what = "reached its limit (" + s.Reason + ") without the done signal"
	default:
		return ""
	}
	msg := fmt.Sprintf("[ralph] %s: %s after %d iteration", s.Name, what, iteration)
	if iteration != 1 {
		msg += "s"
	}
	if s.Error != "" {
		msg += ": " + s.Error
	}
	return msg
}

// notify tells the person, once per event, where they are: a message on
// the clients of the pane's session, the window's bell flag, and the
// command in @ralph-notify-command.
func (l *Loop) notify(s words.Shown) {
	msg := notice(s, l.iteration)
	if msg == "" {
		return
	}
	_ = l.Tmux.Message(l.Pane, msg)
	if pane, err := l.Tmux.Pane(l.Pane); err == nil && !pane.Dead {
		ringBell(pane.PID)
	}
	command, err := l.Tmux.GlobalOption(NotifyOption)
	if err != nil || command == "" {
		return
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = l.Dir
	cmd.Env = append(os.Environ(), "RALPH_NAME="+l.Name, "RALPH_STATE="+s.Status.String(), "RALPH_REASON="+s.Reason,
		"RALPH_ITERATION="+strconv.Itoa(l.iteration), "RALPH_PANE="+l.Pane, "RALPH_MESSAGE="+msg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives the watcher, which may exit next
	if err := cmd.Start(); err != nil {
		l.warnf("run %s: %v", NotifyOption, err)
		return
	}
	go func() { _ = cmd.Wait() }() // reaped, not left a zombie while the loop goes on
}

// ringBell writes BEL to the terminal of the pane's process, as if the agent
// rang it: tmux raises the window's bell flag (and bell-action applies).
func ringBell(pid int) {
	path := "/proc/" + strconv.Itoa(pid) + "/fd/1"
	if target, err := os.Readlink(path); err != nil || !strings.HasPrefix(target, "/dev/pts/") {
		return // not a terminal: nothing to ring
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	_, _ = f.Write([]byte("\a"))
	f.Close()
}
