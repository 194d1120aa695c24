package pane

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Stream is a pane's output as the pane wrote it, read through pipe-pane into
// a FIFO the watcher owns. Unlike the screen it survives clears, the
// alternate screen, history trimming and width changes, so the text after a
// mark is exactly what the agent wrote after it.
type Stream struct {
	fifo   string
	f      *os.File
	notify chan struct{}

	mu      sync.Mutex
	norm    agent.Normalizer
	text    []byte
	markers []string
	bytes   int64
	err     error
	tee     func(raw []byte) // also given every raw chunk: the iteration's cast (castlog.go)
}

// OpenStream pipes pane's output into a new FIFO at path.
func OpenStream(client tmux.Client, pane, path string) (*Stream, error) {
	_ = os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		return nil, fmt.Errorf("create output fifo: %w", err)
	}
	// Read-write: opening never blocks and the FIFO never reads EOF between writers.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		_ = os.Remove(path)
		return nil, fmt.Errorf("open output fifo: %w", err)
	}
	s := &Stream{fifo: path, f: f, notify: make(chan struct{}, 1)}
	go s.read()
	if err := client.PipePane(pane, "exec cat > "+agent.ShellQuote(path)); err != nil {
		s.Close(nil, "")
		return nil, fmt.Errorf("pipe pane output: %w", err)
	}
	return s, nil
}

func (s *Stream) read() {
	buf := make([]byte, 64<<10)
	for {
		n, err := s.f.Read(buf)
		if n > 0 {
			text, markers := s.norm.Write(buf[:n])
			s.mu.Lock()
			if s.tee != nil {
				s.tee(buf[:n])
			}
			s.text = append(s.text, text...)
			s.markers = append(s.markers, markers...)
			s.bytes += int64(n)
			s.mu.Unlock()
			select {
			case s.notify <- struct{}{}:
			default:
			}
		}
		if err != nil {
			if !errors.Is(err, os.ErrClosed) {
				s.mu.Lock()
				s.err = err
				s.mu.Unlock()
			}
			return
		}
	}
}

// Notify receives a value after new output arrived.
func (s *Stream) Notify() <-chan struct{} { return s.notify }

// Take returns the normalized text and markers that arrived since the last Take.
func (s *Stream) Take() (text string, markers []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, markers = string(s.text), s.markers
	s.text, s.markers = s.text[:0], nil
	return text, markers
}

// Bytes is how many raw bytes the pane has written so far.
func (s *Stream) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// Close stops the pipe (when client is given) and removes the FIFO.
func (s *Stream) Close(client tmux.Client, pane string) {
	if client != nil {
		_ = client.PipePane(pane, "") // fails on a dead pane; the pipe then ends with the pane
	}
	s.f.Close()
	_ = os.Remove(s.fifo)
}
