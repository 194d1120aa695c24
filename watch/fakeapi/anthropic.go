package fakeapi

// The Anthropic Messages API, as Claude Code uses it.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

type anthropicRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []json.RawMessage `json:"messages"`
	Tools    []tool            `json:"tools"`
	System   json.RawMessage   `json:"system"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// anthropic is the codec of one Messages request.
type anthropic struct{ anthropicRequest }

func (c *anthropic) read(rec *Request) {
	rec.Model, rec.Stream, rec.Tools, rec.Messages = c.Model, c.Stream, len(c.Tools), len(c.Messages)
	rec.System = systemHead(c.System)
	rec.Texts, rec.Result = c.lastUser()
}

// model is the model the answer names.
func (c *anthropic) model() string {
	if c.Model == "" {
		return "claude-fake"
	}
	return c.Model
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
		_ = json.Unmarshal(m.Content, &blocks)
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
		_ = json.Unmarshal(raw, &blocks)
		var parts []string
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		s = strings.Join(parts, "\n")
	}
	return head(s)
}

func (c *anthropic) plan(t turn) turn {
	if t.command != "" && !offers(c.Tools, "Bash") {
		return turn{text: "(no Bash tool offered)"}
	}
	return t
}

// refuse answers as the API does when a subscription's unified limit
// (five-hour, weekly…) is used up: a rate_limit_error, and headers saying
// which limit was hit and when it resets.
func (c *anthropic) refuse(t turn, n int64) refusal {
	reset := strconv.FormatInt(t.reset.Unix(), 10)
	h := map[string]string{
		"anthropic-ratelimit-unified-status":               "rejected",
		"anthropic-ratelimit-unified-reset":                reset,
		"anthropic-ratelimit-unified-representative-claim": t.kind,
		"anthropic-ratelimit-unified-fallback":             "unavailable",
		"retry-after":                                      strconv.Itoa(int(time.Until(t.reset).Seconds())),
		"x-should-retry":                                   "false",
		"request-id":                                       fmt.Sprintf("req_fake%06d", n),
	}
	window := map[string]string{"five_hour": "5h", "seven_day": "7d", "seven_day_opus": "7d_opus",
		"seven_day_sonnet": "7d_sonnet"}[t.kind]
	if window != "" {
		h["anthropic-ratelimit-unified-"+window+"-status"] = "rejected"
		h["anthropic-ratelimit-unified-"+window+"-reset"] = reset
		h["anthropic-ratelimit-unified-"+window+"-utilization"] = "1.0"
	}
	return refusal{header: h, body: map[string]any{"type": "error", "error": map[string]any{
		"type": "rate_limit_error", "message": "This request would exceed your account's rate limit. Please try again later."}}}
}

// anthropicAnswer is one turn as a message.
type anthropicAnswer struct {
	c         *anthropic
	t         turn
	id, tool  string
	toolInput map[string]any
}

func (c *anthropic) answer(t turn, n int64) answer {
	return &anthropicAnswer{c: c, t: t, id: fmt.Sprintf("msg_fake%06d", n), tool: fmt.Sprintf("toolu_fake%06d", n),
		toolInput: map[string]any{"command": t.command, "description": describe(t.command)}}
}

func (a *anthropicAnswer) stop() string {
	if a.t.command != "" {
		return "tool_use"
	}
	return "end_turn"
}

func (a *anthropicAnswer) usage(out int) map[string]any {
	return map[string]any{"input_tokens": 100, "output_tokens": out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

func (a *anthropicAnswer) whole() any {
	content := []map[string]any{{"type": "text", "text": a.t.text}}
	if a.t.command != "" {
		content = []map[string]any{{"type": "tool_use", "id": a.tool, "name": "Bash", "input": a.toolInput}}
	}
	return map[string]any{"id": a.id, "type": "message", "role": "assistant", "model": a.c.model(), "content": content,
		"stop_reason": a.stop(), "stop_sequence": nil, "usage": a.usage(words(a.t.text))}
}

func (a *anthropicAnswer) head() []event {
	return []event{{"message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": a.c.model(), "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": a.usage(1)}}}}
}

func (a *anthropicAnswer) call() []event {
	args, _ := json.Marshal(a.toolInput)
	return []event{
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": a.tool, "name": "Bash", "input": map[string]any{}}}},
		{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}}},
	}
}

func (a *anthropicAnswer) textHead() []event {
	return []event{
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}}},
		{"ping", map[string]any{"type": "ping"}},
	}
}

func (a *anthropicAnswer) delta(part string, last bool) []event {
	return []event{{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "text_delta", "text": part}}}}
}

func (a *anthropicAnswer) textTail() []event { return nil }

func (a *anthropicAnswer) tail() []event {
	return []event{
		{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
		{"message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": a.stop(), "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": words(a.t.text)}}},
		{"message_stop", map[string]any{"type": "message_stop"}},
	}
}
