// Command fakeapi is a stand-in for the Anthropic Messages API, for running a
// real Claude Code against a canned reply in integration tests.
//
// It listens on loopback and answers POST /v1/messages with one assistant
// text message (streamed as server-sent events when the request asks for a
// stream, as JSON otherwise). Every other request gets 200 {} (count_tokens
// gets a token count). Each /v1/messages request is logged, as one JSON line,
// with the text blocks of its last user message, so a test can compare what
// the model received with what was typed.
//
//	fakeapi [-addr 127.0.0.1:0] [-reply TEXT | -reply-file FILE] [-log FILE] [-delay D]
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
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var (
	addr      = flag.String("addr", "127.0.0.1:0", "listen address (loopback only)")
	reply     = flag.String("reply", "All tasks complete.\nRALPH_DONE_42", "the assistant's reply text")
	replyFile = flag.String("reply-file", "", "read the reply from this file at every request (overrides -reply)")
	logPath   = flag.String("log", "", "append one JSON line per /v1/messages request to this file")
	delay     = flag.Duration("delay", 0, "wait this long before the first text delta (the model 'thinking')")
	chunkWait = flag.Duration("chunk-delay", 0, "wait this long between text deltas (one delta per line)")
)

var (
	logMu  sync.Mutex
	serial atomic.Int64
)

// request is the part of a Messages API request the fake looks at.
type request struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []json.RawMessage `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
	System   json.RawMessage   `json:"system"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// entry is one logged request.
type entry struct {
	N        int64    `json:"n"`
	Time     string   `json:"time"`
	Path     string   `json:"path"`
	Model    string   `json:"model"`
	Stream   bool     `json:"stream"`
	Tools    int      `json:"tools"`
	Messages int      `json:"messages"`
	System   string   `json:"system_head"` // the system prompt's first characters
	Texts    []string `json:"texts"`       // text blocks of the last user message, as received
	Reply    string   `json:"reply"`
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
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/messages", messages)
	mux.HandleFunc("/v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		writeJSON(w, map[string]any{"input_tokens": 100})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		writeJSON(w, map[string]any{})
	})
	log.Fatal(http.Serve(ln, mux))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func replyText() string {
	if *replyFile != "" {
		if b, err := os.ReadFile(*replyFile); err == nil {
			return string(b)
		}
	}
	return *reply
}

func messages(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeJSON(w, map[string]any{})
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": err.Error()}})
		return
	}
	text := replyText()
	record(r.URL.Path, &req, text)
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	id := fmt.Sprintf("msg_fake%06d", serial.Load())
	outTokens := len(strings.Fields(text)) + 1
	usage := map[string]any{"input_tokens": 100, "output_tokens": outTokens,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content":     []map[string]any{{"type": "text", "text": text}},
			"stop_reason": "end_turn", "stop_sequence": nil, "usage": usage,
		})
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	bw := bufio.NewWriter(w)
	flusher, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(bw, "event: %s\ndata: %s\n\n", event, b)
		bw.Flush()
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	send("ping", map[string]any{"type": "ping"})
	if *delay > 0 {
		select {
		case <-time.After(*delay):
		case <-r.Context().Done():
			return
		}
	}
	for i, part := range strings.SplitAfter(text, "\n") {
		if part == "" {
			continue
		}
		if i > 0 && *chunkWait > 0 {
			select {
			case <-time.After(*chunkWait):
			case <-r.Context().Done():
				return
			}
		}
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": part}})
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": outTokens}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// record logs the request's last user message.
func record(path string, req *request, reply string) {
	n := serial.Add(1)
	if *logPath == "" {
		return
	}
	e := entry{N: n, Time: time.Now().Format(time.RFC3339Nano), Path: path, Model: req.Model,
		Stream: req.Stream, Tools: len(req.Tools), Messages: len(req.Messages), Texts: []string{}, Reply: reply}
	e.System = systemHead(req.System)
	for i := len(req.Messages) - 1; i >= 0; i-- {
		var m message
		if json.Unmarshal(req.Messages[i], &m) != nil || m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			e.Texts = append(e.Texts, s)
			break
		}
		var blocks []block
		json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			if b.Type == "text" {
				e.Texts = append(e.Texts, b.Text)
			}
		}
		break
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

// systemHead is the first 80 characters of the system prompt, string or blocks.
func systemHead(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var blocks []block
		json.Unmarshal(raw, &blocks)
		var parts []string
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		s = strings.Join(parts, "\n")
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80])
	}
	return s
}
