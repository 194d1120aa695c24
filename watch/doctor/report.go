package doctor

// How a report is printed: lines for a person, a row of the
// compatibility table, JSON; and the words a signal's detail is said in.

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
)

// WriteText prints the report, one line per signal.
func (r *Report) WriteText(w io.Writer) {
	width := 0
	for _, t := range signalTitles {
		width = max(width, len([]rune(t.Title)))
	}
	fmt.Fprintf(w, "%s %-*s  %s %s · %s\n", mark(r.Version != "unknown"), width, "agent", r.Agent, r.Version, strings.Join(r.Command, " "))
	if r.Pinned != "" && !strings.Contains(r.Version, r.Pinned) {
		fmt.Fprintf(w, "  ralph.tmux is checked against %s %s; this release may differ\n", r.Agent, r.Pinned)
	}
	for _, warning := range r.Warnings { // true whatever the check finds
		fmt.Fprintf(w, "%s %-*s  %s\n", "⚠", width, "tools", warning)
	}
	if r.Bypass != nil {
		r.writeBypass(w, width)
		return
	}
	for _, s := range r.Signals {
		line := fmt.Sprintf("%s %-*s  %s", s.Status.Mark(), width, s.Title, s.Detail)
		if s.Status == Fail && !s.Needed {
			line += " (a loop works without it)"
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		if s.Status == Fail && s.Screen != "" {
			fmt.Fprintf(w, "    the screen then:\n%s\n", indent(s.Screen, "    │ "))
		}
	}
	took := r.Took.Round(100 * time.Millisecond)
	if r.Works {
		fmt.Fprintf(w, "A loop of %s would work (checked in %s).\n", r.Agent, took)
	} else {
		fmt.Fprintf(w, "A loop of %s would not work (checked in %s).\n", r.Agent, took)
	}
	for _, f := range r.Fixes {
		fmt.Fprintf(w, "  try: %s\n", f)
	}
	if r.Kept != "" {
		fmt.Fprintf(w, "Screens and logs: %s\n", r.Kept)
	}
}

// MarkdownHeader is the head of the compatibility table in docs/agents.md.
func MarkdownHeader() string {
	cols := []string{"Agent", "Version"}
	for _, t := range signalTitles {
		cols = append(cols, t.Title)
	}
	cols = append(cols, "a loop works")
	sep := make([]string, len(cols))
	for i := range sep {
		sep[i] = "---"
	}
	return "| " + strings.Join(cols, " | ") + " |\n|" + strings.Join(sep, "|") + "|\n"
}

// MarkdownRow is the report as one row of the compatibility table: a mark
// per signal, with the time where one was measured.
func (r *Report) MarkdownRow() string {
	cells := []string{r.Agent, r.Version}
	for _, s := range r.Signals {
		cell := s.Status.Mark()
		switch {
		case s.Status == OK && s.After > 0 && (s.Key == "ready" || strings.HasPrefix(s.Key, "turn-end")):
			cell += " " + seconds(s.After)
		case s.Status == OK && s.Key == "ready" && s.Via != "":
			cell += " at once" // reported before (or as) the agent drew anything
		}
		if s.Status == OK && s.Key == "ready" && s.Via != "" {
			cell += " (" + viaShort(s.Via) + ")"
		}
		cells = append(cells, cell)
	}
	cells = append(cells, mark(r.Works))
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// reportJSON is the report as --json prints it.
type reportJSON struct {
	*Report
	Seconds float64      `json:"seconds"`
	Signals []signalJSON `json:"signals"`
}

type signalJSON struct {
	Signal
	AfterMS int64 `json:"after_ms,omitempty"`
}

// WriteJSON prints the report as one JSON object on one line.
func (r *Report) WriteJSON(w io.Writer) error {
	out := reportJSON{Report: r, Seconds: r.Took.Round(time.Millisecond).Seconds()}
	for _, s := range r.Signals {
		out.Signals = append(out.Signals, signalJSON{Signal: s, AfterMS: s.After.Milliseconds()})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func mark(ok bool) string {
	if ok {
		return OK.Mark()
	}
	return Fail.Mark()
}

func viaShort(via string) string {
	if via == "pattern" {
		return "screen"
	}
	return via
}

func indent(text, prefix string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// writeBypass says that the command replaced doctor's sandbox, with what,
// and where the agent's own settings are: no signal was checked, so none
// is printed, and nothing is said of whether a loop works.
func (r *Report) writeBypass(w io.Writer, width int) {
	b := r.Bypass
	var changes []string
	for _, c := range b.Changes {
		changes = append(changes, c.String())
	}
	what := bypassWhat(b)
	command := strings.Join(r.Command, " ")
	if len(r.Command) == 1 && !strings.Contains(r.Command[0], "/") {
		if path, err := exec.LookPath(r.Command[0]); err == nil {
			command = path // which claude on PATH: the wrapper
		}
	}
	fmt.Fprintf(w, "! %-*s  %s gives the agent its own %s: %s\n", width, "sandbox", command, what, strings.Join(changes, ", "))
	fmt.Fprintf(w, "    doctor runs the agent offline, with a throwaway HOME and a fake model API; so started, it\n"+
		"    would %s, so doctor ended it before typing anything.\n", map[string]string{
		"HOME and model API": "run with your settings and talk to your model API",
		"HOME":               "run with your settings, not doctor's",
		"model API":          "talk to your model API, not doctor's fake one",
	}[what])
	fmt.Fprintf(w, "Doctor could not check %s through %s (in %s): no signal was checked, and this is not a sign that a loop of it fails.\n",
		r.Agent, command, r.Took.Round(100*time.Millisecond))
	if b.Config != "" {
		fmt.Fprintf(w, "  its own settings: %s (under the HOME it ran with)\n", b.Config)
	} else if b.Home != "" {
		fmt.Fprintf(w, "  the HOME it ran with: %s\n", b.Home)
	}
	if program := shownProgram(b.Program); program != "" && program != command {
		fmt.Fprintf(w, "  to check the agent itself: ralph-watch doctor --agent %s -- %s (the program it started)\n", r.Agent, program)
	}
}

// viaWords says how a signal was known, for a person.
func viaWords(via string) string {
	switch via {
	case contract.ViaPattern:
		return "screen (ready pattern)"
	case contract.ViaStable:
		return "a still screen"
	case contract.ViaPaste:
		return "bracketed paste and a still screen"
	case "":
		return "?"
	}
	return via
}

// seconds is a short duration for a person: 40ms, 1.2s.
func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// shorten cuts s to n runes, the last an ellipsis.
func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
