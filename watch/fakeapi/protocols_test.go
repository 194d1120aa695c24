package fakeapi

// Each protocol over HTTP, with no agent, so that a broken fake fails here
// and not as a hung agent in a slower test.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeAPI starts a server reading its script from a file; it returns the
// base URL and a function that sets the script.
func fakeAPI(t *testing.T) (url string, setScript func(string)) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "reply")
	setScript = func(s string) {
		if err := os.WriteFile(script, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setScript("hello")
	return start(t, Options{ReplyFile: script}).URL, setScript
}

// sseData returns the JSON payloads of a server-sent event stream, with
// the event name each came under ("" when none).
func sseData(t *testing.T, body string) (events []string, data []map[string]any) {
	t.Helper()
	event := ""
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			events, data = append(events, event), append(data, m)
			event = ""
		}
	}
	return events, data
}

// get walks a decoded JSON value along keys and indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func TestAnthropicMessages(t *testing.T) {
	url, setScript := fakeAPI(t)
	msgs := `{"model":"claude-x","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"}]}`

	setScript("line one\nRALPH_DONE_42")
	resp, body := post(t, url+"/v1/messages", msgs)
	events, data := sseData(t, body)
	if resp.StatusCode != 200 || events[0] != "message_start" || events[len(events)-1] != "message_stop" {
		t.Fatalf("status %d, events %q", resp.StatusCode, events)
	}
	var text string
	for _, d := range data {
		if s, ok := get(d, "delta", "text").(string); ok {
			text += s
		}
	}
	if text != "line one\nRALPH_DONE_42" {
		t.Errorf("streamed text %q", text)
	}

	setScript("!bash touch x\ndone")
	_, body = post(t, url+"/v1/messages", msgs)
	_, data = sseData(t, body)
	if get(data[1], "content_block", "name") != "Bash" || !strings.Contains(body, `"stop_reason":"tool_use"`) {
		t.Errorf("no Bash tool call in %s", body)
	}
	_, body = post(t, url+"/v1/messages", `{"stream":false,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}]}`)
	if !strings.Contains(body, `"text":"done"`) {
		t.Errorf("after the tool's result, reply %s", body)
	}

	setScript("!limit 600 seven_day")
	resp, body = post(t, url+"/v1/messages", msgs)
	reset, _ := strconv.ParseInt(resp.Header.Get("anthropic-ratelimit-unified-reset"), 10, 64)
	if resp.StatusCode != 429 || resp.Header.Get("anthropic-ratelimit-unified-status") != "rejected" ||
		resp.Header.Get("anthropic-ratelimit-unified-representative-claim") != "seven_day" ||
		reset < time.Now().Unix() || !strings.Contains(body, "rate_limit_error") {
		t.Errorf("limit: status %d, headers %v, body %s", resp.StatusCode, resp.Header, body)
	}
}

func TestOpenAIResponses(t *testing.T) {
	url, setScript := fakeAPI(t)
	req := `{"model":"gpt-x","stream":true,"tools":[{"type":"function","name":"exec_command"}],
		"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]}`

	setScript("!chunk-delay 10ms\nline one\nRALPH_DONE_42")
	resp, body := post(t, url+"/v1/responses", req)
	events, data := sseData(t, body)
	if resp.StatusCode != 200 || events[0] != "response.created" || events[len(events)-1] != "response.completed" {
		t.Fatalf("status %d, events %q", resp.StatusCode, events)
	}
	var text string
	for i, e := range events {
		if e == "response.output_text.delta" {
			text += get(data[i], "delta").(string)
		}
		if get(data[i], "type") != e {
			t.Errorf("event %q carries type %v", e, get(data[i], "type"))
		}
	}
	done := get(data[len(data)-1], "response", "output", 0, "content", 0, "text")
	if text != "line one\nRALPH_DONE_42" || done != text {
		t.Errorf("streamed %q, completed with %q", text, done)
	}

	setScript("!bash touch x\ndone")
	_, body = post(t, url+"/v1/responses", req)
	_, data = sseData(t, body)
	call := get(data[len(data)-1], "response", "output", 0)
	var args map[string]any
	if err := json.Unmarshal([]byte(get(call, "arguments").(string)), &args); err != nil {
		t.Fatal(err)
	}
	if get(call, "type") != "function_call" || get(call, "name") != "exec_command" ||
		args["cmd"] != "touch x" || args["sandbox_permissions"] != "require_escalated" {
		t.Errorf("function call %v", call)
	}
	_, body = post(t, url+"/v1/responses", `{"stream":false,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},{"type":"function_call_output","call_id":"c","output":"ok"}]}`)
	if !strings.Contains(body, `"text":"done"`) {
		t.Errorf("after the tool's output, reply %s", body)
	}

	setScript("!limit 600")
	resp, body = post(t, url+"/v1/responses", req)
	var e struct {
		Error struct {
			Type     string `json:"type"`
			ResetsAt int64  `json:"resets_at"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 429 || e.Error.Type != "usage_limit_reached" || e.Error.ResetsAt < time.Now().Unix() {
		t.Errorf("limit: status %d, body %s", resp.StatusCode, body)
	}
}

func TestGeminiGenerateContent(t *testing.T) {
	url, setScript := fakeAPI(t)
	req := `{"contents":[{"role":"user","parts":[{"text":"go"}]}],
		"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`
	stream := url + "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"

	setScript("line one\nRALPH_DONE_42")
	resp, body := post(t, stream, req)
	_, data := sseData(t, body)
	var text string
	for _, d := range data {
		text += get(d, "candidates", 0, "content", "parts", 0, "text").(string)
	}
	if resp.StatusCode != 200 || text != "line one\nRALPH_DONE_42" ||
		get(data[len(data)-1], "candidates", 0, "finishReason") != "STOP" {
		t.Errorf("status %d, text %q, chunks %v", resp.StatusCode, text, data)
	}

	setScript("!bash touch x\ndone")
	_, body = post(t, stream, req)
	_, data = sseData(t, body)
	call := get(data[0], "candidates", 0, "content", "parts", 0, "functionCall")
	if get(call, "name") != "run_shell_command" || get(call, "args", "command") != "touch x" {
		t.Errorf("function call %v", call)
	}
	_, body = post(t, url+"/v1beta/models/gemini-x:generateContent", `{"contents":[{"role":"user","parts":[{"text":"go"}]},
		{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{}}}]}]}`)
	if !strings.Contains(body, `"text":"done"`) {
		t.Errorf("after the function's response, reply %s", body)
	}

	// A side request with a schema gets an object of it, even at a limit.
	setScript("!limit 600")
	_, body = post(t, url+"/v1beta/models/gemini-lite:generateContent", `{"contents":[{"role":"user","parts":[{"text":"go"}]}],
		"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT",
		"properties":{"next_speaker":{"type":"STRING","enum":["model","user"]},"score":{"type":"INTEGER"}},"required":["next_speaker","score"]}}}`)
	var side map[string]any
	if err := json.Unmarshal([]byte(get(mustJSON(t, body), "candidates", 0, "content", "parts", 0, "text").(string)), &side); err != nil {
		t.Fatal(err)
	}
	if side["next_speaker"] != "user" || side["score"] != 1.0 {
		t.Errorf("side request answered %s", body)
	}

	resp, body = post(t, stream, req)
	if resp.StatusCode != 429 || !strings.Contains(body, "RESOURCE_EXHAUSTED") || !strings.Contains(body, "PerDay") {
		t.Errorf("limit: status %d, body %s", resp.StatusCode, body)
	}
}

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, s)
	}
	return v
}
