package control

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/words"
)

// Names are the names of the loops under root, sorted.
func Names(root string) ([]string, error) {
	names, err := state.List(root)
	if err != nil {
		return nil, Errorf(words.ExitFailed, "list loops: %v", err)
	}
	return names, nil
}

// Loops are the loops under root; one that cannot be read is a warning on warn.
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
			continue
		}
		loops = append(loops, l)
	}
	return loops, nil
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
		landed, report := afterColumns(l)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", l.Name, l.Status(), l.WorkerStatus(), progress(l.State), tasksColumn(l),
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
		return Errorf(words.ExitFailed, "no iteration log found for loop '%s'", l.Name)
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
