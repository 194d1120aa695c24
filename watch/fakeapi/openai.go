package fakeapi

// The OpenAI Responses API, as Codex uses it.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type openaiRequest struct {
	Model        string            `json:"model"`
	Stream       bool              `json:"stream"`
	Instructions string            `json:"instructions"`
	Input        []json.RawMessage `json:"input"`
	Tools        []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

type openaiItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// lastUser returns the text of the last user message and whether a tool's
// output came after it.
func (req *openaiRequest) lastUser() (texts []string, toolResult bool) {
	for i := len(req.Input) - 1; i >= 0; i-- {
		var it openaiItem
		if json.Unmarshal(req.Input[i], &it) != nil {
			continue
		}
		switch {
		case strings.HasSuffix(it.Type, "_call_output"):
			toolResult = true
		case it.Type == "message" && it.Role == "user":
			for _, c := range it.Content {
				if c.Type == "input_text" {
					texts = append(texts, c.Text)
				}
			}
			return texts, toolResult
		}
	}
	return nil, toolResult
}

// shellCall is the function call that runs command with whichever shell tool
// the request offers, asking to run outside the sandbox so that Codex asks
// the user first.
func (req *openaiRequest) shellCall(command string) (name, args string, ok bool) {
	for _, t := range req.Tools {
		var a map[string]any
		switch t.Name {
		case "exec_command":
			a = map[string]any{"cmd": command}
		case "shell_command":
			a = map[string]any{"command": command}
		case "shell":
			a = map[string]any{"command": []string{"bash", "-lc", command}}
		default:
			continue
		}
		a["sandbox_permissions"] = "require_escalated"
		a["justification"] = describe(command)
		b, _ := json.Marshal(a)
		return t.Name, string(b), true
	}
	return "", "", false
}

func (api *Server) openaiResponses(w http.ResponseWriter, r *http.Request) {
	var req openaiRequest
	if !api.readJSON(w, r, &req) {
		return
	}
	texts, result := req.lastUser()
	t := api.planTurn(api.script(), result)
	tool, args, ok := req.shellCall(t.command)
	if t.command != "" && !ok {
		t = turn{text: "(no shell tool offered)"}
	}
	api.record(&Request{Provider: "openai", Path: r.URL.Path, Model: req.Model, Stream: req.Stream,
		Tools: len(req.Tools), Messages: len(req.Input), System: head(req.Instructions),
		Texts: texts, Result: result, Reply: t.summary()})
	if t.limit {
		openaiLimit(w, t)
		return
	}
	n := api.serial.Load()
	respID := fmt.Sprintf("resp_fake%06d", n)
	response := func(status string, output []any) map[string]any {
		m := map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(),
			"status": status, "model": req.Model, "output": output}
		if status == "completed" {
			words := len(strings.Fields(t.text)) + 1
			m["usage"] = map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": words, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
				"total_tokens": 100 + words}
		}
		return m
	}
	var item map[string]any
	if t.command != "" {
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_fake%06d", n), "status": "completed",
			"call_id": fmt.Sprintf("call_fake%06d", n), "name": tool, "arguments": args}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_fake%06d", n), "status": "completed",
			"role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": t.text, "annotations": []any{}}}}
	}
	if !req.Stream {
		writeJSON(w, response("completed", []any{item}))
		return
	}

	s := newSSE(w, r)
	seq := 0
	send := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		s.send(typ, fields)
	}
	send("response.created", map[string]any{"response": response("in_progress", []any{})})
	send("response.in_progress", map[string]any{"response": response("in_progress", []any{})})
	if t.command != "" {
		if !s.wait(t.delay) {
			return
		}
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		added["arguments"], added["status"] = "", "in_progress"
		send("response.output_item.added", map[string]any{"output_index": 0, "item": added})
		send("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": 0, "delta": args})
		send("response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": 0, "arguments": args})
	} else {
		send("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{
			"type": "message", "id": item["id"], "status": "in_progress", "role": "assistant", "content": []any{}}})
		send("response.content_part.added", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		if !s.stream(t, func(part string) {
			send("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": part})
		}) {
			return
		}
		send("response.output_text.done", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "text": t.text})
		send("response.content_part.done", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": t.text, "annotations": []any{}}})
	}
	send("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	send("response.completed", map[string]any{"response": response("completed", []any{item})})
}

// openaiLimit answers as the ChatGPT backend does when a plan's usage limit is
// used up: 429, a usage_limit_reached error with the reset time, and the
// rate-limit headers Codex shows in its status line.
func openaiLimit(w http.ResponseWriter, t turn) {
	secs := int(time.Until(t.reset).Seconds())
	h := w.Header()
	h.Set("x-codex-primary-used-percent", "100.0")
	h.Set("x-codex-primary-window-minutes", "300")
	h.Set("x-codex-primary-reset-after-seconds", strconv.Itoa(secs))
	h.Set("x-codex-primary-reset-at", strconv.FormatInt(t.reset.Unix(), 10))
	h.Set("x-codex-secondary-used-percent", "40.0")
	h.Set("x-codex-secondary-window-minutes", "10080")
	h.Set("x-codex-secondary-reset-after-seconds", strconv.Itoa(secs+86400))
	h.Set("x-codex-secondary-reset-at", strconv.FormatInt(t.reset.Unix()+86400, 10))
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"type": "usage_limit_reached", "message": "The usage limit has been reached",
		"plan_type": "plus", "resets_at": t.reset.Unix(), "resets_in_seconds": secs}})
}
