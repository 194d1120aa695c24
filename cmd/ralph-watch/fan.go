package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// fanFlags are run's flags, for every loop of the fan, and the fan's own.
type fanFlags struct {
	run           *config.Run
	max           int
	into          string
	mergeAttempts int
	detach        bool
}

// notForFan are run's flags a fan has not: it gives each loop its pane,
// worktree and task, and runs in the foreground.
var notForFan = map[string]bool{"t": true, "target": true, "task": true, "worktree": true, "detach": true,
	"replace": true, "clean-state": true, "no-run": true,
	// goal mode is a loop's: a fan's loops each work one task of the plan
	"goal": true, "goal-file": true, "judge": true, "judge-every": true, "judge-prompt-mode": true,
	"judge-timeout": true, "judge-patience": true, "protect": true, "no-protect": true}

// fanOnly are the fan's flags its loops are not given.
var fanOnly = map[string]bool{"name": true, "tasks": true, "L": true, "S": true, "socket-name": true,
	"socket-path": true, "max": true, "into": true, "merge-attempts": true, "detach": true}

func fanCommand(e env) *ffcli.Command {
	f, runFS := config.NewRun()
	ff := &fanFlags{run: f}
	fs := flag.NewFlagSet("fan", flag.ContinueOnError)
	runFS.VisitAll(func(fl *flag.Flag) {
		if !notForFan[fl.Name] {
			fs.Var(fl.Value, fl.Name, fl.Usage)
		}
	})
	fs.Lookup("name").Usage = "the fan's name: its tmux session, branch and record (default the plan's folder and -fan)"
	fs.Lookup("tasks").Usage = "the plan its loops share: Markdown checkboxes, tasks.json or prd.json"
	fs.IntVar(&ff.max, "max", 2, "loops at once, each a window in the fan's session")
	fs.StringVar(&ff.into, "into", "", "branch the tasks land on (default ralph/fan-NAME, made from the current commit)")
	fs.IntVar(&ff.mergeAttempts, "merge-attempts", 2, "landings a task gets (each failed one goes back to its loop) before it needs review")
	fs.BoolVar(&ff.detach, "detach", false, "run the fan in the background and return once it runs (its log: the fan's fan.log)")
	return &ffcli.Command{
		Name:       "fan",
		ShortUsage: "ralph-watch fan --tasks FILE [--max N] [--detach] [run flags] -- COMMAND [ARG...]",
		ShortHelp:  "run several loops on one plan, landed one at a time by a merge queue (blocks; --detach returns)",
		LongHelp: strings.TrimSpace(`
Run up to --max loops on one plan, each a window of the tmux session NAME
(--name, default the plan's folder and -fan: myproj-fan), each in its own
git worktree and branch (ralph/fan-NAME-TASK). A loop takes the next open task nobody holds (claimed
under the fan's lock), works it as run --tasks --task does, and ends when it
is done; two tasks whose "touches: glob, ..." lines meet never run at once.

The merge queue lands each finished task alone onto the fan's branch
(ralph/fan-NAME from the current commit; --into BRANCH): the task's commits
rebased onto the branch's tip, its box ticked, every --check run there, then a
fast-forward. A conflict or a failed check goes back to a loop on the task
as a note; after --merge-attempts the task waits for review. Only the files
the loop changed land; nothing is forced; no branch of yours is checked out
or moved but --into. The fan's record is in the state folder, fans/NAME:
start the fan again to take it up.

A loop whose watcher dies is taken up again in its window, its agent left
at work. A loop that fails (its window closed, say) is a failed try: the
task goes to a new loop, and is skipped after --task-attempts failed loops.

The fan blocks; --detach runs it in the background, its lines in the fan's
log. Interrupted (^C), it says which loops run on: 'ralph-watch restore
NAME' takes it up.

Exit status: 0 every task landed, 1 failed, 2 usage error, 3 a task skipped
or waiting for review, 130 interrupted.

Examples:
  ralph-watch fan --tasks IMPLEMENTATION_PLAN.md --max 3 --check 'go test ./...' -- claude -p
  ralph-watch status fan-web`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			return runFan(ctx, e, ff, fs, args)
		},
	}
}

func runFan(ctx context.Context, e env, ff *fanFlags, fs *flag.FlagSet, command []string) error {
	f := ff.run
	if len(command) == 0 {
		return control.Errorf(contract.ExitUsage, "fan needs a command to loop: ralph-watch fan --tasks FILE -- COMMAND")
	}
	if f.TasksFile == "" {
		return control.Errorf(contract.ExitUsage, "fan needs --tasks FILE: the plan its loops share")
	}
	if ff.max < 1 || ff.mergeAttempts < 1 {
		return control.Errorf(contract.ExitUsage, "--max and --merge-attempts must be at least 1")
	}
	planPath, err := filepath.Abs(f.TasksFile)
	if err != nil {
		return control.Errorf(contract.ExitUsage, "tasks file: %v", err)
	}
	if _, _, err := plan.Load(planPath); err != nil {
		return control.Errorf(contract.ExitUsage, "tasks file: %v", err)
	}
	dir := filepath.Dir(planPath)
	if !gitwork.InGitRepo(dir) {
		return control.Errorf(contract.ExitUsage, "fan needs a git repository: %s is not in one", dir)
	}
	repo, err := gitTop(dir)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	planRel, _ := filepath.Rel(repo, planPath)
	if out, err := gitwork.Run(repo, "status", "--porcelain", "--", planRel); err == nil && len(out) > 0 {
		return control.Errorf(contract.ExitUsage, "commit the plan %s first: the fan reads it, and ticks it, on its branch", planRel)
	}
	name := f.Config.Name
	if name == "" {
		name = control.NameFrom(filepath.Base(dir), "fan")
	}
	if !control.ValidName(name) {
		return control.Errorf(contract.ExitUsage, "fan name %q: use [A-Za-z0-9._-], at most 64", name)
	}
	fanDir := fan.Dir(state.Root(e.Getenv), name)
	if err := os.MkdirAll(fanDir, 0o700); err != nil {
		return control.Errorf(contract.ExitUsage, "%v", state.Unwritable(fanDir, err))
	}
	held := &state.Store{Dir: fanDir}
	if err := held.Lock(); err != nil {
		return control.Errorf(contract.ExitUsage, "fan '%s' is already running", name)
	}
	defer held.Unlock()
	gitwork.IgnoreOwn(repo) // its worktrees and the queue's are nobody's files in the person's checkout
	s, err := openFan(fanDir, name, repo, planRel, ff)
	if err != nil {
		return err
	}
	s.PID, s.Flags = os.Getpid(), flagLimits(f)
	if err := s.Save(fanDir); err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	if ff.detach { // its record made: the fan in the background takes it up
		held.Unlock()
		return detachFan(e, fanDir, name, serverArgs(f))
	}
	// A closed pipe (fan | head) ends no landing: the log has every line.
	// Notified, not ignored: the checks and loops it starts get SIGPIPE as ever.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt)
	defer signal.Stop(interrupted)
	out := shownAndLogged(e.Stdout, fan.LogPath(fanDir))
	tm := tmuxArgs(f, e)
	panes := map[int]string{}
	exe, err := e.Executable()
	if err != nil {
		return control.Errorf(contract.ExitFailed, "find own executable: %v", err)
	}
	pass := passFlags(fs, f)
	r := &fan.Runner{Dir: fanDir, State: s, Checks: checkCommands(f), MergeAttempts: ff.mergeAttempts,
		TaskAttempts: f.Config.TaskAttempts, Out: out}
	r.Start = func(t fan.Task, note, base string) (<-chan int, error) {
		pane, err := fanPane(tm, name, t.Slot, t.Worktree, panes)
		if err != nil {
			return nil, err
		}
		if err := leaveNotes(state.Root(e.Getenv), t, note); err != nil {
			return nil, err
		}
		args := append([]string{"run"}, tm...)
		args = append(args, "-t", pane, "--name", t.Loop, "--tasks", filepath.Join(t.Worktree, planRel), "--task", t.ID)
		args = append(append(append(append(args, pass...), limitArgs(s.Set)...), "--"), command...)
		log, err := os.OpenFile(filepath.Join(fanDir, t.Loop+".log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(exe, args...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = t.Worktree, log, log
		cmd.Env = append(os.Environ(), "RALPH_DETACH=false", "TMUX_PANE=", control.TaskBaseEnv+"="+base)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // the fan stopped, its loops go on: a fan started again takes them up
		if err := cmd.Start(); err != nil {
			log.Close()
			return nil, fmt.Errorf("start loop %s: %w", t.Loop, err)
		}
		ch := make(chan int, 1)
		go func() {
			_ = cmd.Wait()
			log.Close()
			ch <- cmd.ProcessState.ExitCode()
		}()
		return ch, nil
	}
	line, err := fanWindow(tm, name, repo, fan.LogPath(fanDir))
	if err != nil {
		return control.Errorf(contract.ExitFailed, "fan %s: %v", name, err)
	}
	if err := recordRestart(s, tm, fs, ff, planPath, command); err != nil {
		return control.Errorf(contract.ExitFailed, "fan %s: %v", name, err)
	}
	if err := s.Save(fanDir); err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	r.Shown = func(s *fan.State) { line(s, contract.StatusRunning, "") }
	r.Adopt = func(t fan.Task) (<-chan int, bool) {
		pane := func() (string, error) { return fanPane(tm, name, t.Slot, t.Worktree, panes) }
		if err := reviveLoop(e, t.Loop, pane, r.Out); err != nil {
			fmt.Fprintf(r.Out, "[ralph] %s: loop %s cannot be brought back: %v\n", name, t.Loop, err)
			return nil, false
		}
		return adoptLoop(state.Root(e.Getenv), t.Loop)
	}
	r.Gone = func() bool { return !hasSession(tm, name) }
	r.Inspect = func(t fan.Task, code int) fan.End { return loopEnd(state.Root(e.Getenv), t.Loop, code) }
	fmt.Fprintf(out, "[ralph] %s: fan of %d loops on %s, landing on %s (watch it with: tmux%s attach -t %s)\n",
		name, ff.max, planRel, s.Into, serverArgs(f), name)
	err = r.Run(ctx)
	switch {
	case errors.Is(err, fan.ErrGone):
		return control.Errorf(contract.ExitFailed, "fan %s: %v; 'ralph-watch restore' brings the fan back", name, err)
	case err != nil && ctx.Err() != nil:
		if len(interrupted) > 0 { // the person's ^C, not a stop (SIGTERM), which ends the loops too
			line(s, contract.StatusStopped, contract.ReasonInterrupted)
			fmt.Fprintln(out, leftRunning(s))
		} else {
			line(s, contract.StatusStopped, contract.ReasonStopped)
		}
		return control.Errorf(contract.ExitInterrupted, "")
	case err != nil:
		line(s, contract.StatusFailed, "")
		return control.Errorf(contract.ExitFailed, "fan %s: %v", name, err)
	}
	line(s, contract.StatusRunning, "") // it ended: done
	total, landed, review, _ := s.Counts()
	fmt.Fprintf(r.Out, "[ralph] %s: %d of %d tasks landed on %s", name, landed, total, s.Into)
	if review > 0 {
		fmt.Fprintf(r.Out, ", %d waiting for review", review)
	}
	fmt.Fprintln(r.Out)
	if landed < total {
		return control.Errorf(contract.ExitLimit, "")
	}
	return nil
}

// leaveNotes leaves a new loop on t its first notes: the fan's own (why
// its task came back) and the person's (sticky ones, once ones waiting).
func leaveNotes(root string, t fan.Task, note string) error {
	if note == "" && len(t.Notes) == 0 {
		return nil
	}
	store, err := state.Open(root, t.Loop)
	if err != nil {
		return err
	}
	now := time.Now()
	if note != "" {
		if _, err := store.Steer(state.Steer{Kind: state.SteerNote, Text: note}, now); err != nil {
			return fmt.Errorf("leave a note for %s: %w", t.Loop, err)
		}
	}
	for _, n := range t.Notes {
		if _, err := store.Steer(state.Steer{Kind: state.SteerNote, Text: n.Text, Sticky: n.Sticky, Made: n.Made}, now); err != nil {
			return fmt.Errorf("leave a note for %s: %w", t.Loop, err)
		}
	}
	return nil
}

// flagLimits are the limits the fan's flags give its loops.
func flagLimits(f *config.Run) state.Limits {
	c := f.Config
	secs := func(d time.Duration) *int { n := int(d / time.Second); return &n }
	iterations, attempts := c.MaxIterations, c.TaskAttempts
	tokens, cost := c.Budget.Tokens, c.Budget.CostUSD
	return state.Limits{MaxIterations: &iterations, MaxTime: secs(c.MaxTime), MaxTokens: &tokens, MaxCostUSD: &cost,
		InactivityTimeout: secs(c.InactivityTimeout), IterationTimeout: secs(c.IterationTimeout), TaskAttempts: &attempts}
}

// limitArgs are the flags that start a loop with the limits set on its fan
// (after the fan's own flags: the later one counts).
func limitArgs(l *state.Limits) []string {
	if l.Empty() {
		return nil
	}
	var out []string
	add := func(name string, v any) { out = append(out, fmt.Sprintf("--%s=%v", name, v)) }
	if l.MaxIterations != nil {
		add("max-iterations", *l.MaxIterations)
	}
	if l.MaxTime != nil {
		add("max-time", *l.MaxTime)
	}
	if l.MaxTokens != nil {
		add("max-tokens", *l.MaxTokens)
	}
	if l.MaxCostUSD != nil {
		add("max-cost", *l.MaxCostUSD)
	}
	if l.InactivityTimeout != nil {
		add("inactivity-timeout", *l.InactivityTimeout)
	}
	if l.IterationTimeout != nil {
		add("iteration-timeout", *l.IterationTimeout)
	}
	if l.TaskAttempts != nil {
		add("task-attempts", *l.TaskAttempts)
	}
	return out
}

// adoptLoop follows a loop the fan started and lost sight of (a fan
// started again, a loop interrupted or paused): until it has ended and no
// watcher holds it, then its end (0: its task done). A loop that ended
// unfinished is not taken up.
func adoptLoop(root, name string) (<-chan int, bool) {
	l, err := control.Find(root, name)
	if err != nil {
		return nil, false
	}
	ended := func(st *state.State) bool { return st.Status == state.Stopped || st.Status == state.Failed }
	code := func(st *state.State) int {
		if st.ExitReason != nil && *st.ExitReason == string(contract.ReasonTasksDone) {
			return 0
		}
		return contract.ExitLimit
	}
	ch := make(chan int, 1)
	if !l.Watched && ended(l.State) {
		if code(l.State) != 0 {
			return nil, false
		}
		ch <- 0
		return ch, true
	}
	if !l.Watched && l.State.Status == state.Running { // its watcher died and none was started again
		return nil, false
	}
	go func() {
		for {
			st, err := l.Store.Load()
			if err != nil {
				ch <- contract.ExitFailed
				return
			}
			if watched := l.Store.Locked(); !watched && ended(st) {
				ch <- code(st)
				return
			} else if !watched && st.Status == state.Running {
				ch <- -1 // its watcher died at work
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	return ch, true
}

// loopEnd is how the loop name ended with exit status code: its watcher
// lost with its pane at work, its pane closed, its task's tries spent.
func loopEnd(root, name string, code int) fan.End {
	end := fan.End{Code: code}
	l, err := control.Find(root, name)
	if err != nil {
		return end
	}
	switch reason := contract.ReasonOf(l.State); {
	case reason == contract.ReasonPaneClosed:
		end.Closed = true
	case l.State.Status == state.Running && !l.Watched: // killed, its state as it was at work
		end.Lost = !control.PaneGone(l)
		end.Closed = !end.Lost
	case reason == contract.ReasonTasksSkipped:
		end.Spent = true
	}
	return end
}

// openFan takes up the fan's record, or starts one: its branch made from
// the current commit unless --into names one.
func openFan(dir, name, repo, planRel string, ff *fanFlags) (*fan.State, error) {
	old, err := fan.Load(dir)
	if err == nil && !old.Ended {
		old.Max, old.Stopped = ff.max, false
		return old, nil
	}
	base, err := fan.Rev(repo, "HEAD")
	if err != nil {
		return nil, control.Errorf(contract.ExitUsage, "fan needs a commit to start from: %v", err)
	}
	into := ff.into
	if into == "" {
		into = "ralph/fan-" + name
	}
	if wt := fan.CheckedOut(repo, into); wt != "" {
		return nil, control.Errorf(contract.ExitUsage, "--into %s: it is checked out in %s; the queue moves only a branch nobody works in", into, wt)
	}
	if err := fan.EnsureBranch(repo, into, base); err != nil {
		return nil, control.Errorf(contract.ExitFailed, "make branch %s: %v", into, err)
	}
	s := &fan.State{Name: name, Repo: repo, Plan: planRel, Into: into, Base: base, Max: ff.max}
	if old != nil { // an ended fan's tasks start again; their loops' names go on from its tries, its sticky notes for them
		s.Notes = slices.DeleteFunc(old.Notes, func(n state.Note) bool { return !n.Sticky })
		for _, t := range old.Tasks {
			if t.State != fan.Landed {
				s.Tasks = append(s.Tasks, fan.Task{ID: t.ID, Title: t.Title, State: fan.Open, Tries: t.Tries})
			}
		}
	}
	return s, s.Save(dir)
}

// fanPane is a new pane for a slot's next loop, the session's window
// loop-N in the task's worktree, in place of the slot's last one.
func fanPane(tm []string, session string, slot int, dir string, panes map[int]string) (string, error) {
	tmux := func(args ...string) (string, error) { return fanTmux(tm, args...) }
	window := "loop-" + strconv.Itoa(slot)
	if _, ok := panes[slot]; !ok { // a fan taken up again finds its windows
		if pane, err := tmux("list-panes", "-t", "="+session+":"+window, "-F", "#{pane_id}"); err == nil && pane != "" {
			panes[slot] = strings.Fields(pane)[0]
		}
	}
	if pane, ok := panes[slot]; ok { // a fresh pane for each loop: nothing of the last one's is left in it
		_, _ = tmux("kill-pane", "-t", pane)
		delete(panes, slot)
	}
	var pane string
	var err error
	if _, has := tmux("has-session", "-t", "="+session); has != nil {
		pane, err = tmux("new-session", "-d", "-s", session, "-n", window, "-c", dir, "-P", "-F", "#{pane_id}")
	} else {
		pane, err = tmux("new-window", "-d", "-t", "="+session+":", "-n", window, "-c", dir, "-P", "-F", "#{pane_id}")
	}
	if err == nil {
		panes[slot] = pane
	}
	return pane, err
}

// fanWindow makes the fan's session with its window "fan", which shows
// the fan's log; the pane's status options put the fan on the status line.
// It returns what shows the record there: running while the fan's process
// works (done once it ended), else end and why its process ended.
func fanWindow(tm []string, session, dir, log string) (func(*fan.State, contract.Status, contract.Reason), error) {
	tmux := func(args ...string) (string, error) { return fanTmux(tm, args...) }
	if f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		f.Close()
	}
	tail := "tail -n +1 -F " + config.QuoteWord(log)
	pane, err := tmux("list-panes", "-t", "="+session+":fan", "-F", "#{pane_id}")
	switch {
	case err == nil && pane != "":
		pane = strings.Fields(pane)[0]
	case !hasSession(tm, session):
		pane, err = tmux("new-session", "-d", "-s", session, "-n", "fan", "-c", dir, "-P", "-F", "#{pane_id}", tail)
	default:
		pane, err = tmux("new-window", "-d", "-t", "="+session+":", "-n", "fan", "-c", dir, "-P", "-F", "#{pane_id}", tail)
	}
	if err != nil {
		return nil, err
	}
	return func(s *fan.State, end contract.Status, why contract.Reason) {
		st, line := contract.StatusRunning, s.Line()
		switch {
		case s.Ended:
			st = contract.StatusDone
		case end != contract.StatusRunning: // its process ends with the fan unfinished: the window says how
			total, landed, _, _ := s.Counts()
			label := string(why)
			if label == "" {
				label = end.String()
			}
			st, line = end, fmt.Sprintf("%s %s · %d/%d landed", end.Mark(), label, landed, total)
		}
		for _, o := range [][2]string{{contract.OptionName, s.Name}, {contract.OptionState, st.String()}, {contract.OptionStatus, line}, {contract.OptionFan, "1"}} {
			_, _ = tmux("set-option", "-p", "-t", pane, o[0], o[1])
		}
	}, nil
}

func hasSession(tm []string, session string) bool {
	_, err := fanTmux(tm, "has-session", "-t", "="+session)
	return err == nil
}

// fanTmux runs tmux on the fan's server; its output trimmed.
func fanTmux(tm []string, args ...string) (string, error) {
	out, err := exec.Command("tmux", append(append([]string(nil), tm...), args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// leftRunning is what a fan interrupted leaves, and how to take it up.
func leftRunning(s *fan.State) string {
	var loops []string
	for _, t := range s.Tasks {
		if t.State == fan.Working {
			loops = append(loops, t.Loop)
		}
	}
	left := "no loop at work"
	if len(loops) > 0 {
		left = fmt.Sprintf("its %d loops run on (%s)", len(loops), strings.Join(loops, ", "))
	}
	return fmt.Sprintf("[ralph] %s: interrupted: %s, and nothing lands until the fan is taken up: 'ralph-watch restore %s' runs it in the background (as fan --detach does), or start it again with the same command",
		s.Name, left, s.Name)
}

// detachFan starts the fan again in the background, in its own session,
// and returns once it holds its record: its lines go to the fan's log.
func detachFan(e env, dir, name, server string) error {
	exe, err := e.Executable()
	if err != nil {
		return control.Errorf(contract.ExitFailed, "find own executable: %v", err)
	}
	log := fan.LogPath(dir)
	logFile, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "open the fan's log: %v", err)
	}
	defer logFile.Close()
	cmd := exec.Command(exe, withoutDetach(os.Args[1:])...)
	cmd.Stderr = logFile // its lines are in the log already: stdout goes nowhere
	cmd.Env = append(os.Environ(), "TMUX_PANE=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return control.Errorf(contract.ExitFailed, "start fan %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if s, err := fan.Load(dir); err == nil && s.PID == cmd.Process.Pid && fan.Running(dir) {
			break
		}
		select {
		case <-exited:
			return control.Errorf(contract.ExitFailed, "fan %s ended at once (exit %d); its log: %s", name, cmd.ProcessState.ExitCode(), log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return control.Errorf(contract.ExitFailed, "fan %s did not take up its record in 30s; its log: %s", name, log)
		}
	}
	fmt.Fprintf(e.Stdout, "[ralph] %s: fan running in the background (pid %d, log %s; watch it with: tmux%s attach -t %s)\n",
		name, cmd.Process.Pid, log, server, name)
	return nil
}

// withoutDetach are the fan's arguments without --detach (before "--").
func withoutDetach(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if name, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && name == "detach" && value != "false" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// shownAndLogged writes each line to the fan's log and then to out, whose
// errors (a pipe closed: fan | head) are not the fan's.
func shownAndLogged(out io.Writer, log string) io.Writer {
	if sameFile(out, log) { // started by restore, its output is the log already: each line once
		return &stampWriter{w: out}
	}
	return teeLog{log: &stampWriter{w: appendTo(log)}, out: out}
}

type teeLog struct{ log, out io.Writer }

func (w teeLog) Write(p []byte) (int, error) {
	n, err := w.log.Write(p)
	_, _ = w.out.Write(p)
	return n, err
}

// sameFile reports whether w is the file at path.
func sameFile(w io.Writer, path string) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	a, err := f.Stat()
	b, err2 := os.Stat(path)
	return err == nil && err2 == nil && os.SameFile(a, b)
}

// appendTo is a writer that appends to file, or writes nowhere.
func appendTo(file string) io.Writer {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return io.Discard
	}
	return f
}

// tmuxArgs are the server options the fan and its loops use.
func tmuxArgs(f *config.Run, e env) []string {
	switch {
	case f.SocketPath != "":
		return []string{"-S", f.SocketPath}
	case f.SocketName != "":
		return []string{"-L", f.SocketName}
	}
	if t := e.Getenv("TMUX"); t != "" {
		return []string{"-S", strings.Split(t, ",")[0]}
	}
	return nil
}

// passFlags are the run flags given to the fan, for each of its loops.
func passFlags(fs *flag.FlagSet, f *config.Run) []string {
	var out []string
	fs.Visit(func(fl *flag.Flag) {
		if fanOnly[fl.Name] {
			return
		}
		if fl.Name == "check" || fl.Name == "check-hint" {
			return // repeatable: given from the parsed checks below
		}
		out = append(out, "--"+fl.Name+"="+fl.Value.String())
	})
	for _, c := range checkCommands(f) {
		out = append(out, "--check="+c)
	}
	return out
}

// checkCommands are the fan's --check commands.
func checkCommands(f *config.Run) []string {
	var out []string
	for _, c := range f.Config.Checks {
		out = append(out, c.Command)
	}
	return out
}

// gitTop is the top of dir's working tree.
func gitTop(dir string) (string, error) {
	out, err := gitwork.Run(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("find the repository of %s: %v", dir, err)
	}
	return strings.TrimSpace(out), nil
}
