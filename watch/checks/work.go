package checks

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Settings are what the work between iterations reads of the loop's
// settings, fixed once the loop has taken its places (a resumed loop's are
// its first run's); the iteration limit, which set changes, comes in At.
type Settings struct {
	Name         string
	Dir          string        // the folder the loop works in
	Checks       []Check       // --check, in order
	Timeout      time.Duration // --check-timeout
	OutputChars  int           // --check-output-chars
	StateRoot    string        // RALPH_STATE_DIR: the loop's folder is StateRoot/Name
	ChecksDir    string        // where each check's output is kept
	HooksLog     string        // where the on-* commands' output goes
	ProgressFile string        // "": none
	Commits      bool          // --commit: each iteration whose checks pass is committed
	TasksFile    string        // the plan, whose own edit by the loop is no commit
	StallLimit   int           // 0: the tree is not watched
	Clock        clock.Clock
}

// Told is one line the work has to tell, handed to the loop's record:
// said to the person, a warning, or (Event set) an entry of the loop's log.
type Told struct {
	Event string // "": said, or a warning
	Warn  bool
	Text  string
}

func say(format string, args ...any) Told { return Told{Text: fmt.Sprintf(format, args...)} }
func warn(format string, args ...any) Told {
	return Told{Warn: true, Text: fmt.Sprintf(format, args...)}
}
func logged(event, format string, args ...any) Told {
	return Told{Event: event, Text: fmt.Sprintf(format, args...)}
}

// At is where the loop is when the work runs: the iteration, and the
// iteration limit in force (set may change it meanwhile).
type At struct {
	Iteration     int
	MaxIterations int
}

// Latest is how the latest checks went: for the next prompt, and to judge
// a done signal found before an iteration.
type Latest struct {
	Iteration int    // the iteration they ran after; -1: none
	Passed    bool   // all of them
	Feedback  string // their failures, for the next prompt
}

// Work is the loop's work between two iterations (the checks, the
// progress file, the commit, the on-* commands, the stall's baseline) and
// what it keeps of it from one iteration to the next. It holds no other
// part of the loop: the iteration and the plan's verify commands come as
// arguments, and what is to be said, logged or recorded comes back as values.
type Work struct {
	Settings
	Latest       Latest
	baseline     string // the working tree's fingerprint when the iteration started; "": unknown
	commitWarned bool
}

// NewWork is the work of a loop with settings s, no checks run yet.
func NewWork(s Settings) *Work { return &Work{Settings: s, Latest: Latest{Iteration: -1}} }

// Ran is what running the checks after an iteration gives the loop.
type Ran struct {
	Runs   []CheckRun
	Record state.Checks // for the loop's record
	Told   []Told
}

// List is the checks that run after an iteration: --check, then the plan's
// verify commands.
func (w *Work) List(verify []Check) []Check {
	if len(verify) == 0 {
		return w.Checks
	}
	return append(append([]Check(nil), w.Checks...), verify...)
}

// Run runs the checks after the iteration at and keeps their failures for the
// next prompt; nil when there are none to run.
func (w *Work) Run(ctx context.Context, at At, verify []Check) *Ran {
	n := at.Iteration
	w.Latest.Feedback = ""
	list := w.List(verify)
	if len(list) == 0 {
		return nil
	}
	runs := RunChecks(ctx, w.env(at), list, n, w.ChecksDir, w.OutputChars)
	ran := &Ran{Runs: runs, Record: CheckRecords(n, runs)}
	for _, r := range runs {
		verdict := "pass"
		if !r.Passed() {
			verdict = "fail"
			ran.Told = append(ran.Told, say("check \"%s\" failed (exit: %d)", r.Command, r.Code))
		}
		timeout := ""
		if r.TimedOut {
			timeout = fmt.Sprintf(" timeout=%ds", int(w.Timeout/time.Second))
		}
		ran.Told = append(ran.Told, logged("CHECK", "iteration %d %s exit=%d duration=%s%s check=%q", n, verdict, r.Code, FormatDuration(r.Duration), timeout, r.Command))
	}
	ran.Told = append(ran.Told, say("iteration %d checks: %s", n, CheckSummary(runs)))
	w.Latest = Latest{Iteration: n, Passed: AllPassed(runs), Feedback: Feedback(runs)}
	return ran
}

// Pass judges a done signal found before an iteration: by the latest
// checks if they ran after the iteration at, else by running them now (ran: what that
// run gives the loop, nil when none ran).
func (w *Work) Pass(ctx context.Context, at At, verify []Check) (passed bool, ran *Ran) {
	if len(w.List(verify)) == 0 {
		return true, nil
	}
	if w.Latest.Iteration != at.Iteration {
		ran = w.Run(ctx, at, verify)
	}
	return w.Latest.Passed, ran
}

// Restore takes the latest checks from a resumed loop's record (nil: none).
func (w *Work) Restore(last *state.Checks) {
	w.Latest = Latest{Iteration: -1}
	if last == nil {
		return
	}
	var runs []CheckRun
	for _, r := range last.Results {
		runs = append(runs, CheckRun{Check: Check{Command: r.Command, Hint: r.Hint}, Code: r.ExitCode,
			TimedOut: r.TimedOut, Log: r.Log, Tail: FileTail(r.Log, w.OutputChars)})
	}
	w.Latest = Latest{Iteration: last.Iteration, Passed: AllPassed(runs), Feedback: Feedback(runs)}
}

// RejectDone goes on after a done signal whose checks failed at iteration
// n: the done file (doneFile, "": none) is removed, or it would end every
// following iteration at once.
func RejectDone(n int, doneFile string) []Told {
	told := []Told{
		say("done signal ignored: not all checks passed, going on"),
		logged("CHECK", "iteration %d done signal rejected: checks failed", n),
	}
	if FileSeen(doneFile) {
		if err := os.Remove(doneFile); err != nil {
			told = append(told, warn("remove done file: %v", err))
		}
	}
	return told
}

// FileSeen reports whether the file at path ("": none) is there: the done
// file, the pause file. It changes nothing.
func FileSeen(path string) bool {
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}

// RemovePauseFile removes the pause file once the loop has paused for it,
// so that resume goes on.
func RemovePauseFile(path string) []Told {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return []Told{warn("remove pause file: %v", err)}
	}
	return nil
}

// NoteBaseline notes the working tree before an iteration, to tell whether
// the iteration changes it (--stall-limit).
func (w *Work) NoteBaseline() {
	w.baseline = ""
	if w.StallLimit > 0 {
		w.baseline, _ = gitwork.Fingerprint(w.Dir)
	}
}

// Unchanged reports whether the iteration changed neither HEAD nor the
// working tree since NoteBaseline; known is false when that cannot be told.
func (w *Work) Unchanged() (same, known bool) {
	if w.StallLimit <= 0 || w.baseline == "" {
		return false, false
	}
	now, err := gitwork.Fingerprint(w.Dir)
	if err != nil {
		return false, false
	}
	return now == w.baseline, true
}

// Stalled tells that iteration n is the unchanged-th in a row to change
// nothing (nothing when unchanged is 0).
func (w *Work) Stalled(n, unchanged int) []Told {
	if unchanged == 0 {
		return nil
	}
	return []Told{
		say("iteration %d changed nothing (%d/%d)", n, unchanged, w.StallLimit),
		logged("STALL", "iteration %d unchanged=%d/%d", n, unchanged, w.StallLimit),
	}
}

// AppendProgress adds iteration n's section (started: when it started, as
// the record has it) to the progress file.
func (w *Work) AppendProgress(n int, started, reason, code string, d time.Duration, runs []CheckRun, task string) []Told {
	if w.ProgressFile == "" {
		return nil
	}
	f, err := os.OpenFile(w.ProgressFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return []Told{warn("progress file: %v", err)}
	}
	defer f.Close()
	info, _ := f.Stat()
	text := ProgressSection(n, started, d, code, reason, runs)
	if task != "" {
		text += "- Task: " + task + "\n"
	}
	if info != nil && info.Size() > 0 {
		text = "\n" + text
	}
	if _, err := f.WriteString(text); err != nil {
		return []Told{warn("progress file: %v", err)}
	}
	return nil
}

// env is what checks and on-* commands are told about the loop where it is. RALPH_STATE_DIR is the state root, as for ralph-watch
// itself: the loop's folder is $RALPH_STATE_DIR/$RALPH_NAME.
func (w *Work) env(at At, extra ...string) CheckEnv {
	return CheckEnv{
		Dir:     w.Dir,
		Timeout: w.Timeout,
		Clock:   w.Clock,
		Env: append([]string{
			"RALPH_NAME=" + w.Name,
			"RALPH_ITERATION=" + strconv.Itoa(at.Iteration),
			"RALPH_MAX_ITERATIONS=" + strconv.Itoa(at.MaxIterations),
			"RALPH_STATE_DIR=" + w.StateRoot,
		}, extra...),
	}
}

// OnCommand runs the person's on-* command which (on-done, on-fail,
// on-iteration-end) where the loop is, its output appended to the hooks log.
// One that fails or runs over is logged and warned about; it never stops
// the loop.
func (w *Work) OnCommand(at At, which, command, exitCode, reason string) []Told {
	n := at.Iteration
	if command == "" {
		return nil
	}
	env := w.env(at, "RALPH_EXIT_CODE="+exitCode, "RALPH_REASON="+reason)
	header := fmt.Sprintf("%s [%s] iteration %d: %s", w.Clock.Now().Format(time.RFC3339), which, n, command)
	failed, err := RunOnCommand(env, w.HooksLog, header, command)
	if err != nil {
		return []Told{warn("open hooks log: %v", err)}
	}
	if failed == "" {
		return nil
	}
	return []Told{
		logged("HOOK", "iteration %d %s failed %s", n, which, failed),
		warn("%s hook failed (%s); see %s", which, failed, w.HooksLog),
	}
}

// Commit commits every change after iteration n whose checks passed, its
// message naming the task and verdict; outside git it only warns, once. A
// change that is only the loop's own edit of the plan (planEdited: it
// reopened or put back a mark) is no commit.
func (w *Work) Commit(n int, runs []CheckRun, task, verdict string, planEdited bool) []Told {
	if !w.Commits {
		return nil
	}
	if !gitwork.InGitRepo(w.Dir) {
		if w.commitWarned {
			return nil
		}
		w.commitWarned = true
		return []Told{warn("--commit: %s is not in a git repository; nothing is committed", w.Dir)}
	}
	if planEdited && gitwork.OnlyChanged(w.Dir, w.TasksFile) {
		return []Told{logged("COMMIT", "iteration %d not committed: only the loop's own edit of the plan changed", n)}
	}
	committed, err := gitwork.Commit(w.Dir, CommitMessage(w.Name, n, task, verdict, runs))
	switch {
	case err != nil:
		return []Told{warn("commit iteration %d: %v", n, err), logged("COMMIT", "iteration %d failed", n)}
	case committed:
		return []Told{logged("COMMIT", "iteration %d committed", n)}
	}
	return nil
}
