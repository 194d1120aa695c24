package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/iteration"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// chores are what the loop does between iterations: checks, the
// progress file, the commit, the on-* commands, stall accounting, and the done and
// pause files, with what it must remember of them from one iteration to the
// next.
type chores struct {
	cfg   *Config // read only
	rec   *recorder
	clock clock.Clock

	verify         []checks.Check // the plan's verify commands, run after the checks
	feedback       string         // the last iteration's check failures, for the next prompt
	checked        int            // the iteration whose checks ran last; -1: none
	checksPassed   bool           // how they went
	baseline       string         // the working tree's fingerprint when the iteration started; "": unknown
	commitWarned   bool
	pauseFileFound bool
}

// noteBaseline notes the working tree before an iteration, to tell whether
// the iteration changes it (--stall-limit).
func (b *chores) noteBaseline() {
	b.baseline = ""
	if b.cfg.StallLimit > 0 {
		b.baseline, _ = gitwork.Fingerprint(b.cfg.Dir)
	}
}

// runChecks runs the checks after an iteration, records and reports them,
// and keeps their failures for the next prompt.
func (b *chores) runChecks(ctx context.Context) []checks.CheckRun {
	b.feedback = ""
	list := b.checks()
	if len(list) == 0 {
		return nil
	}
	runs := checks.RunChecks(ctx, b.env(), list, b.rec.iteration(), b.rec.store.Path(state.ChecksDir), b.cfg.CheckOutputChars)
	for _, r := range runs {
		verdict := "pass"
		if !r.Passed() {
			verdict = "fail"
			b.rec.sayf("check \"%s\" failed (exit: %d)", r.Command, r.Code)
		}
		timeout := ""
		if r.TimedOut {
			timeout = " timeout=" + seconds(b.cfg.CheckTimeout)
		}
		b.rec.log("CHECK", fmt.Sprintf("iteration %d %s exit=%d duration=%s%s check=%q", b.rec.iteration(), verdict, r.Code, checks.FormatDuration(r.Duration), timeout, r.Command))
	}
	b.rec.sayf("iteration %d checks: %s", b.rec.iteration(), checks.CheckSummary(runs))
	b.rec.st.AddChecks(checks.CheckRecords(b.rec.iteration(), runs))
	b.feedback = checks.Feedback(runs)
	b.checked, b.checksPassed = b.rec.iteration(), checks.AllPassed(runs)
	return runs
}

// checksPass judges a done signal found before an iteration: by the latest
// iteration's checks if they ran, else by running them now.
func (b *chores) checksPass(ctx context.Context) bool {
	if len(b.checks()) == 0 {
		return true
	}
	if b.checked != b.rec.iteration() {
		b.runChecks(ctx)
		b.rec.save()
	}
	return b.checksPassed
}

// checks are the checks that run after an iteration: --check, then the
// plan's verify commands.
func (b *chores) checks() []checks.Check {
	if len(b.verify) == 0 {
		return b.cfg.Checks
	}
	return append(append([]checks.Check(nil), b.cfg.Checks...), b.verify...)
}

// rejectDone goes on after a done signal whose checks failed. The done file
// is removed, or it would end every following iteration at once.
func (b *chores) rejectDone() {
	b.rec.sayf("done signal ignored: not all checks passed, going on")
	b.rec.log("CHECK", fmt.Sprintf("iteration %d done signal rejected: checks failed", b.rec.iteration()))
	if b.doneFileExists() {
		if err := os.Remove(b.cfg.DoneFile); err != nil {
			b.rec.warnf("remove done file: %v", err)
		}
	}
}

// restoreChecks takes the latest checks from a resumed loop's state.
func (b *chores) restoreChecks() {
	b.checked = -1
	last := b.rec.st.LastChecks()
	if last == nil {
		return
	}
	var runs []checks.CheckRun
	for _, r := range last.Results {
		runs = append(runs, checks.CheckRun{Check: checks.Check{Command: r.Command, Hint: r.Hint}, Code: r.ExitCode,
			TimedOut: r.TimedOut, Log: r.Log, Tail: checks.FileTail(r.Log, b.cfg.CheckOutputChars)})
	}
	b.feedback = checks.Feedback(runs)
	b.checked, b.checksPassed = last.Iteration, checks.AllPassed(runs)
}

// pauseFileSeen reports whether the pause file has appeared, and removes it
// so that resume goes on.
func (b *chores) pauseFileSeen() bool {
	if b.cfg.PauseFile == "" {
		return false
	}
	if _, err := os.Stat(b.cfg.PauseFile); err != nil {
		return false
	}
	if err := os.Remove(b.cfg.PauseFile); err != nil {
		b.rec.warnf("remove pause file: %v", err)
	}
	b.pauseFileFound = true
	return true
}

// noteChange counts the iterations in a row that changed neither HEAD nor
// the working tree; sinceBase: the iteration changed the work since the
// task's base (a fan's task carried on), which counts as its change.
func (b *chores) noteChange(sinceBase bool) {
	if b.cfg.StallLimit <= 0 || b.baseline == "" {
		return
	}
	now, err := gitwork.Fingerprint(b.cfg.Dir)
	if err != nil {
		return
	}
	n := b.rec.unchanged(now == b.baseline && !sinceBase)
	if n == 0 {
		return
	}
	b.rec.sayf("iteration %d changed nothing (%d/%d)", b.rec.iteration(), n, b.cfg.StallLimit)
	b.rec.log("STALL", fmt.Sprintf("iteration %d unchanged=%d/%d", b.rec.iteration(), n, b.cfg.StallLimit))
}

// appendProgress adds the iteration's section to the progress file.
func (b *chores) appendProgress(reason, code string, d time.Duration, runs []checks.CheckRun, task string) {
	if b.cfg.ProgressFile == "" {
		return
	}
	f, err := os.OpenFile(b.cfg.ProgressFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		b.rec.warnf("progress file: %v", err)
		return
	}
	defer f.Close()
	info, _ := f.Stat()
	text := checks.ProgressSection(b.rec.iteration(), b.rec.st.LastIterationStarted, d, code, reason, runs)
	if task != "" {
		text += "- Task: " + task + "\n"
	}
	if info != nil && info.Size() > 0 {
		text = "\n" + text
	}
	if _, err := f.WriteString(text); err != nil {
		b.rec.warnf("progress file: %v", err)
	}
}

// env is what checks and on-* commands are told about the loop. RALPH_STATE_DIR is
// the state root, as for ralph-watch itself: the loop's folder is
// $RALPH_STATE_DIR/$RALPH_NAME.
func (b *chores) env(extra ...string) checks.CheckEnv {
	return checks.CheckEnv{
		Dir:     b.cfg.Dir,
		Timeout: b.cfg.CheckTimeout,
		Clock:   b.clock,
		Env: append([]string{
			"RALPH_NAME=" + b.cfg.Name,
			"RALPH_ITERATION=" + strconv.Itoa(b.rec.iteration()),
			"RALPH_MAX_ITERATIONS=" + strconv.Itoa(b.cfg.MaxIterations),
			"RALPH_STATE_DIR=" + filepath.Dir(b.rec.store.Dir),
		}, extra...),
	}
}

// runOnCommand runs the person's on-* command which (on-done, on-fail,
// on-iteration-end), its output appended to hooks.log. One that
// fails or runs over is logged and warned about; it never stops the loop.
func (b *chores) runOnCommand(which, command string, exitCode, reason string) {
	if command == "" {
		return
	}
	env := b.env("RALPH_EXIT_CODE="+exitCode, "RALPH_REASON="+reason)
	header := fmt.Sprintf("%s [%s] iteration %d: %s", b.clock.Now().Format(time.RFC3339), which, b.rec.iteration(), command)
	logPath := b.rec.store.Path(state.OnCommandsLog)
	failed, err := checks.RunOnCommand(env, logPath, header, command)
	if err != nil {
		b.rec.warnf("open hooks log: %v", err)
		return
	}
	if failed == "" {
		return
	}
	b.rec.log("HOOK", fmt.Sprintf("iteration %d %s failed %s", b.rec.iteration(), which, failed))
	b.rec.warnf("%s hook failed (%s); see %s", which, failed, logPath)
}

// commit commits every change after an iteration whose checks passed, its
// message naming the task and verdict (task, verdict: see taskPlan.forCommit);
// outside git it only warns, once. A change that is only the loop's own edit
// of the plan (planEdited: it reopened or put back a mark) is no commit.
func (b *chores) commit(runs []checks.CheckRun, task, verdict string, planEdited bool) {
	if !b.cfg.Commit {
		return
	}
	if !gitwork.InGitRepo(b.cfg.Dir) {
		if !b.commitWarned {
			b.rec.warnf("--commit: %s is not in a git repository; nothing is committed", b.cfg.Dir)
			b.commitWarned = true
		}
		return
	}
	if planEdited && gitwork.OnlyChanged(b.cfg.Dir, b.cfg.TasksFile) {
		b.rec.log("COMMIT", fmt.Sprintf("iteration %d not committed: only the loop's own edit of the plan changed", b.rec.iteration()))
		return
	}
	committed, err := gitwork.Commit(b.cfg.Dir, checks.CommitMessage(b.cfg.Name, b.rec.iteration(), task, verdict, runs))
	switch {
	case err != nil:
		b.rec.warnf("commit iteration %d: %v", b.rec.iteration(), err)
		b.rec.log("COMMIT", fmt.Sprintf("iteration %d failed", b.rec.iteration()))
	case committed:
		b.rec.log("COMMIT", fmt.Sprintf("iteration %d committed", b.rec.iteration()))
	}
}

func (b *chores) doneFileExists() bool {
	if b.cfg.DoneFile == "" {
		return false
	}
	_, err := os.Stat(b.cfg.DoneFile)
	return err == nil
}

// Check says, while an iteration runs, whether the done file or the pause
// file ends it (an iteration.Interrupt).
func (b *chores) Check() (iteration.Ending, bool) {
	switch {
	case b.doneFileExists():
		return iteration.EndDoneFile, true
	case b.pauseFileSeen():
		return iteration.EndPaused, true
	}
	return iteration.EndNone, false
}
