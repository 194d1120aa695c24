package watch

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
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
	if allPassed(runs) {
		l.commit(runs)
	}
	l.save()
	l.hook("on-iteration-end", l.OnIterationEnd, code, reason)
	return allPassed(runs)
}

// endReason names how an iteration ended, for the progress file and hooks.
func endReason(it outcome) string {
	if it.match != "" {
		return "done_pattern"
	}
	switch it.ending {
	case endDoneFile:
		return "done_file"
	case endInactivity:
		return "inactivity_timeout"
	case endTimeout:
		return "iteration_timeout"
	}
	return "exit"
}

// runChecks runs the checks after an iteration, records and reports them,
// and keeps their failures for the next prompt.
func (l *Loop) runChecks(ctx context.Context) []CheckRun {
	l.feedback = ""
	if len(l.Checks) == 0 {
		return nil
	}
	runs := RunChecks(ctx, l.env(), l.Checks, l.iteration, l.Store.Path("checks"), l.CheckOutputChars)
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
		l.log("CHECK", fmt.Sprintf("iteration %d %s exit=%d duration=%s%s check=%q", l.iteration, verdict, r.Code, FormatDuration(r.Duration), timeout, r.Command))
	}
	l.sayf("iteration %d checks: %s", l.iteration, CheckSummary(runs))
	l.st.AddChecks(CheckRecords(l.iteration, runs))
	l.feedback = Feedback(runs)
	l.checked, l.checksPassed = l.iteration, allPassed(runs)
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
	var runs []CheckRun
	for _, r := range last.Results {
		runs = append(runs, CheckRun{Check: Check{Command: r.Command, Hint: r.Hint}, Code: r.ExitCode,
			TimedOut: r.TimedOut, Log: r.Log, Tail: fileTail(r.Log, l.CheckOutputChars)})
	}
	l.feedback = Feedback(runs)
	l.checked, l.checksPassed = last.Iteration, allPassed(runs)
}

// fileTail is the end of a check's saved output, as TailText makes it.
func fileTail(path string, maxChars int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	keep := int64(4*maxChars + 4)
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	cut := info.Size() > keep
	if cut {
		f.Seek(-keep, io.SeekEnd)
	}
	data, _ := io.ReadAll(f)
	return TailText(data, cut, maxChars)
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
	now, err := Fingerprint(l.Dir)
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
func (l *Loop) appendProgress(reason, code string, d time.Duration, runs []CheckRun) {
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
	text := ProgressSection(l.iteration, l.st.LastIterationStarted, d, code, reason, runs)
	if info != nil && info.Size() > 0 {
		text = "\n" + text
	}
	if _, err := f.WriteString(text); err != nil {
		l.warnf("progress file: %v", err)
	}
}

// ProgressSection is one iteration's section of the progress file.
func ProgressSection(iteration int, started string, d time.Duration, code, reason string, runs []CheckRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Iteration %d\n\n", iteration)
	if started != "" {
		fmt.Fprintf(&b, "- Started: %s\n", started)
	}
	fmt.Fprintf(&b, "- Duration: %s\n", FormatDuration(d))
	if code == "" {
		code = "none (the agent had not exited)"
	}
	fmt.Fprintf(&b, "- Exit: %s\n", code)
	fmt.Fprintf(&b, "- Ended by: %s\n", reason)
	if len(runs) == 0 {
		b.WriteString("- Checks: none\n")
		return b.String()
	}
	fmt.Fprintf(&b, "- Checks: %s\n", CheckSummary(runs))
	for _, r := range runs {
		if r.Passed() {
			fmt.Fprintf(&b, "  - pass: `%s`\n", r.Command)
		} else {
			fmt.Fprintf(&b, "  - fail (exit %d): `%s`\n", r.Code, r.Command)
		}
	}
	return b.String()
}
