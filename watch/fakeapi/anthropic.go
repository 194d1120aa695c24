package fakeapi

// The Anthropic Messages API, as Claude Code uses it.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type anthropicRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []json.RawMessage `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
	System json.RawMessage `json:"system"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// lastUser returns the text blocks of the last user message and whether it
// carries a tool result.
func (req *anthropicRequest) lastUser() (texts []string, toolResult bool) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		var m anthropicMessage
		if json.Unmarshal(req.Messages[i], &m) != nil || m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return []string{s}, false
		}
		var blocks []anthropicBlock
		json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "tool_result":
				toolResult = true
			}
		}
		return texts, toolResult
	}
	return nil, false
}

// systemHead is the first 80 characters of the system prompt, string or blocks.
func systemHead(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var blocks []anthropicBlock
		json.Unmarshal(raw, &blocks)
		var parts []string
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		s = strings.Join(parts, "\n")
	}
	return head(s)
}

func (api *Server) anthropicMessages(w http.ResponseWriter, r *http.Request) {
	var req anthropicRequest
	if !api.readJSON(w, r, &req) {
		return
	}
	texts, result := req.lastUser()
	t := api.planTurn(api.script(), result)
	if t.command != "" && !hasTool(len(req.Tools), func(i int) string { return req.Tools[i].Name }, "Bash") {
		t = turn{text: "(no Bash tool offered)"}
	}
	api.record(&Request{Provider: "anthropic", Path: r.URL.Path, Model: req.Model, Stream: req.Stream,
		Tools: len(req.Tools), Messages: len(req.Messages), System: systemHead(req.System),
		Texts: texts, Result: result, Reply: t.summary()})
	if t.limit {
		api.anthropicLimit(w, t)
		return
	}
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	id := fmt.Sprintf("msg_fake%06d", api.serial.Load())
	outTokens := len(strings.Fields(t.text)) + 1
	usage := map[string]any{"input_tokens": 100, "output_tokens": outTokens,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	toolID := fmt.Sprintf("toolu_fake%06d", api.serial.Load())
	toolInput := map[string]any{"command": t.command, "description": describe(t.command)}
	stop := "end_turn"
	if t.command != "" {
		stop = "tool_use"
	}
	if !req.Stream {
		content := []map[string]any{{"type": "text", "text": t.text}}
		if t.command != "" {
			content = []map[string]any{{"type": "tool_use", "id": toolID, "name": "Bash", "input": toolInput}}
		}
		writeJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}

	s := newSSE(w, r)
	s.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	if t.command != "" {
		s.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": map[string]any{}}})
		if !s.wait(t.delay) {
			return
		}
		args, _ := json.Marshal(toolInput)
		s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
	} else {
		s.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		s.send("ping", map[string]any{"type": "ping"})
		if !s.stream(t, func(part string) {
			s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": part}})
		}) {
			return
		}
	}
	s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": outTokens}})
	s.send("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicLimit answers as the API does when a subscription's unified
// limit (five-hour, weekly…) is used up: 429, a rate_limit_error, and headers saying
// which limit was hit and when it resets.
func (api *Server) anthropicLimit(w http.ResponseWriter, t turn) {
	reset := strconv.FormatInt(t.reset.Unix(), 10)
	h := w.Header()
	h.Set("anthropic-ratelimit-unified-status", "rejected")
	h.Set("anthropic-ratelimit-unified-reset", reset)
	h.Set("anthropic-ratelimit-unified-representative-claim", t.kind)
	window := map[string]string{"five_hour": "5h", "seven_day": "7d", "seven_day_opus": "7d_opus",
		"seven_day_sonnet": "7d_sonnet"}[t.kind]
	if window != "" {
		h.Set("anthropic-ratelimit-unified-"+window+"-status", "rejected")
		h.Set("anthropic-ratelimit-unified-"+window+"-reset", reset)
		h.Set("anthropic-ratelimit-unified-"+window+"-utilization", "1.0")
	}
	h.Set("anthropic-ratelimit-unified-fallback", "unavailable")
	h.Set("retry-after", strconv.Itoa(int(time.Until(t.reset).Seconds())))
	h.Set("x-should-retry", "false")
	h.Set("request-id", fmt.Sprintf("req_fake%06d", api.serial.Load()))
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{
		"type": "rate_limit_error", "message": "This request would exceed your account's rate limit. Please try again later."}})
}

// hasTool reports whether one of n tools, named by name(i), is want.
func hasTool(n int, name func(int) string, want ...string) bool {
	for i := 0; i < n; i++ {
		for _, w := range want {
			if name(i) == w {
				return true
			}
		}
	}
	return false
}
