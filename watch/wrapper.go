package watch

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// wrapped is the pane's command: the agent, with the prompt as argument or
// stdin if so configured, then a marker carrying its exit status. The marker
// arrives after all the agent's output, so the watcher knows it has all of it.
// With job control (set -m) the agent is the terminal's foreground process
// group: tmux names the window after it, not "sh", and a Ctrl-C the person
// types reaches the agent alone, so the marker still comes.
func (l *Loop) wrapped(nonce, promptPath string) []string {
	// Once the loop is over, an agent that exits later leaves the pane at the
	// command the watcher left in RALPH_AFTER_EXIT's file, not dead.
	const report = `rc=$?; printf '\033]7777;ralph-exit;%s;%s\007' "$n" "$rc"; ` +
		`a=${RALPH_AFTER_EXIT:-}; if [ -n "$a" ] && [ -f "$a" ]; then c=$(cat "$a"); rm -f "$a"; eval "exec $c"; fi; exit "$rc"`
	switch l.PromptMode {
	case agent.ModeArg:
		return append([]string{"/bin/sh", "-c",
			`set -m; n=$1; f=$2; shift 2; p=$(cat "$f"; printf x); p=${p%x}; "$@" "$p"; ` + report,
			"ralph", nonce, promptPath}, l.Command...)
	case agent.ModeStdin:
		return append([]string{"/bin/sh", "-c", `set -m; n=$1; f=$2; shift 2; "$@" < "$f"; ` + report,
			"ralph", nonce, promptPath}, l.Command...)
	}
	return append([]string{"/bin/sh", "-c", `set -m; n=$1; shift; "$@"; ` + report, "ralph", nonce}, l.Command...)
}

// take moves new output into the iteration: text to the done scanner,
// markers to the exit status.
func (l *Loop) take(it *iteration) {
	if l.stream == nil {
		return
	}
	text, markers := l.stream.Take()
	if text != "" && !it.spoke {
		it.spoke = true
		l.event(it, words.EventOutput, words.ViaStream, "")
	}
	if it.scanner != nil && it.match == "" && text != "" {
		if m, ok := it.scanner.Feed(text); ok {
			it.match = m
			l.event(it, words.EventDone, words.ViaStream, m)
		}
	}
	for _, m := range markers {
		if m == agent.PasteOn {
			if !it.pasteOn {
				l.event(it, words.EventPasteOn, words.ViaStream, "")
			}
			it.pasteOn = true
			continue
		}
		f := strings.Split(m, ";")
		if len(f) == 3 && f[0] == "exit" && (f[1] == it.nonce || it.nonce == "") {
			if code, err := strconv.Atoi(f[2]); err == nil {
				it.exited, it.exitCode = true, code
				l.event(it, words.EventExit, words.ViaExit, f[2])
			}
		}
	}
}

// flush judges what the done scanner held back for want of context: the
// output has gone quiet or the iteration is over.
func (l *Loop) flush(it *iteration) {
	if it.scanner != nil && it.match == "" {
		if m, ok := it.scanner.Flush(); ok {
			it.match = m
			l.event(it, words.EventDone, words.ViaStream, m)
		}
	}
}

// drain waits for the exit marker, which follows the agent's last output, so
// nothing the agent wrote is judged in the next iteration. A pipe still
// delivering (a flood on a busy machine) is waited for; a silent one a second.
func (l *Loop) drain(it *iteration) {
	if l.stream == nil {
		return
	}
	limit := l.Clock.After(drainLimit)
	for {
		l.take(it)
		if it.exited {
			return
		}
		select {
		case <-l.stream.Notify():
		case <-l.Clock.After(time.Second):
			return
		case <-limit:
			return
		}
	}
}

// drainLimit bounds the wait for a pane whose output never stops arriving.
const drainLimit = 30 * time.Second

// exitCode reads the dead pane's exit status. tmux 3.3a sometimes leaves it
// empty until another child exits; a nudge makes the server reap and record it.
func (l *Loop) exitCode(it *iteration) int {
	for try := 0; try < 100; try++ {
		pane, err := l.Tmux.Pane(l.Pane)
		if err != nil {
			break
		}
		if pane.Dead && pane.DeadStatus != "" {
			if code, err := strconv.Atoi(pane.DeadStatus); err == nil {
				return code
			}
		}
		if pane.Dead && pane.DeadSignal != "" {
			if sig, err := strconv.Atoi(pane.DeadSignal); err == nil {
				return 128 + sig
			}
		}
		if pane.Dead {
			_ = l.Tmux.Nudge()
		}
		<-l.Clock.After(10 * time.Millisecond)
	}
	return it.exitCode
}

func nonce() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func exitText(code int) string {
	if code < 0 {
		return "unknown"
	}
	return strconv.Itoa(code)
}
