package watch

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

// statusLine is what the person sees of the loop outside its pane: the
// pane's @ralph-* options (the status line, the popup, list), kept alive by
// the watcher's beat, and the notices when the loop needs them.
type statusLine struct {
	cfg  *Config // read only
	tmux tmux.Client
	rec  *recorder

	shown     contract.Status // the status last shown
	lastShown contract.Shown
	note      string // shown after the status mark, e.g. the limit's reset time
	reason    string // how the loop ended, why it pauses, what it waits for
	failures  string // after an ended loop's mark: how many of its last iterations failed ("3 failed")

	// max is the iteration limit to show (a raised one before it is taken); nil: cfg's.
	max func() int

	beatMu  sync.Mutex // one writer of @ralph-beat at a time: the beat never outlives the loop's status
	beating bool       // the status shown is one a running watcher beats for
	held    bool       // the server holds the watcher's lifeline: no beat needs renewing
}

// show records the loop's status in its state (saved) and mirrors it
// in the pane's options for the status line; the person hears of a status
// that needs them once, when it begins.
func (s *statusLine) show(status contract.Status) {
	now := s.rec.clock.Now()
	changed := status != s.shown
	s.shown = status
	shown := contract.Shown{Status: status, Name: s.cfg.Name, Iteration: s.rec.iteration(), Max: s.maxShown(), Reason: s.reason, Cost: s.rec.cost, Tasks: s.rec.tasksShown(s.cfg.TaskID)}
	switch status {
	case contract.StatusRunning, contract.StatusBackoff:
		shown.Reason = ""
	case contract.StatusWaiting:
		shown.Note, shown.Reason = s.note, strings.TrimPrefix(s.note, "waiting for ")
	case contract.StatusPaused:
		shown.Note = s.note // why it paused, where a pause has a note
	case contract.StatusNeedsInput:
		shown.Reason = "an answer in the pane (the agent is asking a question)"
	case contract.StatusFailed:
		shown.Error = s.rec.st.Error // the sentence, not only its code word
		shown.Note = s.failures
	case contract.StatusLimit:
		shown.Note = s.failures
	}
	if !status.Live() {
		shown.Ended = now
	}
	s.rec.status(status, shown.Reason, now)
	s.beatMu.Lock()
	if s.beating = s.cfg.BeatEvery > 0 && status.Live() && status != contract.StatusPaused; s.beating && !s.held {
		shown.Beat = time.Now() // the status line compares it with its own clock
	}
	_ = s.tmux.SetPaneOptions(s.cfg.Pane, shown.Options())
	s.beatMu.Unlock()
	s.lastShown = shown
	if changed && status.Live() { // an ended loop's notice waits for its pane's shell
		s.notify(shown)
	}
}

// maxShown is the iteration limit the pane shows.
func (s *statusLine) maxShown() int {
	if s.max != nil {
		return s.max()
	}
	return s.cfg.MaxIterations
}

// showLimit shows again the status last shown when the limit to show has
// changed since (a set request the loop takes at its next iteration).
func (s *statusLine) showLimit() {
	if s.shown.Live() && s.maxShown() != s.lastShown.Max { // an ended loop's pane keeps its end
		s.show(s.shown)
	}
}

// beat tells the status line, until quit is called, that a watcher runs the loop
// while it shows a status its watcher beats for: a watcher that dies (kill
// -9) leaves a beat that grows old, and the status line, comparing it with
// the time, says so. The server holds the watcher's lifeline, which writes
// that beat when the watcher is gone and costs nothing before; a server
// that cannot hold one gets a beat every BeatEvery instead.
func (s *statusLine) beat() (quit func()) {
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
					_ = s.tmux.SetPaneOptions(s.cfg.Pane, []tmux.Option{{Name: contract.OptionBeat, Value: strconv.FormatInt(now.Unix(), 10)}})
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
func (s *statusLine) holdLifeline() *os.File {
	client, ok := s.tmux.(lifeliner)
	if !ok {
		return nil
	}
	line, err := client.Lifeline(s.rec.store.Path(state.LifelineFIFO), gone(s.cfg.Pane, s.cfg.Name))
	if err != nil {
		s.rec.warnf("the status line will hear of this watcher every %s instead: %v", s.cfg.BeatEvery, err)
		return nil
	}
	s.beatMu.Lock()
	s.held = true
	if s.beating {
		_ = s.tmux.SetPaneOptions(s.cfg.Pane, []tmux.Option{{Name: contract.OptionBeat, Value: ""}})
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

// notify tells the person, once per event, where they are: a message on
// the clients of the pane's session, the window's bell flag, and the
// command in @ralph-notify-command.
func (s *statusLine) notify(shown contract.Shown) {
	msg := notice(shown, s.rec.iteration())
	if msg == "" {
		return
	}
	_ = s.tmux.Message(s.cfg.Pane, msg)
	if pane, err := s.tmux.Pane(s.cfg.Pane); err == nil && !pane.Dead {
		ringBell(pane.PID)
	}
	command, err := s.tmux.GlobalOption(NotifyOption)
	if err != nil || command == "" {
		return
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = s.cfg.Dir
	cmd.Env = append(os.Environ(), "RALPH_NAME="+s.cfg.Name, "RALPH_STATE="+shown.Status.String(), "RALPH_REASON="+shown.Reason,
		"RALPH_ITERATION="+strconv.Itoa(s.rec.iteration()), "RALPH_PANE="+s.cfg.Pane, "RALPH_MESSAGE="+msg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives the watcher, which may exit next
	if err := cmd.Start(); err != nil {
		s.rec.warnf("run %s: %v", NotifyOption, err)
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

// linger has the server remove the ended loop's pane options after the
// linger time, unless another loop took the pane meanwhile (its
// @ralph-ended is then another or none). The watcher need not wait for it.
func (s *statusLine) linger() {
	d := ended.Linger(s.tmux)
	if d <= 0 || s.lastShown.Ended.IsZero() {
		return
	}
	if err := s.tmux.Later(d, ended.Forget(s.cfg.Pane, s.lastShown.Ended)); err != nil {
		s.rec.warnf("schedule the removal of the ended loop from the status line: %v", err)
	}
}
