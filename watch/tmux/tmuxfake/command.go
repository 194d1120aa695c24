package tmuxfake

import "strings"

// Unwrap takes apart the loop's command form, /bin/sh -c SCRIPT ralph NONCE
// [PROMPTFILE] ARGV…, whose script runs ARGV and then writes an exit marker:
// it returns ARGV, the nonce and the prompt file. Any other command is its
// own argv, with no nonce.
func Unwrap(command []string) (argv []string, nonce, promptFile string) {
	if len(command) < 5 || command[0] != "/bin/sh" || command[1] != "-c" || command[3] != "ralph" ||
		!strings.Contains(command[2], "ralph-exit") {
		return command, "", ""
	}
	if strings.Contains(command[2], "f=$2") && len(command) >= 6 {
		return command[6:], command[4], command[5]
	}
	return command[5:], command[4], ""
}

// catTarget reads PATH from "exec cat > 'PATH'" (sh single quotes).
func catTarget(command string) (string, bool) {
	rest, ok := strings.CutPrefix(command, "exec cat > ")
	if !ok || len(rest) < 2 || rest[0] != '\'' || rest[len(rest)-1] != '\'' {
		return "", false
	}
	return strings.ReplaceAll(rest[1:len(rest)-1], `'\''`, "'"), true
}
