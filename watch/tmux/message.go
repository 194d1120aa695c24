package tmux

import "strings"

// Message implements Client: one display-message per client of the pane's
// session, so everyone looking at that session sees it.
func (c *Exec) Message(pane, text string) error {
	out, err := c.command(nil, "list-clients", "-t", pane, "-F", "#{client_name}")
	if err != nil {
		return err
	}
	var args []string
	for _, client := range strings.Fields(out) {
		if len(args) > 0 {
			args = append(args, ";")
		}
		// -d: shown long enough to read a sentence (tmux's default is 750 ms).
		args = append(args, "display-message", "-d", "8000", "-c", client, Escape(EscapeFormat(text)))
	}
	if len(args) == 0 {
		return nil
	}
	_, err = c.command(nil, args...)
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
