package watch

import (
	"crypto/md5"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// turn follows the agent through one iteration by what its screen shows.
type turn struct {
	sawWork     bool      // the busy marker or a finished turn showed since the prompt went in
	dialogSince time.Time // a question has waited for the person since then
	ended       time.Time // when the turn ended: idle seen, or the agent's hook
	detail      string    // the limit text, or the start-up dialog's index
}

// observe judges one look at the screen: the agent's state first (a
// start-up dialog, a limit, a question, the end of its turn), then
// inactivity. It returns the ending, if any, and how soon another look could
// change the verdict when nothing else happens.
func (l *Loop) observe(it *iteration, det *Detector, screen string, now time.Time) (ending, bool, time.Duration) {
	lines := ScreenLines(screen, l.Lines)
	stable := det.Observe(md5.Sum([]byte(strings.Join(lines, "\n"))), now)
	state, detail := l.Agent.Classify(lines)
	t := &it.turn
	switch state {
	case StateStartup:
		t.detail = detail
		l.event(it, EventStartup, ViaScreen, detail)
		return endStartup, true, 0
	case StateLimited:
		t.detail = detail
		l.event(it, EventLimit, ViaScreen, detail)
		return endLimit, true, 0
	case StateDialog:
		if t.dialogSince.IsZero() {
			t.dialogSince = now
			l.event(it, EventDialog, ViaScreen, "")
			l.sayf("the agent is asking a question; waiting for an answer in the pane")
			l.log("DIALOG", fmt.Sprintf("iteration %d needs input", l.iteration))
			l.setAgentState(StateDialog)
			l.showStatus(StatusNeedsInput)
		}
		if l.DialogTimeout > 0 {
			waited := now.Sub(t.dialogSince)
			if waited >= l.DialogTimeout {
				return endDialog, true, 0
			}
			return endExit, false, l.DialogTimeout - waited
		}
		return endExit, false, 0 // a question is not inactivity
	}
	if !t.dialogSince.IsZero() { // answered: the agent works again
		t.dialogSince = time.Time{}
		det.Reset()
		stable = det.Observe(md5.Sum([]byte(strings.Join(lines, "\n"))), now)
		l.showStatus(StatusRunning)
	}
	l.setAgentState(state)
	if state == StateWorking || state == StateFinished {
		if !t.sawWork {
			l.event(it, EventBusy, ViaScreen, "")
		}
		t.sawWork = true
	}
	next := l.InactivityTimeout - stable
	if grace := l.Agent.IdleGrace; (state == StateIdle || state == StateFinished) && grace > 0 {
		if !t.sawWork {
			grace *= 4 // a turn too quick to be seen busy: be surer it is over
		}
		if stable >= grace {
			t.ended = now.Add(-stable)
			l.event(it, EventTurnEnd, ViaScreen, "")
			return endTurn, true, 0
		}
		next = min(next, grace-stable)
	}
	if stable >= l.InactivityTimeout {
		return endInactivity, true, 0
	}
	return endExit, false, next
}

// setAgentState records what the screen says, for status --json.
func (l *Loop) setAgentState(s AgentState) {
	if l.Agent.Knows() && l.st.AgentState != s.String() {
		l.st.AgentState = s.String()
	}
}

// hookTurnEnded reports whether the agent's own turn-end hook fired for
// this iteration (it leaves the iteration number in the turn-end file).
func (l *Loop) hookTurnEnded(it *iteration) bool {
	if !l.turnHook {
		return false
	}
	b, err := os.ReadFile(l.Store.Path(TurnEndFile))
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(l.iteration) {
		return false
	}
	it.turn.ended = l.Clock.Now()
	l.event(it, EventTurnEnd, ViaHook, "")
	return true
}

// TurnEndFile is where an agent's turn-end hook leaves the iteration number.
const TurnEndFile = "turn-end"

// installTurnHook writes what makes the agent report the end of each turn
// to the watcher, and adds it to the command: Claude Code's Stop hook in a
// --settings file, Codex's notify program.
func (l *Loop) installTurnHook() {
	if !l.TurnHook || l.Executable == "" || l.PromptMode != ModeType || len(l.Command) == 0 || shellLineCommand(l.Command) {
		return // a shell line cannot take more arguments safely: the screen tells the turn's end
	}
	call := []string{l.Executable, "hook", "turn-end", "--state", l.Store.Dir}
	switch l.Agent.TurnHook {
	case HookClaudeStop:
		if l.Agent.has(l.Command, []string{"--settings"}) {
			return // the person's own settings win; the screen tells the turn's end
		}
		path := l.Store.Path("claude-settings.json")
		settings := fmt.Sprintf(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":%s}]}]}}`+"\n",
			jsonString(shellLine(call)))
		if err := os.WriteFile(path, []byte(settings), 0o600); err != nil {
			l.warnf("write claude settings: %v", err)
			return
		}
		l.Command = append([]string{l.Command[0], "--settings", path}, l.Command[1:]...)
	case HookCodexNotify:
		quoted := make([]string, len(call))
		for i, s := range call {
			quoted[i] = jsonString(s) // JSON's string escapes are TOML's too
		}
		l.Command = append([]string{l.Command[0], "-c", "notify=[" + strings.Join(quoted, ",") + "]"}, l.Command[1:]...)
	default:
		return
	}
	l.turnHook = true
}

// shellLine joins words into one sh command line, each quoted.
func shellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// TurnEnded is what `ralph-watch hook turn-end` does: it records that the
// agent in iteration finished its turn and wakes the loop's watcher.
func TurnEnded(store *state.Store, iteration string) error {
	if err := os.WriteFile(store.Path(TurnEndFile), []byte(iteration+"\n"), 0o600); err != nil {
		return err
	}
	st, err := store.Load()
	if err != nil {
		return err
	}
	if st.WatcherPID > 0 {
		return syscall.Kill(st.WatcherPID, syscall.SIGUSR1)
	}
	return nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
