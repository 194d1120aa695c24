package watch

import (
	"context"
	"fmt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// env is what checks and hooks are told about the loop. RALPH_STATE_DIR is
// the state root, as for ralph-watch itself: the loop's folder is
// $RALPH_STATE_DIR/$RALPH_NAME.
func (l *Loop) env(extra ...string) CheckEnv {
	return CheckEnv{
		Dir:     l.Dir,
		Timeout: l.CheckTimeout,
		Env: append([]string{
			"RALPH_NAME=" + l.Name,
			"RALPH_ITERATION=" + strconv.Itoa(l.iteration),
			"RALPH_MAX_ITERATIONS=" + strconv.Itoa(l.MaxIterations),
			"RALPH_STATE_DIR=" + filepath.Dir(l.Store.Dir),
		}, extra...),
	}
}

// hook runs a hook command, its output appended to hooks.log. A hook that
// fails or runs over is logged and warned about; it never stops the loop.
func (l *Loop) hook(which, command string, exitCode, reason string) {
	if command == "" {
		return
	}
	f, err := os.OpenFile(l.Store.Path(state.HooksLog), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		l.warnf("open hooks log: %v", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s [%s] iteration %d: %s\n", time.Now().Format(time.RFC3339), which, l.iteration, command)
	env := l.env("RALPH_EXIT_CODE="+exitCode, "RALPH_REASON="+reason)
	// A hook runs to its end even when the loop is interrupted; the timeout bounds it.
	code, timedOut := env.run(context.Background(), command, f)
	if code == 0 {
		return
	}
	what := "exit=" + strconv.Itoa(code)
	if timedOut {
		what = "timed out after " + env.Timeout.String()
	}
	l.log("HOOK", fmt.Sprintf("iteration %d %s failed %s", l.iteration, which, what))
	l.warnf("%s hook failed (%s); see %s", which, what, f.Name())
}

// commit commits every change after an iteration whose checks passed; outside
// git it only warns, once.
func (l *Loop) commit(runs []CheckRun) {
	if !l.Commit {
		return
	}
	if !InGitRepo(l.Dir) {
		if !l.commitWarned {
			l.warnf("--commit: %s is not in a git repository; nothing is committed", l.Dir)
			l.commitWarned = true
		}
		return
	}
	summary := "no checks"
	if len(runs) > 0 {
		var names []string
		for _, r := range runs {
			names = append(names, r.Command)
		}
		summary = CheckSummary(runs) + ": " + strings.Join(names, ", ")
	}
	message := fmt.Sprintf("ralph %s: iteration %d\n\nChecks: %s.\n", l.Name, l.iteration, summary)
	committed, err := Commit(l.Dir, message)
	switch {
	case err != nil:
		l.warnf("commit iteration %d: %v", l.iteration, err)
		l.log("COMMIT", fmt.Sprintf("iteration %d failed", l.iteration))
	case committed:
		l.log("COMMIT", fmt.Sprintf("iteration %d committed", l.iteration))
	}
}
