package control

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// endedMendable reports whether a loop failed for a cause the person can
// mend (a file put back, a program installed, a login, a fix to what kept
// failing): resume goes on once it is mended.
func endedMendable(st *state.State) bool {
	if st.Status != state.Failed {
		return false
	}
	switch contract.ReasonOf(st) {
	case contract.ReasonPromptFileMissing, contract.ReasonTasksUnreadable, contract.ReasonFatalExit, contract.ReasonNotLoggedIn,
		contract.ReasonStartupDialog, contract.ReasonStateUnwritable, contract.ReasonConsecutiveFailures, contract.ReasonStalled:
		return true
	}
	return false
}

// unmended says what still stands in the way of a loop that failed for a
// cause the person can mend, and what to do; "" once it is mended, or when
// only the next iteration can tell.
func unmended(l *Loop) string {
	st := l.State
	again := fmt.Sprintf("then 'ralph-watch resume %s'", l.Name)
	switch contract.ReasonOf(st) {
	case contract.ReasonPromptFileMissing:
		file := setting(st, "PromptFile", st.PromptFile)
		if info, err := os.Stat(file); err != nil || !info.Mode().IsRegular() {
			return fmt.Sprintf("loop '%s' failed because its prompt file %s could not be read, and it still cannot: put it back, %s", l.Name, file, again)
		}
	case contract.ReasonTasksUnreadable:
		file := setting(st, "TasksFile", "")
		if file == "" && st.Tasks != nil {
			file = st.Tasks.File
		}
		if info, err := os.Stat(file); file != "" && (err != nil || !info.Mode().IsRegular()) {
			return fmt.Sprintf("loop '%s' failed because its plan %s could not be read, and it still cannot: put it back, %s", l.Name, file, again)
		}
	case contract.ReasonFatalExit:
		if program := agent.ParseLaunch(st.Command).Word; program != "" && !found(program, st.Path) {
			return fmt.Sprintf("loop '%s' failed because its command %s was not found, and it still is not on the loop's PATH: install it, %s", l.Name, program, again)
		}
	}
	return ""
}

// notResumed says why resume will not go on with a loop that has ended,
// and what to do instead.
func notResumed(l *Loop) string {
	reason := contract.ReasonOf(l.State)
	switch {
	case reason == contract.ReasonTasksSkipped:
		return fmt.Sprintf("loop '%s' has no task left open (%s): start a new run to try the skipped tasks again (this run is kept apart; 'ralph-watch status %s' lists them)", l.Name, reason, l.Name)
	case l.State.Status == state.Stopped:
		return fmt.Sprintf("loop '%s' is done (%s): nothing is left to resume; start a new run with 'ralph-watch run' (this run is kept apart)", l.Name, reason)
	}
	return fmt.Sprintf("loop '%s' has ended (%s, status '%s') and cannot be resumed: see 'ralph-watch status %s', then start a new run with 'ralph-watch run'", l.Name, reason, l.Status(), l.Name)
}

// setting is one of the loop's recorded settings (watch.Config's field
// name), else fallback.
func setting(st *state.State, name, fallback string) string {
	if v, ok := st.Settings[name]; ok && v != "" {
		return v
	}
	return fallback
}

// found reports whether program runs: a path that is there, or a name on
// path (the loop's PATH; "" this one's).
func found(program, path string) bool {
	if strings.Contains(program, "/") {
		info, err := os.Stat(program)
		return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
	}
	if path == "" {
		_, err := exec.LookPath(program)
		return err == nil
	}
	for _, dir := range filepath.SplitList(path) {
		if found(filepath.Join(cmpDir(dir), program), "") {
			return true
		}
	}
	return false
}

func cmpDir(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}
