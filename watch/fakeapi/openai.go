package fakeapi

// The OpenAI Responses API, as Codex and OpenCode use it.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

type openaiRequest struct {
	Model        string            `json:"model"`
	Stream       bool              `json:"stream"`
	Instructions string            `json:"instructions"`
	Input        []json.RawMessage `json:"input"`
	Tools        []tool            `json:"tools"`
}

type openaiItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// openai is the codec of one Responses request.
type openai struct {
	openaiRequest
	tool, args string // the shell call of the turn
}

func (c *openai) read(rec *Request) {
	rec.Model, rec.Stream, rec.Tools, rec.Messages = c.Model, c.Stream, len(c.Tools), len(c.Input)
	rec.System = head(c.Instructions)
	rec.Texts, rec.Result = c.lastUser()
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
		case (it.Type == "message" || it.Type == "") && it.Role == "user": // OpenCode leaves the type out
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

// plan finds the shell call of a command in whichever shell tool the
// request offers, asking to run outside the sandbox so that Codex asks the
// user first.
func (c *openai) plan(t turn) turn {
	if t.command == "" {
		return t
	}
	for _, offered := range c.Tools {
		var a map[string]any
		switch offered.Name {
		case "exec_command":
			a = map[string]any{"cmd": t.command}
		case "shell_command":
			a = map[string]any{"command": t.command}
		case "shell":
			a = map[string]any{"command": []string{"bash", "-lc", t.command}}
		case "bash": // OpenCode's
			a = map[string]any{"command": t.command, "description": describe(t.command)}
		default:
			continue
		}
		if offered.Name != "bash" {
			a["sandbox_permissions"] = "require_escalated"
			a["justification"] = describe(t.command)
		}
		b, _ := json.Marshal(a)
		c.tool, c.args = offered.Name, string(b)
		return t
	}
	return turn{text: "(no shell tool offered)"}
}

// refuse answers as the ChatGPT backend does when a plan's usage limit is
// used up: a usage_limit_reached error with the reset time, and the
// rate-limit headers Codex shows in its status line.
func (c *openai) refuse(t turn, n int64) refusal {
	secs := int(time.Until(t.reset).Seconds())
	return refusal{
		header: map[string]string{
			"x-codex-primary-used-percent":          "100.0",
			"x-codex-primary-window-minutes":        "300",
			"x-codex-primary-reset-after-seconds":   strconv.Itoa(secs),
			"x-codex-primary-reset-at":              strconv.FormatInt(t.reset.Unix(), 10),
			"x-codex-secondary-used-percent":        "40.0",
			"x-codex-secondary-window-minutes":      "10080",
			"x-codex-secondary-reset-after-seconds": strconv.Itoa(secs + 86400),
			"x-codex-secondary-reset-at":            strconv.FormatInt(t.reset.Unix()+86400, 10),
		},
		body: map[string]any{"error": map[string]any{
			"type": "usage_limit_reached", "message": "The usage limit has been reached",
			"plan_type": "plus", "resets_at": t.reset.Unix(), "resets_in_seconds": secs}},
	}
}

// openaiAnswer is one turn as a response; its events are numbered.
type openaiAnswer struct {
	c    *openai
	t    turn
	id   string         // the response's
	item map[string]any // its one output item: a message or a function call
	seq  int
}

func (c *openai) answer(t turn, n int64) answer {
	a := &openaiAnswer{c: c, t: t, id: fmt.Sprintf("resp_fake%06d", n)}
	if t.command != "" {
		a.item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_fake%06d", n), "status": "completed",
			"call_id": fmt.Sprintf("call_fake%06d", n), "name": c.tool, "arguments": c.args}
	} else {
		a.item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_fake%06d", n), "status": "completed",
			"role": "assistant", "content": []any{a.textPart(t.text)}}
	}
	return a
}

func (a *openaiAnswer) textPart(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
}

func (a *openaiAnswer) response(status string, output []any) map[string]any {
	m := map[string]any{"id": a.id, "object": "response", "created_at": time.Now().Unix(),
		"status": status, "model": a.c.Model, "output": output}
	if status == "completed" {
		w := words(a.t.text)
		m["usage"] = map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": w, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 100 + w}
	}
	return m
}

// event is one numbered event of the stream, its type named in its data.
func (a *openaiAnswer) event(typ string, fields map[string]any) event {
	fields["type"] = typ
	fields["sequence_number"] = a.seq
	a.seq++
	return event{typ, fields}
}

// at places an event's fields on the output item (and its content part).
func (a *openaiAnswer) at(fields map[string]any, part bool) map[string]any {
	fields["item_id"], fields["output_index"] = a.item["id"], 0
	if part {
		fields["content_index"] = 0
	}
	return fields
}

func (a *openaiAnswer) whole() any { return a.response("completed", []any{a.item}) }

func (a *openaiAnswer) head() []event {
	return []event{
		a.event("response.created", map[string]any{"response": a.response("in_progress", []any{})}),
		a.event("response.in_progress", map[string]any{"response": a.response("in_progress", []any{})}),
	}
}

func (a *openaiAnswer) call() []event {
	added := map[string]any{}
	for k, v := range a.item {
		added[k] = v
	}
	added["arguments"], added["status"] = "", "in_progress"
	return []event{
		a.event("response.output_item.added", map[string]any{"output_index": 0, "item": added}),
		a.event("response.function_call_arguments.delta", a.at(map[string]any{"delta": a.c.args}, false)),
		a.event("response.function_call_arguments.done", a.at(map[string]any{"arguments": a.c.args}, false)),
	}
}

func (a *openaiAnswer) textHead() []event {
	return []event{
		a.event("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{
			"type": "message", "id": a.item["id"], "status": "in_progress", "role": "assistant", "content": []any{}}}),
		a.event("response.content_part.added", a.at(map[string]any{"part": a.textPart("")}, true)),
	}
}

func (a *openaiAnswer) delta(part string, last bool) []event {
	return []event{a.event("response.output_text.delta", a.at(map[string]any{"delta": part}, true))}
}

func (a *openaiAnswer) textTail() []event {
	return []event{
		a.event("response.output_text.done", a.at(map[string]any{"text": a.t.text}, true)),
		a.event("response.content_part.done", a.at(map[string]any{"part": a.textPart(a.t.text)}, true)),
	}
}

func (a *openaiAnswer) tail() []event {
	return []event{
		a.event("response.output_item.done", map[string]any{"output_index": 0, "item": a.item}),
		a.event("response.completed", map[string]any{"response": a.response("completed", []any{a.item})}),
	}
}
