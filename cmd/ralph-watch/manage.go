package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"
	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/between"
	"github.com/ralph-tmux/ralph.tmux/watch/deliver"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// loop is a loop found on disk, with what is known of it live.
type loop struct {
	name  string
	store *state.Store
	st    *state.State
	// watcher: a watcher holds the loop's lock. pane: "running", "exited"
	// or "removed" (the pane or its server is gone).
	watcher bool
	pane    string
}

// findLoop reads a loop's state and looks at its watcher and pane.
func findLoop(e env, name string) (*loop, error) {
	if !validName(name) {
		return nil, usageErrorf("invalid loop name %q: use 1 to 64 of A-Z a-z 0-9 . _ -", name)
	}
	store, err := state.Find(state.Root(e.Getenv), name)
	if err != nil {
		return nil, &exitError{code: 1, msg: err.Error()}
	}
	st, err := store.Load()
	if errors.Is(err, os.ErrNotExist) {
		return nil, &exitError{code: 1, msg: (&state.ErrNoState{Name: name}).Error()}
	}
	if err != nil {
		return nil, &exitError{code: 1, msg: err.Error()}
	}
	l := &loop{name: name, store: store, st: st, watcher: store.Locked(), pane: "removed"}
	if st.PaneID != "" && st.TmuxSocket != "" {
		if p, err := l.client().Pane(st.PaneID); err == nil {
			l.pane = map[bool]string{true: "exited", false: "running"}[p.Dead || p.PID == st.ShellPID]
		}
	}
	return l, nil
}

func (l *loop) client() *tmux.Exec {
	return &tmux.Exec{Server: []string{"-S", l.st.TmuxSocket}}
}

// status is the loop's status as a person needs it, in the pane's words: a
// running loop whose watcher is gone is disconnected, whatever the file says.
func (l *loop) status() string {
	if l.st.Status == state.Running && !l.watcher {
		return "monitor_disconnected"
	}
	return watch.StatusOf(l.st).String()
}

func (l *loop) exitReason() string {
	switch {
	case l.st.Status == state.Running && !l.watcher && l.pane == "running":
		return "monitor_disconnected (worker still running)"
	case l.st.Status == state.Running && !l.watcher:
		return "monitor_disconnected (worker " + l.pane + ")"
	case l.st.ExitReason != nil:
		return *l.st.ExitReason
	case l.st.Status == state.Running:
		return "(none - still running)"
	}
	return "(none)"
}

// nameArg takes the one NAME a command needs; inside a looped pane it may be
// left out.
func nameArg(e env, args []string, cmd string) (string, error) {
	switch {
	case len(args) == 1:
		return args[0], nil
	case len(args) > 1:
		return "", usageErrorf("%s takes one loop name, got %d arguments", cmd, len(args))
	}
	if pane := e.Getenv("TMUX_PANE"); pane != "" {
		if name, ok, _ := (&tmux.Exec{}).PaneOption(pane, "@ralph-name"); ok {
			return name, nil
		}
	}
	return "", usageErrorf("%s needs a loop name (see 'ralph-watch list')", cmd)
}

// loopArg finds the loop a command names (see nameArg).
func loopArg(e env, args []string, cmd string) (*loop, error) {
	name, err := nameArg(e, args, cmd)
	if err != nil {
		return nil, err
	}
	return findLoop(e, name)
}

func statusCommand(e env) *ffcli.Command {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the state as JSON, with watcher_alive and pane_alive")
	return &ffcli.Command{
		Name:       "status",
		ShortUsage: "ralph-watch status [--json] [NAME]",
		ShortHelp:  "show a loop's status (inside a looped pane, that pane's loop)",
		LongHelp: strings.TrimSpace(`
Show a loop's state: status, iteration with average and time remaining,
start times, failures, done pattern and exit reason. With no NAME inside a
looped pane, that pane's loop.

Examples:
  ralph-watch status myproj-3
  ralph-watch status --json myproj-3`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			l, err := loopArg(e, args, "status")
			if err != nil {
				return err
			}
			if *asJSON {
				return printJSON(e.Stdout, l.jsonFields())
			}
			printStatus(e.Stdout, l, time.Now())
			return nil
		},
	}
}

// jsonFields is the state as stored plus what is derived live.
func (l *loop) jsonFields() map[string]any {
	data, _ := json.Marshal(l.st)
	var m map[string]any
	json.Unmarshal(data, &m)
	m["watcher_alive"] = l.watcher
	m["pane_alive"] = l.pane == "running"
	m["worker_status"] = l.pane
	m["ralph_status"] = l.status()
	return m
}

func printJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

func printStatus(w io.Writer, l *loop, now time.Time) {
	st := l.st
	fmt.Fprintf(w, "Ralph Loop: %s\n", l.name)
	fmt.Fprintf(w, "Status: %s\n", l.status())
	printWaiting(w, l, now)
	fmt.Fprintf(w, "Iteration: %s%s\n", progress(st), pace(st, l.status()))
	fmt.Fprintf(w, "Started: %s\n", shownTime(st.Started))
	fmt.Fprintf(w, "Current iteration started: %s\n", shownTime(st.LastIterationStarted))
	ended := st.Status == state.Stopped || st.Status == state.Failed
	if ended {
		fmt.Fprintf(w, "Last iteration ended: %s\n", shownTime(st.LastIterationEnded))
	}
	fmt.Fprintf(w, "Consecutive failures: %d\n", st.ConsecutiveFailures)
	fmt.Fprintf(w, "Total failures: %d\n", st.TotalFailures)
	fmt.Fprintf(w, "Inactivity timeout: %ds\n", st.InactivityTimeout)
	if st.DonePattern != nil {
		fmt.Fprintf(w, "Done pattern: %s\n", *st.DonePattern)
	}
	printAgent(w, l)
	if st.Worktree != "" {
		fmt.Fprintf(w, "Worktree: %s (branch %s)\n", st.Worktree, st.WorktreeBranch)
	}
	if st.UnchangedIterations > 0 {
		fmt.Fprintf(w, "Iterations without change: %d\n", st.UnchangedIterations)
	}
	printChecks(w, st.LastChecks())
	printCommandSources(w, st.CommandSources)
	fmt.Fprintf(w, "Exit reason: %s\n", l.exitReason())
	if ended {
		start, err1 := time.ParseInLocation(state.TimeFormat, st.Started, time.Local)
		end, err2 := time.ParseInLocation(state.TimeFormat, st.LastIterationEnded, time.Local)
		if err1 == nil && err2 == nil {
			fmt.Fprintf(w, "Total duration: %s\n", compact(end.Sub(start)))
		}
	}
}

// printWaiting shows what a live loop waits for, or why it is paused.
func printWaiting(w io.Writer, l *loop, now time.Time) {
	s := watch.StatusOf(l.st)
	if !s.Live() || l.st.Reason == "" || l.status() == "monitor_disconnected" {
		return
	}
	if s == watch.StatusPaused {
		fmt.Fprintf(w, "Paused by: %s\n", l.st.Reason)
		return
	}
	reason := l.st.Reason
	if since, err := time.ParseInLocation(state.TimeFormat, l.st.ShownSince, time.Local); err == nil && s == watch.StatusStarting {
		waited := fmt.Sprintf("%ds", int(now.Sub(since).Seconds()))
		if l.st.ReadyTimeout > 0 {
			waited += fmt.Sprintf(" of %ds", l.st.ReadyTimeout)
		}
		if strings.HasSuffix(reason, ")") {
			reason = strings.TrimSuffix(reason, ")") + ", " + waited + ")"
		} else {
			reason += " (" + waited + ")"
		}
	}
	fmt.Fprintf(w, "Waiting for: %s\n", reason)
}

// printAgent shows what the agent's profile saw: its state, a usage limit's
// reset, and how soon after its last turn the next iteration started.
func printAgent(w io.Writer, l *loop) {
	st := l.st
	if st.Agent == "" || st.Agent == "generic" {
		return
	}
	live := l.st.Status == state.Running && l.watcher
	if st.AgentState != "" && live {
		fmt.Fprintf(w, "Agent: %s (%s)\n", st.Agent, strings.ReplaceAll(st.AgentState, "_", " "))
	} else {
		fmt.Fprintf(w, "Agent: %s\n", st.Agent)
	}
	if until, err := time.ParseInLocation(state.TimeFormat, st.WaitingUntil, time.Local); err == nil && live && st.Shown != watch.StatusWaiting.String() {
		fmt.Fprintf(w, "Waiting for limit reset (%s)\n", until.Format("15:04"))
	}
	if st.TurnGapMS != nil {
		fmt.Fprintf(w, "Turn end to next iteration: %dms\n", *st.TurnGapMS)
	}
}

// printChecks shows how the latest iteration's checks went, one a line.
func printChecks(w io.Writer, c *state.Checks) {
	if c == nil {
		return
	}
	passed := 0
	for _, r := range c.Results {
		if r.Passed {
			passed++
		}
	}
	fmt.Fprintf(w, "Checks (iteration %d): %d of %d passed\n", c.Iteration, passed, len(c.Results))
	for _, r := range c.Results {
		if r.Passed {
			fmt.Fprintf(w, "  pass  %s\n", r.Command)
			continue
		}
		what := fmt.Sprintf("exit %d", r.ExitCode)
		if r.TimedOut {
			what = "timed out"
		}
		fmt.Fprintf(w, "  FAIL  %s (%s; output: %s)\n", r.Command, what, r.Log)
	}
}

// progress is the iteration the loop is at (for one waiting for a limit's
// reset, the one it will run), of its maximum.
func progress(st *state.State) string {
	return watch.Shown{Status: watch.StatusOf(st), Iteration: st.CurrentIteration, Max: st.MaxIterations}.Progress()
}

// pace is the average iteration and, for a running loop with a limit, what remains.
func pace(st *state.State, status string) string {
	if len(st.IterationDurations) == 0 {
		return ""
	}
	total := 0
	for _, d := range st.IterationDurations {
		total += d
	}
	avg := time.Duration(total/len(st.IterationDurations)) * time.Second
	if status == state.Running && st.MaxIterations > 0 {
		left := time.Duration(st.MaxIterations-st.CurrentIteration) * avg
		return fmt.Sprintf(" (avg %s/iter, ~%s remaining)", compact(avg), compact(left))
	}
	return fmt.Sprintf(" (avg %s/iter)", compact(avg))
}

// compact prints 5m12s, 1h2m, 42s.
func compact(d time.Duration) string {
	return strings.ReplaceAll(between.FormatDuration(d), " ", "")
}

func shownTime(stamp string) string {
	t, err := time.ParseInLocation(state.TimeFormat, stamp, time.Local)
	if err != nil {
		return "(none)"
	}
	return t.Format("2006-01-02 15:04:05")
}

func listCommand(e env, name string) *ffcli.Command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the loops as JSON")
	names := fs.Bool("names", false, "print only the loop names, one a line")
	return &ffcli.Command{
		Name:       name,
		ShortUsage: "ralph-watch " + name + " [--json | --names]",
		ShortHelp:  "list the loops (ls and list are the same)",
		LongHelp: strings.TrimSpace(`
One row per loop: name, status, worker status (its agent: running, exited, removed),
iteration and failures (consecutive/total).

Examples:
  ralph-watch list
  ralph-watch ls --names`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErrorf("%s takes no arguments", name)
			}
			all, err := state.List(state.Root(e.Getenv))
			if err != nil {
				return &exitError{code: 1, msg: "list loops: " + err.Error()}
			}
			if *names {
				for _, n := range all {
					fmt.Fprintln(e.Stdout, n)
				}
				return nil
			}
			var loops []*loop
			for _, n := range all {
				l, err := findLoop(e, n)
				if err != nil {
					fmt.Fprintf(e.Stderr, "ralph-watch: warning: %v\n", err)
					continue
				}
				loops = append(loops, l)
			}
			if *asJSON {
				rows := []map[string]any{}
				for _, l := range loops {
					rows = append(rows, l.jsonFields())
				}
				return printJSON(e.Stdout, rows)
			}
			if len(loops) == 0 {
				return nil
			}
			tw := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tRALPH_STATUS\tWORKER_STATUS\tITERATION\tFAILURES")
			for _, l := range loops {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\n", l.name, l.status(), l.pane, progress(l.st),
					l.st.ConsecutiveFailures, l.st.TotalFailures)
			}
			return tw.Flush()
		},
	}
}

func logsCommand(e env) *ffcli.Command {
	fs := flag.NewFlagSet("logs", flag.ContinueOnError)
	live := fs.Bool("live", false, "follow the log until the loop ends (or Ctrl-C)")
	lines := fs.Int("lines", 0, "print only the last N lines (0: all)")
	return &ffcli.Command{
		Name:       "logs",
		ShortUsage: "ralph-watch logs [--live] [--lines N] NAME",
		ShortHelp:  "print a loop's iterations log",
		LongHelp: strings.TrimSpace(`
Print a loop's iterations log, one line per event.

Examples:
  ralph-watch logs --lines 20 myproj-3
  ralph-watch logs --live myproj-3`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			name, err := nameArg(e, args, "logs")
			if err != nil {
				return err
			}
			if *lines < 0 {
				return usageErrorf("--lines must not be negative")
			}
			l, err := findLoop(e, name)
			if err != nil {
				return err
			}
			path := l.store.Path("iterations.log")
			data, err := os.ReadFile(path)
			if err != nil {
				return &exitError{code: 1, msg: fmt.Sprintf("no iteration log found for worker '%s'", name)}
			}
			fmt.Fprint(e.Stdout, lastLines(string(data), *lines))
			if !*live {
				return nil
			}
			return follow(ctx, e.Stdout, l.store, path, int64(len(data)))
		},
	}
}

func lastLines(text string, n int) string {
	if n <= 0 {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "")
}

// follow prints what is appended to path from offset on, until no watcher
// holds the loop or ctx ends.
func follow(ctx context.Context, w io.Writer, store *state.Store, path string, offset int64) error {
	for {
		watching := store.Locked()
		if f, err := os.Open(path); err == nil {
			f.Seek(offset, io.SeekStart)
			n, _ := io.Copy(w, f)
			offset += n
			f.Close()
		}
		if !watching {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// tell leaves a request for a loop's watcher and wakes it.
func tell(l *loop, request string) error {
	if err := l.store.Request(request); err != nil {
		return &exitError{code: 1, msg: err.Error()}
	}
	if l.st.WatcherPID > 0 {
		syscall.Kill(l.st.WatcherPID, syscall.SIGUSR1)
	}
	return nil
}

// waitFor polls the loop's state until cond holds or timeout passes.
func waitFor(l *loop, timeout time.Duration, cond func(*state.State) bool) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if st, err := l.store.Load(); err == nil && cond(st) {
			l.st = st
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// withoutWatcher changes the state of a loop no watcher holds, under its lock.
func withoutWatcher(l *loop, change func(*state.State)) error {
	if err := l.store.Lock(); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("loop '%s' is busy: %v", l.name, err)}
	}
	defer l.store.Unlock()
	st, err := l.store.Load()
	if err != nil {
		return &exitError{code: 1, msg: err.Error()}
	}
	change(st)
	if err := l.store.Save(st); err != nil {
		return &exitError{code: 1, msg: err.Error()}
	}
	l.st = st
	return nil
}

func pauseCommand(e env) *ffcli.Command {
	return &ffcli.Command{
		Name:       "pause",
		ShortUsage: "ralph-watch pause NAME",
		ShortHelp:  "pause a loop: the agent runs on, no new iteration starts",
		LongHelp: strings.TrimSpace(`
Pause a loop: the agent runs on, no new iteration starts.

Examples:
  ralph-watch pause myproj-3
  ralph-watch resume myproj-3`),
		FlagSet: flag.NewFlagSet("pause", flag.ContinueOnError),
		Exec: func(ctx context.Context, args []string) error {
			l, err := loopArg(e, args, "pause")
			if err != nil {
				return err
			}
			name := l.name
			switch {
			case l.st.Status == state.Paused:
				fmt.Fprintf(e.Stderr, "ralph-watch: warning: loop '%s' is already paused\n", name)
				return nil
			case l.st.Status != state.Running:
				return &exitError{code: 1, msg: fmt.Sprintf("ralph loop for '%s' has status '%s'", name, l.status())}
			case l.watcher:
				if err := tell(l, state.RequestPause); err != nil {
					return err
				}
				if !waitFor(l, 10*time.Second, func(st *state.State) bool { return st.Status != state.Running }) {
					return &exitError{code: 1, msg: fmt.Sprintf("the watcher of '%s' did not answer the pause request", name)}
				}
			default:
				if err := withoutWatcher(l, func(st *state.State) { watch.StatusPaused.Record(st, "request", time.Now()) }); err != nil {
					return err
				}
				l.store.Log(time.Now(), "PAUSE", "loop paused reason=request")
				showPaneStatus(l, watch.StatusPaused)
			}
			fmt.Fprintf(e.Stdout, "paused ralph loop for %s\n", name)
			return nil
		},
	}
}

// showPaneStatus updates a loop's pane options when no watcher does; an
// ended loop leaves the status line after @ralph-ended-linger.
func showPaneStatus(l *loop, status watch.Status) {
	if l.pane == "removed" {
		return
	}
	shown := watch.Shown{Status: status, Name: l.name, Iteration: l.st.CurrentIteration, Max: l.st.MaxIterations, Reason: l.st.Reason}
	if !status.Live() {
		shown.Ended = time.Now()
	}
	c := l.client()
	c.SetPaneOptions(l.st.PaneID, shown.Options())
	if d := watch.Linger(c); !status.Live() && d > 0 {
		c.Later(d, watch.ForgetCommand(l.st.PaneID, shown.Ended))
	}
}

// forgetPane removes a loop's options from its pane at once, if the pane
// still shows that loop.
func forgetPane(l *loop) {
	if l.pane == "removed" {
		return
	}
	c := l.client()
	if name, _, _ := c.PaneOption(l.st.PaneID, watch.OptionName); name == l.name {
		c.SetPaneOptions(l.st.PaneID, watch.Unset())
	}
}

func resumeCommand(e env) *ffcli.Command {
	return &ffcli.Command{
		Name:       "resume",
		ShortUsage: "ralph-watch resume NAME",
		ShortHelp:  "resume a paused or disconnected loop where it left off",
		LongHelp: strings.TrimSpace(`
Resume a paused loop, or one whose watcher died, at the same iteration: a
watcher starts in the background and waits for a running agent first.

Example:
  ralph-watch resume myproj-3`),
		FlagSet: flag.NewFlagSet("resume", flag.ContinueOnError),
		Exec: func(ctx context.Context, args []string) error {
			l, err := loopArg(e, args, "resume")
			if err != nil {
				return err
			}
			name := l.name
			switch {
			case l.st.Status == state.Running && l.watcher:
				fmt.Fprintf(e.Stderr, "ralph-watch: warning: loop '%s' is not paused\n", name)
				return nil
			case l.st.Status != state.Running && l.st.Status != state.Paused:
				return &exitError{code: 1, msg: fmt.Sprintf("ralph loop for '%s' has status '%s'", name, l.status())}
			case l.watcher: // paused, and its watcher still finishing
				if !waitFor(l, 10*time.Second, func(*state.State) bool { return !l.store.Locked() }) {
					return &exitError{code: 1, msg: fmt.Sprintf("loop '%s' still has a watcher", name)}
				}
			}
			if len(l.st.WatcherArgs) == 0 {
				return &exitError{code: 1, msg: fmt.Sprintf("the state of '%s' does not say how its watcher was started; start it again with 'ralph-watch run --replace'", name)}
			}
			if err := checkResumeTrust(e, l.st); err != nil {
				return err
			}
			pid, err := startWatcher(e, l.store, l.st.WatcherArgs, l.st.WatcherDir, true)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.Stdout, "resumed ralph loop for %s (watcher pid %d)\n", name, pid)
			return nil
		},
	}
}

// resumeEnv tells a watcher started by resume to continue the recorded loop.
const resumeEnv = "RALPH_WATCH_RESUME"

// startWatcher starts `ralph-watch run ARGS` in the background, in its own
// session, with its output appended to the loop's watcher.log.
func startWatcher(e env, store *state.Store, args []string, dir string, resume bool, extraEnv ...string) (int, error) {
	exe, err := e.Executable()
	if err != nil {
		return 0, &exitError{code: 1, msg: "find own executable: " + err.Error()}
	}
	logFile, err := os.OpenFile(store.Path("watcher.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, &exitError{code: 1, msg: "open watcher log: " + err.Error()}
	}
	defer logFile.Close()
	cmd := exec.Command(exe, append([]string{"run"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "RALPH_DETACH=false"), extraEnv...)
	if resume {
		cmd.Env = append(cmd.Env, resumeEnv+"=1")
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, &exitError{code: 1, msg: "start watcher: " + err.Error()}
	}
	pid := cmd.Process.Pid
	return pid, cmd.Process.Release()
}

func stopCommand(e env) *ffcli.Command {
	fs := flag.NewFlagSet("stop", flag.ContinueOnError)
	kill := fs.Bool("kill", false, "end the agent too")
	return &ffcli.Command{
		Name:       "stop",
		ShortUsage: "ralph-watch stop [--kill] NAME",
		ShortHelp:  "end a loop (and with --kill its agent)",
		LongHelp: strings.TrimSpace(`
End a loop; with --kill end its agent too. Works when the pane was closed.

Examples:
  ralph-watch stop myproj-3
  ralph-watch stop --kill myproj-3`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			l, err := loopArg(e, args, "stop")
			if err != nil {
				return err
			}
			name := l.name
			if was := watch.StatusOf(l.st); !was.Live() && !l.watcher {
				return stopEnded(e, l, was, *kill)
			}
			if l.watcher {
				req := state.RequestStop
				if *kill {
					req = state.RequestStopKill
				}
				if err := tell(l, req); err != nil {
					return err
				}
				if !waitFor(l, 15*time.Second, func(st *state.State) bool { return !watch.StatusOf(st).Live() }) {
					return &exitError{code: 1, msg: fmt.Sprintf("the watcher of '%s' did not answer the stop request", name)}
				}
			} else {
				if err := withoutWatcher(l, func(st *state.State) {
					reason := "killed"
					st.ExitReason = &reason
					watch.StatusStopped.Record(st, reason, time.Now())
				}); err != nil {
					return err
				}
				l.store.Log(time.Now(), "DONE", fmt.Sprintf("loop complete after %d iterations reason=killed", l.st.CurrentIteration))
				if *kill {
					endAgent(l)
				}
				showPaneStatus(l, watch.StatusStopped)
			}
			fmt.Fprintf(e.Stdout, "stopped ralph loop for %s\n", name)
			return nil
		},
	}
}

// stopEnded answers a stop of a loop that has already ended: one line and
// exit 0, for the loop is stopped as asked; --kill still ends an agent left
// running.
func stopEnded(e env, l *loop, was watch.Status, kill bool) error {
	if kill && l.pane == "running" {
		endAgent(l)
		fmt.Fprintf(e.Stdout, "ralph loop for %s had already ended (%s); ended its agent\n", l.name, was)
		return nil
	}
	fmt.Fprintf(e.Stdout, "ralph loop for %s has already ended (%s); nothing to stop\n", l.name, was)
	return nil
}

// endAgent ends the agent in a loop's pane, whose shell comes back.
func endAgent(l *loop) {
	if l.pane != "running" {
		return
	}
	c := l.client()
	if p, err := c.Pane(l.st.PaneID); err == nil {
		agent.EndTree(p.PID, 3*time.Second)
	}
	// The pane may close (remain-on-exit off) or stay dead a moment.
	for i := 0; i < 20; i++ {
		if p, err := c.Pane(l.st.PaneID); err != nil || p.Dead {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if pid := watch.BackToShell(c, l.st.PaneID, l.st.Worktree, l.st.EndCommand); pid > 0 { // "": the pane's own folder
		withoutWatcher(l, func(st *state.State) { st.ShellPID = pid })
	}
}

func sendCommand(e env) *ffcli.Command {
	return &ffcli.Command{
		Name:       "send",
		ShortUsage: "ralph-watch send NAME MESSAGE",
		ShortHelp:  "type a message into a loop's pane (paste, then Enter)",
		LongHelp: strings.TrimSpace(`
Type MESSAGE into the loop's pane as the prompt is typed (a bracketed
paste, byte for byte), then press Enter.

Example:
  ralph-watch send myproj-3 'also update the changelog'`),
		FlagSet: flag.NewFlagSet("send", flag.ContinueOnError),
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 2 {
				return usageErrorf("send takes a loop name and a message")
			}
			l, err := findLoop(e, args[0])
			if err != nil {
				return err
			}
			if l.pane != "running" {
				return &exitError{code: 1, msg: fmt.Sprintf("loop '%s' is not running (pane %s %s)", l.name, l.st.PaneID, l.pane)}
			}
			if err := deliver.Send(ctx, l.client(), l.st.PaneID, l.name, args[1], e.Stderr); err != nil {
				return &exitError{code: 1, msg: "send: " + err.Error()}
			}
			fmt.Fprintf(e.Stdout, "sent message to %s\n", l.name)
			return nil
		},
	}
}

func cleanCommand(e env) *ffcli.Command {
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	all := fs.Bool("all", false, "clean every loop no watcher holds")
	return &ffcli.Command{
		Name:       "clean",
		ShortUsage: "ralph-watch clean NAME | --all",
		ShortHelp:  "remove a loop's state (never its pane or agent)",
		LongHelp: strings.TrimSpace(`
Remove a loop's state, never its pane or agent; a loop whose watcher runs
is refused.

Examples:
  ralph-watch clean myproj-3
  ralph-watch clean --all`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			var names []string
			switch {
			case *all && len(args) == 0:
				var err error
				if names, err = state.List(state.Root(e.Getenv)); err != nil {
					return &exitError{code: 1, msg: "list loops: " + err.Error()}
				}
			case !*all && len(args) == 1:
				names = args
			default:
				return usageErrorf("must specify a loop name or use --all")
			}
			failed := false
			for _, name := range names {
				l, err := findLoop(e, name)
				if err != nil {
					if l = unreadable(e, name); l == nil {
						return err
					}
				}
				if l.watcher {
					fmt.Fprintf(e.Stderr, "ralph-watch: error: loop '%s' is being watched (pid %d); stop it first\n", name, l.st.WatcherPID)
					failed = true
					continue
				}
				if l.pane == "running" {
					fmt.Fprintf(e.Stderr, "ralph-watch: warning: loop '%s' is still running (only ralph state removed)\n", name)
				}
				if err := l.store.Remove(); err != nil {
					return &exitError{code: 1, msg: fmt.Sprintf("remove state of '%s': %v", name, err)}
				}
				forgetPane(l)
				fmt.Fprintf(e.Stdout, "cleaned ralph state for %s\n", name)
				if l.st.Worktree != "" {
					fmt.Fprintf(e.Stdout, "kept worktree %s (branch %s); remove it with: git worktree remove %s\n",
						l.st.Worktree, l.st.WorktreeBranch, l.st.Worktree)
				}
			}
			if failed {
				return &exitError{code: 1}
			}
			return nil
		},
	}
}

// unreadable is a loop whose state file cannot be read (corrupt, or some
// other program's), for clean to remove when no watcher holds it; else nil.
func unreadable(e env, name string) *loop {
	if !validName(name) {
		return nil
	}
	store, err := state.Find(state.Root(e.Getenv), name)
	if err != nil || store.Locked() {
		return nil
	}
	return &loop{name: name, store: store, st: &state.State{}}
}

// promptTemplate is the minimal PROMPT.md that init writes.
const promptTemplate = `# Ralph loop prompt

You are one iteration of a loop. Each iteration starts fresh: what you know
comes from the files in this repository, not from earlier iterations.

1. Study the specs (specs/*, README.md) and the plan (IMPLEMENTATION_PLAN.md).
2. Pick the single most important task that is not done yet.
3. Before changing anything, search the code: do not assume something is
   missing or broken until you have verified it.
4. Implement the task completely. No placeholders, no stubs.
5. Add the tests that are missing for what you changed, and run the tests.
6. Update IMPLEMENTATION_PLAN.md: mark the task done, note what you learned
   and anything new you found that needs doing.
7. Commit with a message that says what changed and why. Never push: the
   person reviews and pushes.

When every task in the plan is done and the tests pass, print RALPH_DONE on a
line of its own, with nothing else on that line.
`

func initCommand(e env) *ffcli.Command {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	force := fs.Bool("force", false, "overwrite an existing PROMPT.md")
	return &ffcli.Command{
		Name:       "init",
		ShortUsage: "ralph-watch init [--force]",
		ShortHelp:  "write a minimal PROMPT.md in the current folder",
		LongHelp: strings.TrimSpace(`
Write a minimal PROMPT.md in the current folder.

Examples:
  ralph-watch init
  ralph-watch init --force`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			_, err := os.Stat("PROMPT.md")
			existed := err == nil
			if existed && !*force {
				return &exitError{code: 1, msg: "PROMPT.md already exists (use --force to overwrite)"}
			}
			if err := os.WriteFile("PROMPT.md", []byte(promptTemplate), 0o644); err != nil {
				return &exitError{code: 1, msg: "write PROMPT.md: " + err.Error()}
			}
			if existed {
				fmt.Fprintln(e.Stdout, "created PROMPT.md (overwritten)")
			} else {
				fmt.Fprintln(e.Stdout, "created PROMPT.md")
			}
			return nil
		},
	}
}

func templateCommand(e env) *ffcli.Command {
	return &ffcli.Command{
		Name:       "template",
		ShortUsage: "ralph-watch template",
		ShortHelp:  "print the PROMPT.md template",
		LongHelp: strings.TrimSpace(`
Print the PROMPT.md template that init writes.

Example:
  ralph-watch template >PROMPT.md`),
		FlagSet: flag.NewFlagSet("template", flag.ContinueOnError),
		Exec: func(ctx context.Context, args []string) error {
			fmt.Fprint(e.Stdout, promptTemplate)
			return nil
		},
	}
}
