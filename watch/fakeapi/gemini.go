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

func (req *geminiRequest) toolNames() []string {
	var names []string
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			names = append(names, f.Name)
		}
	}
	return names
}

// gemini serves /v1beta/models/MODEL:METHOD.
func (api *Server) gemini(w http.ResponseWriter, r *http.Request) {
	model, method, _ := strings.Cut(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], ":")
	switch method {
	case "countTokens":
		io.Copy(io.Discard, r.Body)
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	case "generateContent", "streamGenerateContent":
	default:
		io.Copy(io.Discard, r.Body)
		api.record(&Request{Provider: "gemini", Path: r.Method + " " + r.URL.Path})
		writeJSON(w, map[string]any{})
		return
	}
	var req geminiRequest
	if !api.readJSON(w, r, &req) {
		return
	}
	stream := method == "streamGenerateContent"
	texts, result := req.lastUser()
	tools := req.toolNames()
	t := api.planTurn(api.script(), result)
	if t.command != "" && !hasTool(len(tools), func(i int) string { return tools[i] }, "run_shell_command") {
		t = turn{text: "(no run_shell_command tool offered)"}
	}
	if req.GenerationConfig.ResponseMimeType == "application/json" {
		// A side request (routing, next-speaker check) wants an object of
		// a schema. It is never refused: Gemini CLI retries a refused
		// routing request in a tight loop (hundreds a second) and never
		// shows the limit, and a side model has a quota of its own.
		schema := req.GenerationConfig.ResponseJSONSchema
		if schema == nil {
			schema = req.GenerationConfig.ResponseSchema
		}
		b, _ := json.Marshal(sample(schema))
		t = turn{text: string(b)}
	}
	system := ""
	if req.SystemInstruction != nil && len(req.SystemInstruction.Parts) > 0 {
		system = req.SystemInstruction.Parts[0].Text
	}
	path := r.URL.Path
	if req.GenerationConfig.ResponseMimeType != "" {
		path += " (" + req.GenerationConfig.ResponseMimeType + ")"
	}
	api.record(&Request{Provider: "gemini", Path: path, Model: model, Stream: stream, Tools: len(tools),
		Messages: len(req.Contents), System: head(system), Texts: texts, Result: result, Reply: t.summary()})
	if t.limit {
		geminiLimit(w, t, model)
		return
	}
	words := len(strings.Fields(t.text)) + 1
	chunk := func(parts []map[string]any, finish string) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		return map[string]any{"candidates": []any{cand}, "modelVersion": model,
			"responseId":    fmt.Sprintf("fake%06d", api.serial.Load()),
			"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": words, "totalTokenCount": 100 + words}}
	}
	var call []map[string]any
	if t.command != "" {
		call = []map[string]any{{"functionCall": map[string]any{"name": "run_shell_command",
			"args": map[string]any{"command": t.command, "description": describe(t.command)}}}}
	}
	if !stream {
		if call != nil {
			writeJSON(w, chunk(call, "STOP"))
			return
		}
		writeJSON(w, chunk([]map[string]any{{"text": t.text}}, "STOP"))
		return
	}
	s := newSSE(w, r)
	if call != nil {
		if !s.wait(t.delay) {
			return
		}
		s.send("", chunk(call, "STOP"))
		return
	}
	lines := t.lines()
	if len(lines) == 0 {
		s.send("", chunk([]map[string]any{{"text": ""}}, "STOP"))
		return
	}
	i := 0
	s.stream(t, func(part string) {
		i++
		finish := ""
		if i == len(lines) {
			finish = "STOP"
		}
		s.send("", chunk([]map[string]any{{"text": part}}, finish))
	})
}

// geminiLimit answers as the Gemini API does when a free-tier daily quota is
// used up: 429 RESOURCE_EXHAUSTED with a QuotaFailure naming a per-day quota,
// which Gemini CLI treats as terminal (no retry).
func geminiLimit(w http.ResponseWriter, t turn, model string) {
	secs := int(time.Until(t.reset).Seconds())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": 429,
		"message": "You exceeded your current quota, please check your plan and billing details. " +
			"For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n" +
			"* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 50, model: " + model + "\n" +
			fmt.Sprintf("Please retry in %ds.", secs),
		"status": "RESOURCE_EXHAUSTED",
		"details": []any{
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{
				"quotaMetric":     "generativelanguage.googleapis.com/generate_content_free_tier_requests",
				"quotaId":         "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
				"quotaDimensions": map[string]any{"location": "global", "model": model},
				"quotaValue":      "50"}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.Help", "links": []any{map[string]any{
				"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fmt.Sprintf("%ds", secs)},
		}}})
}

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
	json.Unmarshal(raw, &sc)
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
