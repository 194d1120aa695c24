package receipt

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fixture is a session file written by a real agent (or shaped on one) in testdata/receipts.
func fixture(name string) string {
	return filepath.Join("..", "..", "testdata", "receipts", name)
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func oneModel(model string, t Tokens) Usage {
	return Usage{Tokens: t, Models: map[string]Tokens{model: t}}
}

func withCounts(u Usage, turns, tools int) Usage {
	u.Turns, u.ToolCalls = turns, tools
	return u
}

// withContext is u whose last model call held tokens of model's window (0: not told).
func withContext(u Usage, tokens int64, model string, window int64) Usage {
	u.Context = &Context{Tokens: tokens, Model: model, Window: window}
	return u
}

func TestReadersGiveWhatTheAgentsWrote(t *testing.T) {
	tests := []struct {
		name  string
		read  func(string, time.Time) (Usage, error)
		file  string
		since time.Time
		want  Usage
	}{
		{"claude 2.1.330: a tool call, then the answer", ReadClaudeFile, "claude-2.1.330.jsonl", time.Time{},
			withContext(withCounts(oneModel("claude-opus-5-5", Tokens{Input: 200, Output: 6}), 2, 1), 105, "claude-opus-5-5", 0)},
		{"claude 2.1.197: the same turns", ReadClaudeFile, "claude-2.1.197.jsonl", time.Time{},
			withContext(withCounts(oneModel("claude-opus-4-8", Tokens{Input: 200, Output: 6}), 2, 1), 105, "claude-opus-4-8", 0)},
		{"claude: a usage limit's message is no model turn", ReadClaudeFile, "claude-2.1.330-limit.jsonl", time.Time{},
			Usage{}},
		{"claude: one message in three lines counts once, from the iteration's start", ReadClaudeFile, "claude-split.jsonl",
			at("2026-11-22T11:00:00Z"),
			withContext(withCounts(oneModel("claude-sonnet-4-5-20250929", Tokens{Input: 10, Output: 405, CacheRead: 41200, CacheWrite: 1500}), 2, 3), 21601, "claude-sonnet-4-5-20250929", 0)},
		{"claude: the whole transcript", ReadClaudeFile, "claude-split.jsonl", time.Time{},
			withContext(withCounts(oneModel("claude-sonnet-4-5-20250929", Tokens{Input: 9010, Output: 1305, CacheRead: 41200, CacheWrite: 1500}), 3, 3), 21601, "claude-sonnet-4-5-20250929", 0)},
		{"claude: nothing after the end", ReadClaudeFile, "claude-split.jsonl", at("2026-11-23T00:00:00Z"), Usage{}},
		{"codex 0.169.0: a tool call, then the answer", ReadCodexFile, "codex-0.169.0.jsonl", time.Time{},
			withContext(withCounts(oneModel("gpt-5.2-codex", Tokens{Input: 200, Output: 6}), 2, 1), 105, "gpt-5.2-codex", 258400)},
		{"codex: only the responses after since", ReadCodexFile, "codex-0.169.0.jsonl", at("2026-11-22T19:15:10.860Z"),
			withContext(withCounts(oneModel("gpt-5.2-codex", Tokens{Input: 100, Output: 5}), 1, 0), 105, "gpt-5.2-codex", 258400)},
		{"gemini 0.61.0: a message written twice counts once", ReadGeminiFile, "gemini-0.61.0.jsonl", time.Time{},
			withContext(withCounts(oneModel("gemini-3.8-flash", Tokens{Input: 200, Output: 6}), 2, 1), 105, "gemini-3.8-flash", 0)},
		{"copilot 1.0.102: a tool call, then the answer", ReadCopilotFile, "copilot-1.0.102.jsonl", time.Time{},
			withCounts(oneModel("gpt-5.2-codex", Tokens{Input: 200, Output: 5}), 2, 1)},
		{"opencode 1.18.33: a tool call, then the answer", ReadOpenCodeFile, "opencode-1.18.33.jsonl", time.Time{},
			withCounts(oneModel("gpt-5.2-codex", Tokens{Input: 200, Output: 5}), 2, 1)},
		{"opencode: only the responses after since", ReadOpenCodeFile, "opencode-1.18.33.jsonl", at("2026-11-24T21:47:23.1Z"),
			withCounts(oneModel("gpt-5.2-codex", Tokens{Input: 100, Output: 4}), 1, 0)},
		{"copilot: only the calls after since", ReadCopilotFile, "copilot-1.0.102.jsonl", at("2026-11-24T21:37:57Z"),
			withCounts(oneModel("gpt-5.2-codex", Tokens{Input: 100, Output: 4}), 1, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.read(fixture(tt.file), tt.since)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestReadCodexCountsARepeatedTokenCountOnceAndSplitsTheCache(t *testing.T) {
	rollout := `{"timestamp":"2026-01-01T10:00:00Z","type":"turn_context","payload":{"model":"gpt-5-codex","cwd":"/p"}}
{"timestamp":"2026-01-01T10:00:01Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":800,"output_tokens":50,"total_tokens":1050},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":800,"output_tokens":50,"total_tokens":1050}}}}
{"timestamp":"2026-01-01T10:00:01Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":800,"output_tokens":50,"total_tokens":1050},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":800,"output_tokens":50,"total_tokens":1050}},"rate_limits":{"primary":{"used_percent":7}}}}
{"timestamp":"2026-01-01T10:00:02Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{}}}
{"timestamp":"2026-01-01T10:00:03Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c1"}}
{"timestamp":"2026-01-01T10:00:03Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1"}}
{"timestamp":"2026-01-01T10:00:04Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":2200,"cached_input_tokens":1700,"output_tokens":70,"total_tokens":2270},"last_token_usage":{"input_tokens":1200,"cached_input_tokens":900,"output_tokens":20,"total_tokens":1220}}}}
`
	got, err := ReadCodex(strings.NewReader(rollout), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want := withContext(withCounts(oneModel("gpt-5-codex", Tokens{Input: 500, Output: 70, CacheRead: 1700}), 2, 1), 1220, "gpt-5-codex", 0)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestReadGeminiKeepsRewoundMessagesAndReadsTheOlderFile(t *testing.T) {
	chat := `{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T10:00:00Z","kind":"main"}
{"id":"g1","timestamp":"2026-01-01T10:00:01Z","type":"gemini","content":"","tokens":{"input":1000,"output":10,"cached":600,"thoughts":40,"tool":5,"total":1055},"model":"gemini-2.5-pro"}
{"id":"g1","timestamp":"2026-01-01T10:00:01Z","type":"gemini","content":"","tokens":{"input":1000,"output":10,"cached":600,"thoughts":40,"tool":5,"total":1055},"model":"gemini-2.5-pro","toolCalls":[{"id":"t1","name":"read_file"},{"id":"t2","name":"glob"}]}
{"$rewindTo":"g1"}
{"id":"u2","timestamp":"2026-01-01T10:00:05Z","type":"user","content":[{"text":"again"}]}
{"id":"g2","timestamp":"2026-01-01T10:00:06Z","type":"gemini","content":"done","tokens":{"input":1100,"output":3,"cached":0,"thoughts":0,"tool":0,"total":1103},"model":"gemini-2.5-flash"}
`
	got, err := ReadGemini(strings.NewReader(chat), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	pro, flash := Tokens{Input: 405, Output: 50, CacheRead: 600}, Tokens{Input: 1100, Output: 3}
	want := Usage{Turns: 2, ToolCalls: 2, Tokens: pro.plus(flash), Models: map[string]Tokens{"gemini-2.5-pro": pro, "gemini-2.5-flash": flash},
		Context: &Context{Tokens: 1103, Model: "gemini-2.5-flash"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	older := `{
  "sessionId": "s",
  "messages": [
    {"id": "u1", "timestamp": "2025-10-18T14:57:28Z", "type": "user", "content": "hi"},
    {"id": "g1", "timestamp": "2025-10-18T14:57:30Z", "type": "gemini", "content": "hello",
     "tokens": {"input": 50, "output": 2, "cached": 0, "thoughts": 0, "tool": 0, "total": 52}, "model": "gemini-2.5-pro"}
  ]
}`
	got, err = ReadGemini(strings.NewReader(older), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if want := withContext(withCounts(oneModel("gemini-2.5-pro", Tokens{Input: 50, Output: 2}), 1, 0), 52, "gemini-2.5-pro", 0); !reflect.DeepEqual(got, want) {
		t.Errorf("older file: got %+v, want %+v", got, want)
	}
}

func TestReadersReportNothingForNothing(t *testing.T) {
	for name, read := range map[string]func(string, time.Time) (Usage, error){
		"claude": ReadClaudeFile, "codex": ReadCodexFile, "gemini": ReadGeminiFile} {
		got, err := read(fixture("claude-2.1.330-limit.jsonl"), time.Time{})
		if err != nil || got.Turns != 0 || got.Sum() != 0 {
			t.Errorf("%s on a file with no usage of its kind: %+v, %v", name, got, err)
		}
		if _, err := read(filepath.Join(t.TempDir(), "missing.jsonl"), time.Time{}); !os.IsNotExist(err) {
			t.Errorf("%s on a missing file: %v, want not-exist", name, err)
		}
	}
}
