package fakeapi

// The Gemini API (generativelanguage), as Gemini CLI uses it.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

type geminiPart struct {
	Text             string          `json:"text,omitempty"`
	Thought          bool            `json:"thought,omitempty"`
	FunctionCall     json.RawMessage `json:"functionCall,omitempty"`
	FunctionResponse json.RawMessage `json:"functionResponse,omitempty"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiRequest struct {
	Contents          []geminiContent `json:"contents"`
	SystemInstruction *geminiContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

// lastUser returns the text parts of the last user content and whether it
// carries a function's response.
func (req *geminiRequest) lastUser() (texts []string, toolResult bool) {
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		if c.Role != "user" {
			continue
		}
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				toolResult = true
			} else if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		return texts, toolResult
	}
	return nil, false
}

// geminiModels serves /v1beta/models/MODEL:METHOD: the two that generate
// through the codec, token counts and the rest directly.
func (s *Server) geminiModels(w http.ResponseWriter, r *http.Request) {
	model, method, _ := strings.Cut(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], ":")
	switch method {
	case "generateContent", "streamGenerateContent":
		s.serve("gemini", func() codec { return &gemini{model: model, stream: method == "streamGenerateContent"} })(w, r)
	case "countTokens":
		_, _ = io.Copy(io.Discard, r.Body)
		writeJSON(w, map[string]any{"totalTokens": 100})
	default:
		_, _ = io.Copy(io.Discard, r.Body)
		s.record(&Request{Provider: "gemini", Path: r.Method + " " + r.URL.Path})
		writeJSON(w, map[string]any{})
	}
}

// gemini is the codec of one generateContent request.
type gemini struct {
	geminiRequest
	model  string
	stream bool
}

func (c *gemini) read(rec *Request) {
	if mime := c.GenerationConfig.ResponseMimeType; mime != "" {
		rec.Path += " (" + mime + ")"
	}
	if c.SystemInstruction != nil && len(c.SystemInstruction.Parts) > 0 {
		rec.System = head(c.SystemInstruction.Parts[0].Text)
	}
	rec.Model, rec.Stream, rec.Tools, rec.Messages = c.model, c.stream, len(c.tools()), len(c.Contents)
	rec.Texts, rec.Result = c.lastUser()
}

// tools are the functions the request declares, as tools.
func (c *gemini) tools() []tool {
	var tools []tool
	for _, t := range c.Tools {
		for _, f := range t.FunctionDeclarations {
			tools = append(tools, tool{Name: f.Name})
		}
	}
	return tools
}

// side is the schema a side request's answer must follow; nil for a turn.
func (c *gemini) side() json.RawMessage {
	g := c.GenerationConfig
	switch {
	case g.ResponseMimeType != "application/json":
		return nil
	case g.ResponseJSONSchema != nil:
		return g.ResponseJSONSchema
	case g.ResponseSchema != nil:
		return g.ResponseSchema
	}
	return json.RawMessage("{}")
}

// plan answers a side request (routing, next-speaker check) with an object
// of its schema. It is never refused: Gemini CLI retries a refused routing
// request in a tight loop (hundreds a second) and never shows the limit,
// and a side model has a quota of its own.
func (c *gemini) plan(t turn) turn {
	if side := c.side(); side != nil {
		b, _ := json.Marshal(sample(side))
		return turn{text: string(b)}
	}
	if t.command != "" && !offers(c.tools(), "run_shell_command") {
		return turn{text: "(no run_shell_command tool offered)"}
	}
	return t
}

// refuse answers as the Gemini API does when a free-tier daily quota is
// used up: RESOURCE_EXHAUSTED with a QuotaFailure naming a per-day quota,
// which Gemini CLI treats as terminal (no retry).
func (c *gemini) refuse(t turn, n int64) refusal {
	secs := int(time.Until(t.reset).Seconds())
	return refusal{body: map[string]any{"error": map[string]any{
		"code": 429,
		"message": "You exceeded your current quota, please check your plan and billing details. " +
			"For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n" +
			"* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 50, model: " + c.model + "\n" +
			fmt.Sprintf("Please retry in %ds.", secs),
		"status": "RESOURCE_EXHAUSTED",
		"details": []any{
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{
				"quotaMetric":     "generativelanguage.googleapis.com/generate_content_free_tier_requests",
				"quotaId":         "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
				"quotaDimensions": map[string]any{"location": "global", "model": c.model},
				"quotaValue":      "50"}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.Help", "links": []any{map[string]any{
				"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fmt.Sprintf("%ds", secs)},
		}}}}
}

// geminiAnswer is one turn as response chunks: the whole answer is one.
type geminiAnswer struct {
	c *gemini
	t turn
	n int64
}

func (c *gemini) answer(t turn, n int64) answer { return &geminiAnswer{c: c, t: t, n: n} }

// chunk is one response holding parts, the last with its finish reason.
func (a *geminiAnswer) chunk(parts []map[string]any, finish string) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	w := words(a.t.text)
	return map[string]any{"candidates": []any{cand}, "modelVersion": a.c.model, "responseId": fmt.Sprintf("fake%06d", a.n),
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": w, "totalTokenCount": 100 + w}}
}

func (a *geminiAnswer) functionCall() map[string]any {
	return map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
		"args": map[string]any{"command": a.t.command, "description": describe(a.t.command)}}}
}

func (a *geminiAnswer) whole() any {
	if a.t.command != "" {
		return a.chunk([]map[string]any{a.functionCall()}, "STOP")
	}
	return a.chunk([]map[string]any{{"text": a.t.text}}, "STOP")
}

func (a *geminiAnswer) call() []event {
	return []event{{"", a.chunk([]map[string]any{a.functionCall()}, "STOP")}}
}

func (a *geminiAnswer) delta(part string, last bool) []event {
	finish := ""
	if last {
		finish = "STOP"
	}
	return []event{{"", a.chunk([]map[string]any{{"text": part}}, finish)}}
}

func (a *geminiAnswer) head() []event     { return nil }
func (a *geminiAnswer) textHead() []event { return nil }
func (a *geminiAnswer) textTail() []event { return nil }
func (a *geminiAnswer) tail() []event     { return nil }

// sample is a value of a JSON schema: each required property present, the
// first value of an enum (or "user" where allowed: the user speaks next).
func sample(raw json.RawMessage) any {
	var sc struct {
		Type       string                     `json:"type"`
		Enum       []string                   `json:"enum"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Items      json.RawMessage            `json:"items"`
	}
	_ = json.Unmarshal(raw, &sc)
	if len(sc.Enum) > 0 {
		for _, e := range sc.Enum {
			if e == "user" {
				return e
			}
		}
		return sc.Enum[0]
	}
	switch strings.ToLower(sc.Type) {
	case "object":
		obj := map[string]any{}
		for _, name := range sc.Required {
			obj[name] = sample(sc.Properties[name])
		}
		return obj
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	}
	return "fake"
}
