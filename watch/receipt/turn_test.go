package receipt

import (
	"os"
	"path/filepath"
	"testing"
)

func TestClaudeTurnWrittenOnlyWhenTheModelsAnswerIsTheLastLine(t *testing.T) {
	const (
		prompt = `{"type":"user","message":{"role":"user","content":"fix the test"}}`
		tool   = `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash"}]}}`
		result = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"}]}}`
		answer = `{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"Fixed."}]}}`
		system = `{"type":"system","subtype":"stop_hook_summary"}`
	)
	for _, c := range []struct {
		name  string
		lines []string
		want  bool
	}{
		{"the prompt only", []string{prompt}, false},
		{"a tool call", []string{prompt, tool}, false},
		{"a tool's result", []string{prompt, tool, result}, false},
		{"the answer", []string{prompt, tool, result, answer}, true},
		{"the answer, then a system line", []string{prompt, answer, system}, true},
		{"a new prompt after an answer", []string{prompt, answer, prompt}, false},
	} {
		path := filepath.Join(t.TempDir(), "session.jsonl")
		var data []byte
		for _, l := range c.lines {
			data = append(data, l+"\n"...)
		}
		_ = os.WriteFile(path, data, 0o600)
		if got, size := ClaudeTurnWritten(path); got != c.want || size != int64(len(data)) {
			t.Errorf("%s: written %v size %d, want %v and %d", c.name, got, size, c.want, len(data))
		}
	}
	if got, _ := ClaudeTurnWritten(filepath.Join("..", "..", "testdata", "receipts", "claude-2.1.330.jsonl")); !got {
		t.Error("Claude Code 2.1.330's finished session does not read as written")
	}
	if got, size := ClaudeTurnWritten(filepath.Join(t.TempDir(), "none.jsonl")); got || size != -1 {
		t.Errorf("a missing transcript: written %v size %d, want false and -1", got, size)
	}
}
