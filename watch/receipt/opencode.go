package receipt

// OpenCode keeps its sessions in a SQLite database; its loop's plugin
// (agent.OpenCodePlugin) appends what OpenCode's events say instead, one
// JSON line each: {"timestamp", "type": "response", "model", "input",
// "output", "cache_read", "cache_write"} when a model response is complete
// (its message.updated with time.completed; output includes reasoning), and
// {"timestamp", "type": "tool"} for each tool call. OpenCode counts input
// without the cached part. Verified against OpenCode 1.18.33
// (testdata/receipts/opencode-1.18.33.jsonl), whose fake API reported no
// cache.

import (
	"encoding/json"
	"io"
	"time"
)

type openCodeLine struct {
	Timestamp  string `json:"timestamp"`
	Type       string `json:"type"`
	Model      string `json:"model"`
	Input      int64  `json:"input"`
	Output     int64  `json:"output"`
	CacheRead  int64  `json:"cache_read"`
	CacheWrite int64  `json:"cache_write"`
}

// ReadOpenCode reads the plugin's lines from since on.
func ReadOpenCode(r io.Reader, since time.Time) (Usage, error) {
	var u Usage
	err := eachLine(r, func(line []byte) {
		var l openCodeLine
		if json.Unmarshal(line, &l) != nil || !inWindow(l.Timestamp, since) {
			return
		}
		switch l.Type {
		case "tool":
			u.ToolCalls++
		case "response":
			if !sane(l.Input, l.Output, l.CacheRead, l.CacheWrite) {
				return
			}
			u.Turns++
			u.add(l.Model, Tokens{Input: l.Input, Output: l.Output, CacheRead: l.CacheRead, CacheWrite: l.CacheWrite})
		}
	})
	return u, err
}

// ReadOpenCodeFile reads the plugin's file at path from since on.
func ReadOpenCodeFile(path string, since time.Time) (Usage, error) {
	return readFile(path, since, ReadOpenCode)
}
