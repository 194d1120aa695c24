// Command fakeapi is a stand-in for the model APIs of coding agents, for
// running a real agent against a canned reply in integration tests. One
// server speaks three protocols, told apart by path:
//
//	POST /v1/messages                      Anthropic Messages API (Claude Code)
//	POST /v1/responses                     OpenAI Responses API (Codex)
//	POST /v1beta/models/M:streamGenerateContent, :generateContent
//	                                       Gemini API (Gemini CLI)
//
// It listens on loopback and answers each model request with one assistant
// turn, streamed as server-sent events when the request asks for a stream.
// Other requests get 200 {} (token counts get a count). Each request is
// logged, as one JSON line, with the text of its last user message, so a test
// can compare what the model received with what was typed.
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
//
// Lines before those may set the pace of this reply, overriding the flags:
//
//	!delay D        wait D before the first delta (the model "thinking")
//	!chunk-delay D  wait D between deltas
//
// The script is -reply, or the contents of -reply-file read at every request,
// so a test can change it between turns.
//
//	fakeapi [-addr 127.0.0.1:0] [-reply TEXT | -reply-file FILE] [-log FILE]
//	        [-delay D] [-chunk-delay D] [-dump DIR]
//
// The first line on standard output is the base URL, http://127.0.0.1:PORT.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var (
	addr      = flag.String("addr", "127.0.0.1:0", "listen address (loopback only)")
	reply     = flag.String("reply", "All tasks complete.\nRALPH_DONE_42", "the reply script")
	replyFile = flag.String("reply-file", "", "read the reply script from this file at every request (overrides -reply)")
	logPath   = flag.String("log", "", "append one JSON line per request to this file")
	delay     = flag.Duration("delay", 0, "wait this long before the first text delta (the model 'thinking')")
	chunkWait = flag.Duration("chunk-delay", 0, "wait this long between text deltas (one delta per line)")
	dumpDir   = flag.String("dump", "", "write each model request's body to DIR/N.json, for study")
)

var (
	logMu  sync.Mutex
	serial atomic.Int64
)

// entry is one logged request.
type entry struct {
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

// turn is what the fake model does for one request.
type turn struct {
	text    string // reply text, streamed one line per delta
	command string // when set, ask to run this shell command instead
	limit   bool   // refuse with a usage-limit error
	reset   time.Time
	kind    string        // which limit: five_hour, seven_day…
	delay   time.Duration // before the first delta
	chunk   time.Duration // between deltas
}

// planTurn reads the script for a request; toolResult says the request
// carries the result of a tool the previous turn asked for.
func planTurn(script string, toolResult bool) turn {
	t := turn{delay: *delay, chunk: *chunkWait}
	for {
		first, rest, _ := strings.Cut(script, "\n")
		name, arg, _ := strings.Cut(first, " ")
		var d *time.Duration
		switch name {
		case "!delay":
			d = &t.delay
		case "!chunk-delay":
			d = &t.chunk
		case "!bash":
			if toolResult {
				t.text = rest
			} else {
				t.command = strings.TrimSpace(arg)
			}
			return t
		case "!limit":
			f := strings.Fields(arg)
			secs := 3600
			if len(f) > 0 {
				if n, err := strconv.Atoi(f[0]); err == nil && n > 0 {
					secs = n
				}
			}
			t.kind = "five_hour"
			if len(f) > 1 {
				t.kind = f[1]
			}
			t.limit, t.reset = true, time.Now().Add(time.Duration(secs)*time.Second).Truncate(time.Second)
			return t
		default:
			t.text = script
			return t
		}
		if v, err := time.ParseDuration(strings.TrimSpace(arg)); err == nil {
			*d = v
		}
		script = rest
	}
}

// summary is how a turn is logged.
func (t turn) summary() string {
	switch {
	case t.limit:
		return fmt.Sprintf("!limit %d %s", t.reset.Unix(), t.kind)
	case t.command != "":
		return "!bash " + t.command
	}
	return t.text
}

// lines splits reply text into the deltas it is streamed as.
func (t turn) lines() []string {
	var out []string
	for _, part := range strings.SplitAfter(t.text, "\n") {
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

func main() {
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || (host != "127.0.0.1" && host != "localhost" && host != "::1") {
		log.Fatalf("fakeapi: -addr must be a loopback address, got %q", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	os.Stdout.Sync()
	log.Fatal(http.Serve(ln, handler()))
}

// handler routes each protocol's paths.
func handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/messages", anthropicMessages)
	mux.HandleFunc("/v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		writeJSON(w, map[string]any{"input_tokens": 100})
	})
	mux.HandleFunc("/v1/responses", openaiResponses)
	mux.HandleFunc("/v1beta/models/", gemini)
	mux.HandleFunc("/v1/models/", gemini)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		record(&entry{Provider: "other", Path: r.Method + " " + r.URL.Path})
		writeJSON(w, map[string]any{})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func script() string {
	if *replyFile != "" {
		if b, err := os.ReadFile(*replyFile); err == nil {
			return string(b)
		}
	}
	return *reply
}

// readJSON decodes a POST body into v, answering 400 itself when it cannot.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if r.Method != http.MethodPost {
		writeJSON(w, map[string]any{})
		return false
	}
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if *dumpDir != "" {
		os.WriteFile(filepath.Join(*dumpDir, fmt.Sprintf("%d.json", serial.Load()+1)), body, 0o644)
	}
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error()}})
		return false
	}
	return true
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

// record logs one request.
func record(e *entry) {
	e.N = serial.Add(1)
	if *logPath == "" {
		return
	}
	e.Time = time.Now().Format(time.RFC3339Nano)
	if e.Texts == nil {
		e.Texts = []string{}
	}
	line, _ := json.Marshal(e)
	logMu.Lock()
	defer logMu.Unlock()
	f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		log.Printf("fakeapi: log: %v", err)
		return
	}
	f.Write(append(line, '\n'))
	f.Close()
}

// head is the first 80 characters of s.
func head(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80])
	}
	return s
}

// shellCommand is a one-line description for tools that ask for one.
func describe(command string) string { return "Run " + head(command) }
