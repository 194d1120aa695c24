package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// A fan's whole life by its name: logs, tasks and clean given a fan.

// fanLogs is logs FAN: the fan's own log (its claims, landings and
// hand-backs) and its loops' [TASK] lines, in the order of their times;
// live, followed until the fan's process ends.
func fanLogs(ctx context.Context, w io.Writer, f aFan, lines int, live bool) error {
	read := map[string]int64{}
	first := true
	for {
		running := f.running()
		var got []logLine
		for _, src := range fanLogSources(f) {
			got = append(got, src.read(read)...)
		}
		sort.SliceStable(got, func(i, j int) bool { return got[i].at < got[j].at })
		var b strings.Builder
		for _, l := range got {
			b.WriteString(l.text)
		}
		text := b.String()
		if first {
			if text == "" && !live {
				return control.Errorf(contract.ExitFailed, "no log found for fan '%s'", f.Name)
			}
			text = control.LastLines(text, lines)
			first = false
		}
		fmt.Fprint(w, text)
		if !live || !running {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
		if s, err := fan.Load(f.dir); err == nil {
			f.State = s // loops started meanwhile
		}
	}
}

// logSource is a log logs FAN reads: the fan's, or a loop's [TASK] lines.
type logSource struct {
	path string
	loop string // "": the fan's own
}

func fanLogSources(f aFan) []logSource {
	out := []logSource{{path: fan.LogPath(f.dir)}}
	for _, t := range f.Tasks {
		for _, name := range f.Loops(t) {
			out = append(out, logSource{path: filepath.Join(f.root, name, state.LogFile), loop: name})
		}
	}
	return out
}

// logLine is a line of a log with the time it was written (a line
// without one has the time of the line before it).
type logLine struct{ at, text string }

// read are the whole lines of the log from where the last read ended.
func (src logSource) read(offsets map[string]int64) []logLine {
	file, err := os.Open(src.path)
	if err != nil {
		return nil
	}
	defer file.Close()
	if _, err := file.Seek(offsets[src.path], io.SeekStart); err != nil {
		return nil
	}
	var out []logLine
	at := ""
	r := bufio.NewReader(file)
	for {
		line, err := r.ReadString('\n')
		if err != nil { // a line not yet whole waits for the next read
			return out
		}
		offsets[src.path] += int64(len(line))
		if stamp, rest, ok := stamped(line); ok {
			at = stamp
			if src.loop != "" {
				if !strings.HasPrefix(rest, "[TASK] ") {
					continue
				}
				line = stamp + " [TASK] " + src.loop + ": " + strings.TrimPrefix(rest, "[TASK] ")
			}
		} else if src.loop != "" {
			continue
		}
		out = append(out, logLine{at: at, text: line})
	}
}

// stamped splits a log line into its time and the rest.
func stamped(line string) (stamp, rest string, ok bool) {
	if len(line) <= len(state.TimeFormat) || line[len(state.TimeFormat)] != ' ' {
		return "", line, false
	}
	if _, err := time.Parse(state.TimeFormat, line[:len(state.TimeFormat)]); err != nil {
		return "", line, false
	}
	return line[:len(state.TimeFormat)], line[len(state.TimeFormat)+1:], true
}

// stampWriter writes each line with the time it was written, as the
// loops' logs have them, for logs FAN to put the fan's and its loops'
// lines in one order.
type stampWriter struct {
	w   io.Writer
	mid bool // within a line
}

func (s *stampWriter) Write(p []byte) (int, error) {
	var b strings.Builder
	for _, c := range string(p) {
		if !s.mid {
			b.WriteString(state.Stamp(time.Now()) + " ")
		}
		b.WriteRune(c)
		s.mid = c != '\n'
	}
	if _, err := io.WriteString(s.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fanTasks is tasks FAN: the plan as the fan sees it (on its branch), each
// task's tries, and where each task stands in the fan.
func fanTasks(w io.Writer, f aFan, asJSON bool) error {
	p, err := f.ReadPlan()
	if err != nil {
		return control.Errorf(contract.ExitFailed, "tasks %s: %v", f.Name, err)
	}
	l := &control.PlanLoop{Attempts: map[string]int{}, Skipped: map[string]bool{}}
	for _, t := range f.Tasks {
		l.Attempts[t.ID], l.Skipped[t.ID] = t.Tries, t.State == fan.Skipped
	}
	if err := control.WritePlan(w, f.Plan+" on "+f.Into, p, l, asJSON); err != nil || asJSON {
		return err
	}
	fmt.Fprintf(w, "\nFan %s:\n", f.Name)
	writeFanTasks(w, f)
	return nil
}

// writeFanTasks is the fan's table of tasks: state, loop, tries, landed.
func writeFanTasks(w io.Writer, f aFan) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tLOOP\tTRIES\tLANDED\tTITLE")
	for _, t := range f.Tasks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", t.ID, t.State, dash(t.Loop), t.Tries, dash(t.Landed[:min(len(t.Landed), 10)]), t.Title)
	}
	_ = tw.Flush()
}

// cleanFan is clean FAN: the worktrees and branches of the fan's landed
// tasks, and the queue's worktree, once its process no longer runs; its
// record, its branch and its loops' logs stay.
func cleanFan(w io.Writer, f aFan) error {
	if f.running() {
		return control.Errorf(contract.ExitFailed, "fan '%s' is running (pid %d); stop it first ('ralph-watch stop %s')", f.Name, f.PID, f.Name)
	}
	removed, kept := fan.Clean(f.State)
	for _, r := range removed {
		fmt.Fprintf(w, "removed %s\n", r)
	}
	for _, k := range kept {
		fmt.Fprintf(w, "kept %s\n", k)
	}
	if len(removed) == 0 && len(kept) == 0 {
		fmt.Fprintf(w, "fan %s left nothing to clean\n", f.Name)
	}
	return nil
}
