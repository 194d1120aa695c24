package tmux

import (
	"strconv"
	"strings"
	"time"
)

// MessageTime is how long the loop's messages stay on the clients: long
// enough to read a sentence (tmux's display-time is 750 ms by default),
// unless the person keeps messages longer (display-time; 0: until a key).
const MessageTime = 8 * time.Second

// Message implements Client: one display-message per client of the pane's
// session, so everyone looking at that session sees it, for MessageTime.
// The server shows it in the background (run-shell -b -C): this program
// never waits while a message is on screen.
func (c *Exec) Message(pane, text string) error {
	out, err := c.command(nil, "list-clients", "-t", pane, "-F", "client #{client_name}", ";",
		"show-options", "-g", "-v", "display-time")
	if err != nil {
		return err
	}
	delay := MessageTime.Milliseconds()
	var clients []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if client, ok := strings.CutPrefix(line, "client "); ok {
			clients = append(clients, client)
		} else if ms, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64); err == nil && (ms == 0 || ms > delay) {
			delay = ms
		}
	}
	var show [][]string
	for _, client := range clients {
		show = append(show, []string{"display-message", "-d", strconv.FormatInt(delay, 10), "-c", client, EscapeFormat(text)})
	}
	if len(show) == 0 {
		return nil
	}
	// run-shell expands formats in its command too: escaped once more.
	_, err = c.command(nil, "run-shell", "-b", "-C", EscapeFormat(commandList(show...)))
	return err
}

// GlobalOption implements Client.
func (c *Exec) GlobalOption(name string) (string, error) {
	out, err := c.command(nil, "show-options", "-g", "-q", "-v", name)
	return strings.TrimSuffix(out, "\n"), err
}

// EscapeFormat keeps text literal where tmux expands formats (display-message,
// status lines): every # is doubled.
func EscapeFormat(text string) string {
	return strings.ReplaceAll(text, "#", "##")
}

// dirArg is a start directory for -c, which tmux expands as a format.
func dirArg(dir string) string {
	return Escape(EscapeFormat(dir))
}
