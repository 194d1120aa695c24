package fakeapi

// Server-sent events, as the three APIs stream them.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// sse writes server-sent events, flushing each.
type sse struct {
	w  http.ResponseWriter
	bw *bufio.Writer
	r  *http.Request
}

func newSSE(w http.ResponseWriter, r *http.Request) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	return &sse{w: w, bw: bufio.NewWriter(w), r: r}
}

// send writes one event; an empty name writes a bare data line (Gemini).
func (s *sse) send(event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(s.bw, "event: %s\n", event)
	}
	fmt.Fprintf(s.bw, "data: %s\n\n", b)
	s.bw.Flush()
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// wait sleeps d unless the client went away; it reports whether to go on.
func (s *sse) wait(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-s.r.Context().Done():
		return false
	}
}

// stream sends the reply's lines through delta, with the configured delays.
func (s *sse) stream(t turn, delta func(string)) bool {
	if !s.wait(t.delay) {
		return false
	}
	for i, part := range t.lines() {
		if i > 0 && !s.wait(t.chunk) {
			return false
		}
		delta(part)
	}
	return true
}
