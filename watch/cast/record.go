package cast

import (
	"fmt"
	"os"
	"sync"
	"time"
	"unicode/utf8"
)

// Recorder writes one cast file as the events come. Times are given by the
// caller's clock; each line is written at once, so a crash loses nothing
// already seen.
type Recorder struct {
	mu      sync.Mutex
	f       *os.File
	start   time.Time
	limit   int64 // bytes the file may hold; 0 for no cap
	written int64
	last    time.Duration // times never go back, even if the caller's clock does
	tail    []byte        // an incomplete UTF-8 sequence held for the next Output
	cut     bool          // the cap was reached: nothing more is written
	err     error         // the first write error, returned from then on
	line    []byte
}

// Create starts a cast at path, truncating any file there, with h as its
// header; start is time zero of its events. Past limit bytes (0: no cap)
// output stops and one marker says the cast was cut. An empty title becomes
// DefaultTitle, a zero timestamp start's.
func Create(path string, h Header, start time.Time, limit int64) (*Recorder, error) {
	if h.Width <= 0 || h.Height <= 0 {
		return nil, fmt.Errorf("create cast %s: size %dx%d", path, h.Width, h.Height)
	}
	if h.Title == "" && h.Name != "" {
		h.Title = DefaultTitle(h.Name, h.Iteration)
	}
	if h.Timestamp == 0 {
		h.Timestamp = start.Unix()
	}
	head, err := appendHeader(nil, h)
	if err != nil {
		return nil, fmt.Errorf("create cast %s: %v", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create cast: %v", err)
	}
	r := &Recorder{f: f, start: start, limit: limit}
	r.write(head)
	if r.err != nil {
		f.Close()
		return nil, r.err
	}
	return r, nil
}

// Output records data the terminal received at the given time. A UTF-8
// sequence split across two calls is held back and written whole.
func (r *Recorder) Output(at time.Time, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cut || r.err != nil {
		return r.err
	}
	joined := data
	if len(r.tail) > 0 {
		joined = append(r.tail, data...)
	}
	n := completeUpTo(joined)
	r.tail = append([]byte(nil), joined[n:]...)
	if n == 0 {
		return nil
	}
	return r.event(at, Output, string(joined[:n]))
}

// Marker records a labelled point: the prompt delivered, the done token
// matched, the turn's end.
func (r *Recorder) Marker(at time.Time, label string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.event(at, Marker, label)
}

// Resize records the terminal's new size.
func (r *Recorder) Resize(at time.Time, width, height int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.event(at, Resize, fmt.Sprintf("%dx%d", width, height))
}

// Close writes any held-back bytes and closes the file.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.tail) > 0 && !r.cut {
		_ = r.event(r.start.Add(r.last), Output, string(r.tail)) // no more bytes will complete it
		r.tail = nil
	}
	if err := r.f.Close(); err != nil && r.err == nil {
		r.err = fmt.Errorf("close cast: %v", err)
	}
	return r.err
}

// Cut reports whether the cap stopped the recording.
func (r *Recorder) Cut() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cut
}

// event writes one event line, or the cut marker when the line would pass
// the cap; r.mu is held.
func (r *Recorder) event(at time.Time, code, data string) error {
	if r.cut || r.err != nil {
		return r.err
	}
	t := max(at.Sub(r.start), r.last)
	r.last = t
	r.line = appendEvent(r.line[:0], Event{Time: t, Code: code, Data: data})
	if r.limit > 0 {
		cutLine := appendEvent(nil, Event{Time: t, Code: Marker, Data: CutLabel(r.limit)})
		if r.written+int64(len(r.line))+int64(len(cutLine)) > r.limit {
			r.cut = true
			r.write(cutLine)
			return r.err
		}
	}
	r.write(r.line)
	return r.err
}

// write appends b to the file; r.mu is held.
func (r *Recorder) write(b []byte) {
	n, err := r.f.Write(b)
	r.written += int64(n)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("write cast: %v", err)
	}
}

// CutLabel is the marker left where a cast reached its cap.
func CutLabel(limit int64) string {
	return fmt.Sprintf("cut: the cast reached its limit of %d bytes", limit)
}

// completeUpTo is how many bytes of p end on a whole UTF-8 sequence: an
// incomplete sequence at the end is left for more bytes to complete.
func completeUpTo(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(p[i]) {
			if utf8.FullRune(p[i:]) {
				return len(p)
			}
			return i
		}
	}
	return len(p)
}
