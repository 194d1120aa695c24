package control

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Names are the names of the loops under root, sorted.
func Names(root string) ([]string, error) {
	names, err := state.List(root)
	if err != nil {
		return nil, Errorf(contract.ExitFailed, "list loops: %v", err)
	}
	return names, nil
}

// Loops are the loops under root. One whose state came back from its last
// good copy is a warning on warn; one whose state cannot be read is one too,
// and a damaged loop among them.
func Loops(root string, warn io.Writer) ([]*Loop, error) {
	names, err := Names(root)
	if err != nil {
		return nil, err
	}
	var loops []*Loop
	for _, n := range names {
		l, err := Find(root, n)
		if err != nil {
			fmt.Fprintf(warn, "ralph-watch: warning: %v\n", err)
			loops = append(loops, &Loop{Name: n, Store: &state.Store{Dir: filepath.Join(root, n)}, State: &state.State{WorkerName: n}, Pane: PaneRemoved, Damaged: err.Error()})
			continue
		}
		WarnRecovered(warn, l)
		loops = append(loops, l)
	}
	return loops, nil
}

// WarnRecovered tells of a loop whose state came back from its last good copy.
func WarnRecovered(warn io.Writer, l *Loop) {
	if l.Recovered != "" {
		fmt.Fprintf(warn, "ralph-watch: warning: loop %s: %s\n", l.Name, l.Recovered)
	}
}

// damagedRow is list's row of a loop whose state cannot be read: what to do.
func damagedRow(l *Loop) string {
	return fmt.Sprintf("%s\tdamaged\tits state.json cannot be read: 'ralph-watch clean %s' removes it, 'ralph-watch run --replace --name %s' starts it over\n", l.Name, l.Name, l.Name)
}

// NoLoops is what list says when there is no loop: how to start one.
const NoLoops = "No loops. Start one in a tmux pane with 'ralph-watch run -- COMMAND' (or prefix + A there); 'ralph-watch demo' shows one.\n"

// WriteTable prints one row per loop, under a header; NoLoops for none.
// AGENT is what the loop's pane runs (WorkerStatus).
func WriteTable(w io.Writer, loops []*Loop) error {
	if len(loops) == 0 {
		_, err := fmt.Fprint(w, NoLoops)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRALPH_STATUS\tAGENT\tITERATION\tTASKS\tFAILURES\tCOST\tLANDED\tREPORT")
	for _, l := range loops {
		if l.Damaged != "" {
			fmt.Fprint(tw, damagedRow(l))
			continue
		}
		landed, report := afterColumns(l)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", l.Name, l.Status(), l.WorkerStatus(), progress(l.State, limitShown(l, time.Now())), tasksColumn(l),
			l.State.ConsecutiveFailures, l.State.TotalFailures, costColumn(l), landed, report)
	}
	return tw.Flush()
}

// Logs prints the loop's iterations log (its last lines, if lines > 0) and,
// live, what is appended until no watcher holds the loop or ctx ends.
func Logs(ctx context.Context, w io.Writer, l *Loop, lines int, live bool, clk clock.Clock) error {
	path := l.Store.Path(state.LogFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return Errorf(contract.ExitFailed, "no iteration log found for loop '%s'", l.Name)
	}
	fmt.Fprint(w, LastLines(string(data), lines))
	if !live {
		return nil
	}
	follow(ctx, w, l.Store, path, int64(len(data)), clk)
	return nil
}

// LastLines is the end of text, its last n whole lines; all of it if n <= 0.
func LastLines(text string, n int) string {
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

// followEvery is how often a followed log is read again.
const followEvery = 200 * time.Millisecond

// follow prints what is appended to path from offset on, until no watcher
// holds the loop or ctx ends.
func follow(ctx context.Context, w io.Writer, store *state.Store, path string, offset int64, clk clock.Clock) {
	for {
		watching := store.Locked()
		if f, err := os.Open(path); err == nil {
			_, _ = f.Seek(offset, io.SeekStart)
			n, _ := io.Copy(w, f)
			offset += n
			f.Close()
		}
		if !watching || !clock.Sleep(ctx, clk, followEvery) {
			return
		}
	}
}
