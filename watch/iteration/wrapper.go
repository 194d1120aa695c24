package iteration

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

// command is the pane's command: the agent, with the prompt as argument or
// stdin if so configured, then a marker carrying its exit status. The marker
// arrives after all the agent's output, so the watcher knows it has all of it.
// With job control (set -m) the agent is the terminal's foreground process
// group: tmux names the window after it, not "sh", and a Ctrl-C the person
// types reaches the agent alone, so the marker still comes.
func (w *Watch) command(promptPath string) []string {
	run := agent.Runnable(w.hooks.Command()) // the secrets it hides come by the environment
	// Once the loop is over, an agent that exits later leaves the pane at the
	// command the watcher left in RALPH_AFTER_EXIT's file, not dead.
	const report = `rc=$?; printf '\033]7777;ralph-exit;%s;%s\007' "$n" "$rc"; ` +
		`a=${RALPH_AFTER_EXIT:-}; if [ -n "$a" ] && [ -f "$a" ]; then c=$(cat "$a"); rm -f "$a"; eval "exec $c"; fi; exit "$rc"`
	switch w.cfg.PromptMode {
	case agent.ModeArg:
		return append([]string{"/bin/sh", "-c",
			`set -m; n=$1; f=$2; shift 2; p=$(cat "$f"; printf x); p=${p%x}; "$@" "$p"; ` + report,
			"ralph", w.out.nonce, promptPath}, run...)
	case agent.ModeStdin:
		return append([]string{"/bin/sh", "-c", `set -m; n=$1; f=$2; shift 2; "$@" < "$f"; ` + report,
			"ralph", w.out.nonce, promptPath}, run...)
	}
	return append([]string{"/bin/sh", "-c", `set -m; n=$1; shift; "$@"; ` + report, "ralph", w.out.nonce}, run...)
}

// Nonce is a new exit marker's: the agent's own, told from an earlier one's.
func Nonce() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// addedArgs says where the loop's own words stand in command, "AT:COUNT",
// compared with the person's plain one; "" when it added none.
func addedArgs(plain, command []string) string {
	if plain == nil || len(command) <= len(plain) {
		return ""
	}
	at := 0
	for at < len(plain) && plain[at] == command[at] {
		at++
	}
	return fmt.Sprintf("%d:%d", at, len(command)-len(plain))
}

func exitText(code int) string {
	if code < 0 {
		return "unknown"
	}
	return strconv.Itoa(code)
}
