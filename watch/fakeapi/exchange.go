package fakeapi

// One model request, whatever its protocol: read the body, plan the turn
// from the script, record it, then refuse it (a limit) or answer it, whole
// or as server-sent events. What differs between the protocols is a codec
// (anthropic.go, openai.go, gemini.go) that reads a request and builds the
// answer's pieces.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// codec is one protocol: it reads a request and answers it. The request's
// JSON body is decoded into the codec itself.
type codec interface {
	// read fills the record (Provider and Path are set) from the request.
	read(rec *Request)
	// plan adjusts the script's turn to the request: a shell command the
	// request offers no tool for, a side request that wants an object.
	plan(t turn) turn
	// refuse is the answer to a turn at a usage limit; n numbers the request.
	refuse(t turn, n int64) refusal
	// answer builds the answer to a turn; n numbers the request.
	answer(t turn, n int64) answer
}

// answer is one turn in one protocol: the whole response, or the events
// of its stream, piece by piece.
type answer interface {
	whole() any                           // the response when no stream is asked for
	head() []event                        // the stream's first events
	call() []event                        // the tool call, when the turn runs a command
	textHead() []event                    // before the text deltas
	delta(part string, last bool) []event // one line of text
	textTail() []event                    // after the text deltas
	tail() []event                        // the stream's last events
}

// event is one server-sent event; an empty name writes a bare data line (Gemini).
type event struct {
	name string
	data any
}

// refusal is a usage-limit error: 429 with the protocol's headers and body.
type refusal struct {
	header map[string]string
	body   any
}

// serve answers a model request in a protocol whose codec newCodec makes.
func (s *Server) serve(provider string, newCodec func() codec) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			writeJSON(w, map[string]any{})
			return
		}
		body, err := io.ReadAll(r.Body)
		if s.opts.Dump != "" {
			_ = os.WriteFile(filepath.Join(s.opts.Dump, fmt.Sprintf("%d.json", s.serial.Load()+1)), body, 0o644)
		}
		c := newCodec()
		if err == nil {
			err = json.Unmarshal(body, c)
		}
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error()}})
			return
		}
		rec := Request{Provider: provider, Path: r.URL.Path}
		c.read(&rec)
		t := c.plan(planTurn(forJudge(s.script(), rec.Texts), rec.Result, s.opts.Delay, s.opts.ChunkDelay))
		rec.Reply = t.summary()
		s.record(&rec)
		if t.denied != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(t.denied)
			json.NewEncoder(w).Encode(deniedBody(provider, t.denied))
			return
		}
		if t.limit {
			refused := c.refuse(t, rec.N)
			for k, v := range refused.header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			json.NewEncoder(w).Encode(refused.body)
			return
		}
		a := c.answer(t, rec.N)
		if !rec.Stream {
			writeJSON(w, a.whole())
			return
		}
		streamTurn(newSSE(w, r), t, a)
	}
}

// streamTurn sends a turn's events, at the turn's pace: the model
// "thinks" (the turn's delay) once the stream, or its text, has begun.
func streamTurn(s *sse, t turn, a answer) {
	s.send(a.head()...)
	if t.command != "" {
		if !s.wait(t.delay) {
			return
		}
		s.send(a.call()...)
		s.send(a.tail()...)
		return
	}
	s.send(a.textHead()...)
	lines := t.lines()
	if len(lines) == 0 {
		lines = []string{""}
	}
	for i, part := range lines {
		pause := t.chunk
		if i == 0 {
			pause = t.delay
		}
		if !s.wait(pause) {
			return
		}
		s.send(a.delta(part, i == len(lines)-1)...)
	}
	s.send(a.textTail()...)
	s.send(a.tail()...)
}

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

// send writes events, flushing each.
func (s *sse) send(events ...event) {
	for _, e := range events {
		b, _ := json.Marshal(e.data)
		if e.name != "" {
			fmt.Fprintf(s.bw, "event: %s\n", e.name)
		}
		fmt.Fprintf(s.bw, "data: %s\n\n", b)
		_ = s.bw.Flush()
		if f, ok := s.w.(http.Flusher); ok {
			f.Flush()
		}
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

// tool is a tool a request offers, as Anthropic and OpenAI name it.
type tool struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// offers reports whether one of the tools is want.
func offers(tools []tool, want string) bool {
	for _, t := range tools {
		if t.Name == want {
			return true
		}
	}
	return false
}

// words is the output token count the fake reports for a text.
func words(text string) int { return len(strings.Fields(text)) + 1 }

// deniedBody is the error a provider's API answers a key it does not
// accept with: 401, or 403 for a key without the permission.
func deniedBody(provider string, code int) any {
	switch provider {
	case "anthropic":
		kind, msg := "authentication_error", "invalid x-api-key"
		if code == http.StatusForbidden {
			kind, msg = "permission_error", "Your API key does not have permission to use the specified resource."
		}
		return map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}}
	case "gemini":
		status, msg := "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
		if code == http.StatusForbidden {
			status, msg = "PERMISSION_DENIED", "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
		}
		return map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}}
	}
	msg := "Incorrect API key provided: fake-***. You can find your API key at https://platform.openai.com/account/api-keys."
	return map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": "invalid_api_key"}}
}
