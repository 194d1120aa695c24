// Package contract is the loop's words as the command line promises them:
// what a loop is doing (Status), what its pane shows (Shown, the @ralph-*
// options), what it learned of the agent (Event), how it ended (Reason) and
// the exit codes. The engine, control, doctor and the command all speak it;
// it imports nothing of theirs.
package contract

import (
	"strconv"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Status is what a loop is doing, in the one vocabulary the pane, status,
// list and the plugin share.
type Status int

// The statuses a loop can show. The first six are live: the loop goes on.
const (
	StatusUnknown    Status = iota
	StatusRunning           // an iteration runs
	StatusStarting          // the agent was started; the prompt waits for it to be ready
	StatusBackoff           // a failed iteration; the next waits its backoff
	StatusNeedsInput        // the agent asks the person a question
	StatusWaiting           // a usage limit: waiting for its reset
	StatusPaused            // no new iteration starts; the agent runs on
	StatusDone              // ended: the done signal, or all iterations without a criterion, the last not failed
	StatusFailed            // ended: failures, a fatal exit, the pane gone
	StatusLimit             // ended: a limit reached without the done signal
	StatusStopped           // ended: the person stopped it
)

var statusInfo = [...]struct {
	word, mark, style string
	live              bool
	record            string // state.json's swarm status
}{
	StatusUnknown:    {"unknown", "?", "done", false, state.Stopped},
	StatusRunning:    {"running", "⟳", "running", true, state.Running},
	StatusStarting:   {"starting", "⟳", "running", true, state.Running},
	StatusBackoff:    {"backoff", "⟳", "running", true, state.Running},
	StatusNeedsInput: {"needs-input", "✋", "paused", true, state.Running},
	StatusWaiting:    {"waiting", "⏳", "paused", true, state.Running},
	StatusPaused:     {"paused", "⏸", "paused", true, state.Paused},
	StatusDone:       {"done", "✓", "done", false, state.Stopped},
	StatusFailed:     {"failed", "✗", "failed", false, state.Failed},
	StatusLimit:      {"limit", "■", "done", false, state.Stopped},
	StatusStopped:    {"stopped", "■", "done", false, state.Stopped},
}

// Statuses lists every status but unknown, live ones first.
func Statuses() []Status {
	var all []Status
	for s := StatusRunning; int(s) < len(statusInfo); s++ {
		all = append(all, s)
	}
	return all
}

// ParseStatus reads a status word; ok is false for an unknown one.
func ParseStatus(word string) (Status, bool) {
	for _, s := range Statuses() {
		if statusInfo[s].word == word {
			return s, true
		}
	}
	return StatusUnknown, false
}

func (s Status) info() int {
	if s < 0 || int(s) >= len(statusInfo) {
		return 0
	}
	return int(s)
}

// String is the word: @ralph-state, status, list.
func (s Status) String() string { return statusInfo[s.info()].word }

// Mark is the status line's sign for it.
func (s Status) Mark() string { return statusInfo[s.info()].mark }

// Style names the plugin's @ralph-style-CLASS option that colours it.
func (s Status) Style() string { return statusInfo[s.info()].style }

// Live reports whether the loop goes on (pause, resume and stop apply).
func (s Status) Live() bool { return statusInfo[s.info()].live }

// NeedsPerson reports whether the loop waits for the person or stopped
// for something they must mend: the status line shows it first.
func (s Status) NeedsPerson() bool { return s == StatusNeedsInput || s == StatusFailed }

// Swarm is the swarm schema's status for state.json: running, paused,
// stopped or failed.
func (s Status) Swarm() string { return statusInfo[s.info()].record }

// StatusOf reads a loop's status from its state. A state written before the
// shown word was recorded is read from the swarm status and exit reason.
func StatusOf(st *state.State) Status {
	if s, ok := ParseStatus(st.Shown); ok && s.Swarm() == st.Status {
		return s
	}
	switch st.Status {
	case state.Running:
		return StatusRunning
	case state.Paused:
		return StatusPaused
	case state.Failed:
		return StatusFailed
	}
	switch ReasonOf(st) {
	case ReasonDonePattern, ReasonDoneFile:
		return StatusDone
	case ReasonMaxIterations, ReasonMaxTime:
		if st.DonePattern == nil {
			return StatusDone
		}
		return StatusLimit
	}
	return StatusStopped
}

// Record writes s into a loop's state: the swarm status, the shown word,
// since when (kept while it stays the same) and its reason.
func (s Status) Record(st *state.State, reason string, now time.Time) {
	if st.Shown != s.String() || st.ShownSince == "" {
		st.ShownSince = state.Stamp(now)
	}
	st.Status, st.Shown, st.Reason = s.Swarm(), s.String(), reason
}

// NextIteration is the iteration a status is about: a loop waiting for a
// limit's reset shows the iteration it will run, not the one it gave back.
func NextIteration(s Status, current int) int {
	if s == StatusWaiting {
		return current + 1
	}
	return current
}

// Shown is everything the pane's options say about a loop.
type Shown struct {
	Status    Status
	Name      string
	Iteration int    // as recorded; NextIteration picks the one shown
	Max       int    // 0: no limit
	Note      string // after the mark, e.g. the limit's reset time
	Reason    string // how it ended, or what it waits for
	Error     string // a failed loop's sentence: "command not found: claud"
	Ended     time.Time
	Cost      string // what the loop has spent, in short ("58k tok $1.20"); "": nothing reported
	Tasks     string // the plan's tasks done of all: "4/12"; "": no plan
	Judging   bool   // goal mode's judge runs: "⚖" follows the progress
	// Beat is when its watcher last said it lives; zero: no watcher beats
	// for it (one that does not, or a paused or ended loop).
	Beat time.Time
}

// explained is the reason with its sentence, where there is one.
func (s Shown) explained() string {
	if s.Error == "" {
		return s.Reason
	}
	return s.Reason + ": " + s.Error
}

// JudgingMark follows a loop's progress in the status line while goal
// mode's judge runs: "⟳ 3/10 ⚖".
const JudgingMark = "⚖"

// Progress is "3/10", or "3" with no limit.
func (s Shown) Progress() string {
	it := strconv.Itoa(NextIteration(s.Status, s.Iteration))
	if s.Max > 0 {
		return it + "/" + strconv.Itoa(s.Max)
	}
	return it
}

// Text is the status line's display string, e.g. "✋ 2/10 needs input", or
// with a plan "⟳ 7/50 · 4/12" (tasks done of all), "⟳ 3/10 ⚖" while
// goal mode's judge runs.
func (s Shown) Text() string {
	text := s.Status.Mark() + " " + s.Progress()
	if s.Tasks != "" {
		text += " · " + s.Tasks
	}
	switch s.Status {
	case StatusBackoff:
		text += " ⏳"
	case StatusNeedsInput:
		text += " needs input"
	}
	if s.Judging {
		text += " " + JudgingMark
	}
	if s.Note != "" {
		text += " " + s.Note
	}
	return text
}

// Pane options of a loop, as written by its watcher (or by a command when
// no watcher runs). Scripts read @ralph-live, never a list of words.
const (
	OptionState     = "@ralph-state"
	OptionLive      = "@ralph-live"
	OptionName      = "@ralph-name"
	OptionIteration = "@ralph-iteration"
	OptionMax       = "@ralph-max"
	OptionStatus    = "@ralph-status"
	OptionReason    = "@ralph-reason"
	OptionEnded     = "@ralph-ended"
	OptionCost      = "@ralph-cost"  // the loop's spend so far: "58k tok $1.20"
	OptionTasks     = "@ralph-tasks" // the plan's tasks done of all: "4/12"
	// OptionAttention is "1" while the loop needs the person (NeedsPerson):
	// the status line puts it first.
	OptionAttention = "@ralph-attention"
	// OptionBeat is when the loop's watcher was last known to live (unix
	// seconds): set by its lifeline when it is gone, unset while it runs
	// (renewed every DefaultBeatEvery by a watcher without a lifeline). The
	// status line marks a live loop whose beat grew old (@ralph-beat-timeout).
	OptionBeat = "@ralph-beat"
	// OptionFan is "1" on a fan's window "fan" (ralph-watch fan), which its
	// process keeps: the popup's keys act on the fan there.
	OptionFan = "@ralph-fan"
	// LingerOption is the global option: seconds an ended loop's pane
	// options stay (default DefaultLinger; 0 keeps them).
	LingerOption = "@ralph-ended-linger"
)

// DefaultBeatEvery is how often a watcher whose server cannot hold its
// lifeline renews @ralph-beat; the plugin's @ralph-beat-timeout (10 s)
// leaves room for a few late beats.
const DefaultBeatEvery = 2 * time.Second

// DefaultLinger is how long an ended loop stays in the status line.
const DefaultLinger = 300 * time.Second

// PaneOptionNames are every option a loop sets on its pane.
var PaneOptionNames = []string{OptionState, OptionLive, OptionName, OptionIteration, OptionMax, OptionStatus, OptionReason, OptionEnded, OptionCost, OptionTasks, OptionBeat, OptionAttention}

// Options are the pane options that show s; an empty value unsets.
func (s Shown) Options() []tmux.Option {
	max, live, ended, beat, attention := "", "", "", "", ""
	if s.Status.NeedsPerson() {
		attention = "1"
	}
	if s.Max > 0 {
		max = strconv.Itoa(s.Max)
	}
	if s.Status.Live() {
		live = "1"
		if !s.Beat.IsZero() {
			beat = strconv.FormatInt(s.Beat.Unix(), 10)
		}
	} else if !s.Ended.IsZero() {
		ended = strconv.FormatInt(s.Ended.Unix(), 10)
	}
	return []tmux.Option{
		{Name: OptionName, Value: s.Name},
		{Name: OptionIteration, Value: strconv.Itoa(NextIteration(s.Status, s.Iteration))},
		{Name: OptionMax, Value: max},
		{Name: OptionState, Value: s.Status.String()},
		{Name: OptionLive, Value: live},
		{Name: OptionStatus, Value: s.Text()},
		{Name: OptionReason, Value: s.explained()},
		{Name: OptionEnded, Value: ended},
		{Name: OptionCost, Value: s.Cost},
		{Name: OptionTasks, Value: s.Tasks},
		{Name: OptionBeat, Value: beat},
		{Name: OptionAttention, Value: attention},
	}
}

// Unset are the options that clear a loop from its pane.
func Unset() []tmux.Option {
	opts := make([]tmux.Option, len(PaneOptionNames))
	for i, n := range PaneOptionNames {
		opts[i] = tmux.Option{Name: n}
	}
	return opts
}
