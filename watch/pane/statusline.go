package pane

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/ended"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Line is what the person sees of the loop outside its pane: the
// pane's @ralph-* options (the status line, the popup, list), kept alive by
// the watcher's beat, and the notices when the loop needs them.
type Line struct {
	Given
	cfg LineSettings

	shown     contract.Status // the status last shown
	lastShown contract.Shown
	note      string // shown after the status mark, e.g. the limit's reset time
	reason    string // how the loop ended, why it pauses, what it waits for
	failures  string // after an ended loop's mark: how many of its last iterations failed ("3 failed")
	judging   bool   // goal mode's judge runs: ⚖ after the mark

	beatMu  sync.Mutex // one writer of @ralph-beat at a time: the beat never outlives the loop's status
	beating bool       // the status shown is one a running watcher beats for
	held    bool       // the server holds the watcher's lifeline: no beat needs renewing
}

// LineSettings are what the status line reads of the loop's settings (the
// fields of watch.Config of the same names).
type LineSettings struct {
	Name, Pane string
	BeatEvery  time.Duration // 0: no beat, no lifeline
}

// Facts are what the loop's record says of it when a status is shown.
type Facts struct {
	Now       time.Time
	Iteration int
	Max       int    // the iteration limit to show (a raised one before it is taken)
	Cost      string // the loop's spend so far, in short
	Tasks     string // the plan's progress ("2/5", "task 3"); "": no plan
	Error     string // a failed loop's sentence, not only its code word
	Dir       string // where the notify command runs
}

// NewLine gives a loop its status line.
func NewLine(g Given, cfg LineSettings) *Line { return &Line{Given: g, cfg: cfg} }

// SetReason says how the loop ended, why it pauses, what it waits for, at
// the statuses shown from now on that have a reason.
func (s *Line) SetReason(reason string) { s.reason = reason }

// SetNote says what follows the status mark from now on (the limit's reset
// time, why it paused).
func (s *Line) SetNote(note string) { s.note = note }

// SetJudging says whether goal mode's judge runs now: the status line
// shows ⚖ while it does.
func (s *Line) SetJudging(judging bool) { s.judging = judging }

// SetFailures says how many of an ended loop's last iterations failed ("3 failed").
func (s *Line) SetFailures(failures string) { s.failures = failures }

// Showing is the status last shown.
func (s *Line) Showing() contract.Status { return s.shown }

// Told has status count as shown already: the person heard of it (a
// resumed wait for a limit's reset), and hears of it not again.
func (s *Line) Told(status contract.Status) { s.shown = status }

// Reason is the reason status shows, as the loop's record keeps it.
func (s *Line) Reason(status contract.Status) string {
	switch status {
	case contract.StatusRunning, contract.StatusBackoff:
		return ""
	case contract.StatusWaiting:
		return strings.TrimPrefix(s.note, "waiting for ")
	case contract.StatusNeedsInput:
		return "an answer in the pane (the agent is asking a question)"
	}
	return s.reason
}

// Show mirrors status in the pane's options for the status line, with the
// record's facts; the person hears of a status that needs them once, when
// it begins. The loop records it first.
func (s *Line) Show(status contract.Status, f Facts) {
	changed := status != s.shown
	s.shown = status
	shown := contract.Shown{Status: status, Name: s.cfg.Name, Iteration: f.Iteration, Max: f.Max, Reason: s.Reason(status), Cost: f.Cost, Tasks: f.Tasks,
		Judging: s.judging && status.Live()}
	switch status {
	case contract.StatusWaiting, contract.StatusPaused:
		shown.Note = s.note // the reset time; why it paused, where a pause has a note
	case contract.StatusFailed:
		shown.Error = f.Error // the sentence, not only its code word
		shown.Note = s.failures
	case contract.StatusLimit:
		shown.Note = s.failures
	}
	if !status.Live() {
		shown.Ended = f.Now
	}
	s.beatMu.Lock()
	if s.beating = s.cfg.BeatEvery > 0 && status.Live() && status != contract.StatusPaused; s.beating && !s.held {
		shown.Beat = time.Now() // the status line compares it with its own clock
	}
	_ = s.Tmux.SetPaneOptions(s.cfg.Pane, shown.Options())
	s.beatMu.Unlock()
	s.lastShown = shown
	if changed && status.Live() { // an ended loop's notice waits for its pane's shell
		s.notify(shown, f.Dir)
	}
}

// Again is the status to show again when the limit to show, limit, is not
// the one last shown (a set request the loop takes at its next iteration);
// false: none.
func (s *Line) Again(limit int) (contract.Status, bool) {
	return s.shown, s.shown.Live() && limit != s.lastShown.Max // an ended loop's pane keeps its end
}

// Beat tells the status line, until quit is called, that a watcher runs the loop
// while it shows a status its watcher beats for: a watcher that dies (kill
// -9) leaves a beat that grows old, and the status line, comparing it with
// the time, says so. The server holds the watcher's lifeline, which writes
// that beat when the watcher is gone and costs nothing before; a server
// that cannot hold one gets a beat every BeatEvery instead.
func (s *Line) Beat() (quit func()) {
	if s.cfg.BeatEvery <= 0 {
		return func() {}
	}
	done, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		if line := s.holdLifeline(); line != nil {
			<-done
			line.Close()
			return
		}
		tick := time.NewTicker(s.cfg.BeatEvery) // the wall clock: the status line's is one
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				s.beatMu.Lock()
				if s.beating {
					_ = s.Tmux.SetPaneOptions(s.cfg.Pane, []tmux.Option{{Name: contract.OptionBeat, Value: strconv.FormatInt(now.Unix(), 10)}})
				}
				s.beatMu.Unlock()
			}
		}
	}()
	return func() { close(done); <-over }
}

// lifeliner is a tmux client whose server can hold a lifeline (tmux.Exec).
type lifeliner interface {
	Lifeline(path, command string) (*os.File, error)
}

// holdLifeline has the server hold the watcher's lifeline and unsets the
// beat (the lifeline writes it once the watcher is gone); nil when the
// server cannot hold one.
func (s *Line) holdLifeline() *os.File {
	client, ok := s.Tmux.(lifeliner)
	if !ok {
		return nil
	}
	line, err := client.Lifeline(s.Store.Path(state.LifelineFIFO), gone(s.cfg.Pane, s.cfg.Name))
	if err != nil {
		s.Warnf("the status line will hear of this watcher every %s instead: %v", s.cfg.BeatEvery, err)
		return nil
	}
	s.beatMu.Lock()
	s.held = true
	if s.beating {
		_ = s.Tmux.SetPaneOptions(s.cfg.Pane, []tmux.Option{{Name: contract.OptionBeat, Value: ""}})
	}
	s.beatMu.Unlock()
	return line
}

// gone is the tmux command the server runs when a watcher's lifeline
// ends: while the pane still shows that loop live and not paused, its beat
// becomes that moment (#{T:…} is read when the command runs).
func gone(pane, name string) string {
	still := fmt.Sprintf("#{&&:#{==:#{%s},%s},#{&&:#{%s},#{!=:#{%s},%s}}}",
		contract.OptionName, name, contract.OptionLive, contract.OptionState, contract.StatusPaused)
	return fmt.Sprintf(`if-shell -F -t %s '%s' "set-option -p -t %s -F %s '#{T:#{l:%%s}}'"`, pane, still, pane, contract.OptionBeat)
}

// NotifyOption is the global tmux option holding a shell command run when a
// loop needs the person; it reads RALPH_NAME, RALPH_STATE, RALPH_REASON,
// RALPH_ITERATION, RALPH_PANE and RALPH_MESSAGE from its environment.
const NotifyOption = "@ralph-notify-command"

// notice is what to tell the person of a status, "" when it needs no one:
// a question waits, a limit pauses the loop, it failed or it finished. A
// stop or pause the person asked for needs no notice.
func notice(s contract.Shown, iteration int) string {
	var what string
	switch s.Status {
	case contract.StatusNeedsInput:
		return fmt.Sprintf("[ralph] %s: needs input in iteration %s (the agent is asking a question)", s.Name, s.Progress())
	case contract.StatusWaiting:
		return fmt.Sprintf("[ralph] %s: usage limit reached, %s", s.Name, s.Note)
	case contract.StatusDone:
		what = "done"
	case contract.StatusFailed:
		what = "failed (" + s.Reason + ")"
	case contract.StatusLimit:
		what = "reached its limit (" + s.Reason + ") without the done signal"
	default:
		return ""
	}
	msg := fmt.Sprintf("[ralph] %s: %s after %d iteration", s.Name, what, iteration)
	if iteration != 1 {
		msg += "s"
	}
	if s.Error != "" {
		msg += ": " + s.Error
	}
	return msg
}

// notify tells the person, once per event, where they are (Tell).
func (s *Line) notify(shown contract.Shown, dir string) {
	msg := notice(shown, shown.Iteration)
	if msg == "" {
		return
	}
	Tell(s.Tmux, s.cfg.Pane, s.cfg.Name, shown, dir, msg, s.Warnf)
}

// Tell tells the person msg of loop name's status shown: a message on the
// clients of the pane's session, the window's bell flag, and the command
// in @ralph-notify-command, run in dir (follow's end is told so too).
func Tell(tm tmux.Client, pane, name string, shown contract.Shown, dir, msg string, warnf func(string, ...any)) {
	_ = tm.Message(pane, msg)
	if p, err := tm.Pane(pane); err == nil && !p.Dead {
		ringBell(p.PID)
	}
	command, err := tm.GlobalOption(NotifyOption)
	if err != nil || command == "" {
		return
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RALPH_NAME="+name, "RALPH_STATE="+shown.Status.String(), "RALPH_REASON="+shown.Reason,
		"RALPH_ITERATION="+strconv.Itoa(shown.Iteration), "RALPH_PANE="+pane, "RALPH_MESSAGE="+msg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives the watcher, which may exit next
	if err := cmd.Start(); err != nil {
		warnf("run %s: %v", NotifyOption, err)
		return
	}
	go func() { _ = cmd.Wait() }() // reaped, not left a zombie while the loop goes on
}

// ringBell writes BEL to the terminal of the pane's process, as if the agent
// rang it: tmux raises the window's bell flag (and bell-action applies).
func ringBell(pid int) {
	path := "/proc/" + strconv.Itoa(pid) + "/fd/1"
	if target, err := os.Readlink(path); err != nil || !strings.HasPrefix(target, "/dev/pts/") {
		return // not a terminal: nothing to ring
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	_, _ = f.Write([]byte("\a"))
	f.Close()
}

// Ended tells the person of the loop's end, once its pane is back to a
// shell (the bell can ring in it), and has the server forget the loop
// after the linger time; a loop that did not end (paused) is left shown.
// dir is where the notify command runs.
func (s *Line) Ended(dir string) {
	if s.shown.Live() {
		return
	}
	s.notify(s.lastShown, dir)
	s.linger()
}

// linger has the server remove the ended loop's pane options after the
// linger time, unless another loop took the pane meanwhile (its
// @ralph-ended is then another or none). The watcher need not wait for it.
func (s *Line) linger() {
	d := ended.Linger(s.Tmux)
	if d <= 0 || s.lastShown.Ended.IsZero() {
		return
	}
	if err := s.Tmux.Later(d, ended.Forget(s.cfg.Pane, s.lastShown.Ended)); err != nil {
		s.Warnf("schedule the removal of the ended loop from the status line: %v", err)
	}
}
