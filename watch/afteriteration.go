package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/between"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// What the loop does between iterations: checks, the progress file, the
// commit, the iteration-end hook, stall accounting, and the done and pause
// signals that depend on them.

// afterIteration does the work that follows every iteration that ended and
// reports whether its checks passed (true with none).
func (l *Loop) afterIteration(ctx context.Context, it outcome, d time.Duration) bool {
	l.noteChange()
	runs := l.runChecks(ctx)
	if ctx.Err() != nil {
		return false
	}
	l.recordReceipt(runs)
	reason, code := endReason(it), ""
	if it.ending == endExit {
		code = strconv.Itoa(it.code)
	}
	l.appendProgress(reason, code, d, runs)
	if between.AllPassed(runs) {
		l.commit(runs)
	}
	l.save()
	l.hook("on-iteration-end", l.OnIterationEnd, code, reason)
	return between.AllPassed(runs)
}

// runChecks runs the checks after an iteration, records and reports them,
// and keeps their failures for the next prompt.
func (l *Loop) runChecks(ctx context.Context) []between.CheckRun {
	l.feedback = ""
	if len(l.Checks) == 0 {
		return nil
	}
	runs := between.RunChecks(ctx, l.env(), l.Checks, l.iteration, l.Store.Path(state.ChecksDir), l.CheckOutputChars)
	for _, r := range runs {
		verdict := "pass"
		if !r.Passed() {
			verdict = "fail"
			l.sayf("check \"%s\" failed (exit: %d)", r.Command, r.Code)
		}
		timeout := ""
		if r.TimedOut {
			timeout = " timeout=" + seconds(l.CheckTimeout)
		}
		l.log("CHECK", fmt.Sprintf("iteration %d %s exit=%d duration=%s%s check=%q", l.iteration, verdict, r.Code, between.FormatDuration(r.Duration), timeout, r.Command))
	}
	l.sayf("iteration %d checks: %s", l.iteration, between.CheckSummary(runs))
	l.st.AddChecks(between.CheckRecords(l.iteration, runs))
	l.feedback = between.Feedback(runs)
	l.checked, l.checksPassed = l.iteration, between.AllPassed(runs)
	return runs
}

// checksPass judges a done signal found before an iteration: by the latest
// iteration's checks if they ran, else by running them now.
func (l *Loop) checksPass(ctx context.Context) bool {
	if len(l.Checks) == 0 {
		return true
	}
	if l.checked != l.iteration {
		l.runChecks(ctx)
		l.save()
	}
	return l.checksPassed
}

// rejectDone goes on after a done signal whose checks failed. The done file
// is removed, or it would end every following iteration at once.
func (l *Loop) rejectDone() {
	l.sayf("done signal ignored: not all checks passed, going on")
	l.log("CHECK", fmt.Sprintf("iteration %d done signal rejected: checks failed", l.iteration))
	if l.doneFileExists() {
		if err := os.Remove(l.DoneFile); err != nil {
			l.warnf("remove done file: %v", err)
		}
	}
}

// restoreChecks takes the latest checks from a resumed loop's state.
func (l *Loop) restoreChecks() {
	l.checked = -1
	last := l.st.LastChecks()
	if last == nil {
		return
	}
	var runs []between.CheckRun
	for _, r := range last.Results {
		runs = append(runs, between.CheckRun{Check: between.Check{Command: r.Command, Hint: r.Hint}, Code: r.ExitCode,
			TimedOut: r.TimedOut, Log: r.Log, Tail: between.FileTail(r.Log, l.CheckOutputChars)})
	}
	l.feedback = between.Feedback(runs)
	l.checked, l.checksPassed = last.Iteration, between.AllPassed(runs)
}

// pauseFileSeen reports whether the pause file has appeared, and removes it
// so that resume goes on.
func (l *Loop) pauseFileSeen() bool {
	if l.PauseFile == "" {
		return false
	}
	if _, err := os.Stat(l.PauseFile); err != nil {
		return false
	}
	if err := os.Remove(l.PauseFile); err != nil {
		l.warnf("remove pause file: %v", err)
	}
	l.pauseFileFound = true
	return true
}

// noteChange counts the iterations in a row that changed neither HEAD nor
// the working tree.
func (l *Loop) noteChange() {
	if l.StallLimit <= 0 || l.baseline == "" {
		return
	}
	now, err := between.Fingerprint(l.Dir)
	if err != nil {
		return
	}
	if now != l.baseline {
		l.st.UnchangedIterations = 0
		return
	}
	l.st.UnchangedIterations++
	l.sayf("iteration %d changed nothing (%d/%d)", l.iteration, l.st.UnchangedIterations, l.StallLimit)
	l.log("STALL", fmt.Sprintf("iteration %d unchanged=%d/%d", l.iteration, l.st.UnchangedIterations, l.StallLimit))
}

// appendProgress adds the iteration's section to the progress file.
func (l *Loop) appendProgress(reason, code string, d time.Duration, runs []between.CheckRun) {
	if l.ProgressFile == "" {
		return
	}
	f, err := os.OpenFile(l.ProgressFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		l.warnf("progress file: %v", err)
		return
	}
	defer f.Close()
	info, _ := f.Stat()
	text := between.ProgressSection(l.iteration, l.st.LastIterationStarted, d, code, reason, runs)
	if info != nil && info.Size() > 0 {
		text = "\n" + text
	}
	if _, err := f.WriteString(text); err != nil {
		l.warnf("progress file: %v", err)
	}
}

// env is what checks and hooks are told about the loop. RALPH_STATE_DIR is
// the state root, as for ralph-watch itself: the loop's folder is
// $RALPH_STATE_DIR/$RALPH_NAME.
func (l *Loop) env(extra ...string) between.CheckEnv {
	return between.CheckEnv{
		Dir:     l.Dir,
		Timeout: l.CheckTimeout,
		Clock:   l.Clock,
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
	env := l.env("RALPH_EXIT_CODE="+exitCode, "RALPH_REASON="+reason)
	header := fmt.Sprintf("%s [%s] iteration %d: %s", l.Clock.Now().Format(time.RFC3339), which, l.iteration, command)
	logPath := l.Store.Path(state.HooksLog)
	failed, err := between.RunHook(env, logPath, header, command)
	if err != nil {
		l.warnf("open hooks log: %v", err)
		return
	}
	if failed == "" {
		return
	}
	l.log("HOOK", fmt.Sprintf("iteration %d %s failed %s", l.iteration, which, failed))
	l.warnf("%s hook failed (%s); see %s", which, failed, logPath)
}

// commit commits every change after an iteration whose checks passed; outside
// git it only warns, once.
func (l *Loop) commit(runs []between.CheckRun) {
	if !l.Commit {
		return
	}
	if !between.InGitRepo(l.Dir) {
		if !l.commitWarned {
			l.warnf("--commit: %s is not in a git repository; nothing is committed", l.Dir)
			l.commitWarned = true
		}
		return
	}
	committed, err := between.Commit(l.Dir, between.CommitMessage(l.Name, l.iteration, runs))
	switch {
	case err != nil:
		l.warnf("commit iteration %d: %v", l.iteration, err)
		l.log("COMMIT", fmt.Sprintf("iteration %d failed", l.iteration))
	case committed:
		l.log("COMMIT", fmt.Sprintf("iteration %d committed", l.iteration))
	}
}
