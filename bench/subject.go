package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// subject is one side of the comparison: ralph-watch or the reference.
type subject struct {
	name string
	bins bins
	dir  string
	srv  *server
	n    int // loops started, for unique names and files
}

// loopSpec is one loop to start.
type loopSpec struct {
	pane, prompt, mode string
	done               bool
	maxIterations      int
	restartNow         bool
	agent              []string
}

// loop is a running loop program.
type loop struct {
	cmd   *exec.Cmd
	ended chan struct{} // closed once it exited, at endedAt
	at    time.Time
}

// start starts a loop of this subject's program in the foreground.
func (s *subject) start(l loopSpec) (*loop, error) {
	s.n++
	name := fmt.Sprintf("bench-%d", s.n)
	var args []string
	if s.name == "ralph-watch" {
		args = []string{s.bins.watch, "run", "-S", s.srv.socket, "-t", l.pane, "--name", name,
			"--prompt-file", l.prompt, "--prompt-mode", l.mode, "--inactivity-timeout", "1h",
			"--max-iterations", strconv.Itoa(l.maxIterations)}
		if l.restartNow {
			args = append(args, "--restart-delay", "0")
		}
		if l.done {
			args = append(args, "--done-pattern", donePattern, "--check-done-continuous")
		}
	} else {
		args = []string{s.bins.ref, "-S", s.srv.socket, "-t", l.pane, "-prompt-file", l.prompt,
			"-mode", l.mode, "-inactivity", "1h", "-max-iterations", strconv.Itoa(l.maxIterations)}
		if l.restartNow {
			args = append(args, "-restart-delay", "0")
		}
		if l.done {
			args = append(args, "-done", donePattern)
		}
	}
	args = append(append(args, "--"), l.agent...)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = s.srv.env
	cmd.Dir = s.dir
	log, err := os.Create(filepath.Join(s.dir, "run", name+".log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	lp := &loop{cmd: cmd, ended: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		lp.at = time.Now()
		log.Close()
		close(lp.ended)
	}()
	return lp, nil
}

// finish waits for a loop to end by itself and returns when it did.
func (lp *loop) finish(timeout time.Duration) (time.Time, error) {
	select {
	case <-lp.ended:
		return lp.at, nil
	case <-time.After(timeout):
		lp.cmd.Process.Kill()
		return time.Time{}, fmt.Errorf("loop did not end within %s", timeout)
	}
}

// stop ends a loop that would not end by itself.
func (lp *loop) stop() {
	lp.cmd.Process.Signal(os.Interrupt)
	select {
	case <-lp.ended:
	case <-time.After(5 * time.Second):
		lp.cmd.Process.Kill()
		<-lp.ended
	}
}

func (s *subject) file(name string) string { return filepath.Join(s.dir, "run", name) }

func (s *subject) writePrompt(name, text string) (string, error) {
	path := s.file(name)
	return path, os.WriteFile(path, []byte(text), 0o644)
}
