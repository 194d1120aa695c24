// Package fakeapi is a stand-in for the model APIs of coding agents, for
// running a real agent offline against a canned reply: in integration tests
// (in process, and through testdata/fakeapi, a thin command over it) and in `ralph-watch
// doctor`. One server speaks three protocols, told apart by path:
//
//	POST /v1/messages                      Anthropic Messages API (Claude Code)
//	POST /v1/responses                     OpenAI Responses API (Codex)
//	POST /v1beta/models/M:streamGenerateContent, :generateContent
//	                                       Gemini API (Gemini CLI)
//
// Every model request takes the same course (exchange.go): read, planned
// from the script, recorded, then refused or answered; a small codec per
// protocol (anthropic.go, openai.go, gemini.go) reads its requests and
// builds its answers. It listens on loopback only and answers each model
// request with one assistant turn, streamed as server-sent events when the
// request asks for a stream. Other requests get 200 {} (token counts get a count). Each request
// is recorded with the text of its last user message, so a caller can
// compare what the model received with what was typed.
//
// The reply is a script: plain text, or text whose first line is a directive.
//
//	!bash COMMAND   ask to run COMMAND with the agent's shell tool; once the
//	                tool's result comes back, reply with the lines that follow
//	!limit [SECS [KIND]]
//	                refuse with HTTP 429 and the body and headers the real API
//	                sends when a usage limit is hit, resetting in SECS seconds
//	                (default 3600); KIND is Anthropic's limit, five_hour
//	                (default), seven_day, seven_day_opus, seven_day_sonnet
//	!unauthorized [403]
//	                refuse with HTTP 401 (or 403) and the body the real API
//	                sends for a key it does not accept
//	!judge VERDICT  (first line only) answer a goal-mode judge's request
//	                (its input begins with JudgeMarker) with VERDICT, a JSON
//	                verdict on one line; any other request with the lines
//	                that follow, so one server serves a loop and its judge
//
// Lines before those may set the pace of this reply, overriding the options:
//
//	!delay D        wait D before the first delta (the model "thinking")
//	!chunk-delay D  wait D between deltas
package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a fake API server.
type Options struct {
	Addr       string        // listen address, loopback only; "" is 127.0.0.1:0 (any free port)
	Reply      string        // the reply script, until SetReply changes it
	ReplyFile  string        // when set, the script is read from this file at every request (overrides Reply)
	Log        string        // when set, one JSON line per request is appended to this file
	Delay      time.Duration // before the first text delta (the model "thinking")
	ChunkDelay time.Duration // between text deltas (one delta per line)
	Dump       string        // when set, each model request's body is written to DIR/N.json, for study
}

// Request is one request the server answered, as logged.
type Request struct {
	N        int64    `json:"n"`
	Time     string   `json:"time"`
	Provider string   `json:"provider"` // anthropic, openai, gemini, or other
	Path     string   `json:"path"`
	Model    string   `json:"model,omitempty"`
	Stream   bool     `json:"stream"`
	Tools    int      `json:"tools"`
	Messages int      `json:"messages"`
	System   string   `json:"system_head"`           // the system prompt's first characters
	Texts    []string `json:"texts"`                 // text blocks of the last user message, as received
	Result   bool     `json:"tool_result,omitempty"` // the last message carries a tool's result
	Reply    string   `json:"reply"`                 // what was answered: text, "!bash …", "!limit …"
}

// Server is a running fake API.
type Server struct {
	URL string // base URL, http://127.0.0.1:PORT

	opts     Options
	ln       net.Listener
	http     *http.Server
	serial   atomic.Int64
	mu       sync.Mutex
	reply    string
	requests []Request
	done     chan struct{}
	err      error
}

// Start listens on a loopback address and serves until Close.
func Start(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil || (host != "127.0.0.1" && host != "localhost" && host != "::1") {
		return nil, fmt.Errorf("fake API address must be a loopback address, got %q", opts.Addr)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), opts: opts, ln: ln, reply: opts.Reply, done: make(chan struct{})}
	s.http = &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.http.Serve(ln); err != http.ErrServerClosed {
			s.err = err
		}
	}()
	return s, nil
}

// Wait blocks until the server stops, and returns why if it failed.
func (s *Server) Wait() error {
	<-s.done
	return s.err
}

// Close stops the server; streams under way are cut.
func (s *Server) Close() error {
	err := s.http.Close()
	<-s.done
	return err
}

// SetReply sets the script for the requests that come next (a reply file,
// when set, still wins).
func (s *Server) SetReply(script string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply = script
}

// Requests returns the requests answered so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Prompts returns what the agent's turns received: the last text block of
// the last user message of each request that offered tools (the main loop,
// not side requests such as a session title or Gemini CLI's routing).
func (s *Server) Prompts() []string {
	var got []string
	for _, r := range s.Requests() {
		if r.Tools > 0 && len(r.Texts) > 0 && !r.Result {
			got = append(got, r.Texts[len(r.Texts)-1])
		}
	}
	return got
}

// handler routes each protocol's paths.
func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/messages", s.serve("anthropic", func() codec { return &anthropic{} }))
	mux.HandleFunc("/v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		writeJSON(w, map[string]any{"input_tokens": 100})
	})
	mux.HandleFunc("/v1/responses", s.serve("openai", func() codec { return &openai{} }))
	mux.HandleFunc("/v1beta/models/", s.geminiModels)
	mux.HandleFunc("/v1/models/", s.geminiModels)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.record(&Request{Provider: "other", Path: r.Method + " " + r.URL.Path})
		writeJSON(w, map[string]any{})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// script is the reply script for the request at hand.
func (s *Server) script() string {
	if s.opts.ReplyFile != "" {
		if b, err := os.ReadFile(s.opts.ReplyFile); err == nil {
			return string(b)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reply
}

// record keeps one request, and logs it when a log file is set.
func (s *Server) record(e *Request) {
	e.Time = time.Now().Format(time.RFC3339Nano)
	if e.Texts == nil {
		e.Texts = []string{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e.N = s.serial.Add(1)
	s.requests = append(s.requests, *e)
	if s.opts.Log == "" {
		return
	}
	line, _ := json.Marshal(e)
	f, err := os.OpenFile(s.opts.Log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeapi: log: %v\n", err)
		return
	}
	_, _ = f.Write(append(line, '\n'))
	f.Close()
}

// head is the first 80 characters of s.
func head(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80])
	}
	return s
}

// describe is a one-line description for tools that ask for one.
func describe(command string) string { return "Run " + head(command) }
