package receipt

// Gemini CLI's chat recording: ~/.gemini/tmp/<project>/chats/session-*.jsonl
// (the project folder's path in tmp/<project>/.project_root). A line is the
// session's header, a message ({id, timestamp, type, tokens, model,
// toolCalls}; written again, same id, as it grows), a {"$set": …} update or a
// {"$rewindTo": id}. Model responses are type "gemini" with tokens {input,
// output, cached, thoughts, tool, total}. Verified against Gemini CLI 0.61.0
// (testdata/receipts/gemini-0.61.0.jsonl); older releases wrote one JSON
// object with a "messages" array, read the same way.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Model     string          `json:"model"`
	Tokens    *geminiTokens   `json:"tokens"`
	ToolCalls []geminiToolUse `json:"toolCalls"`
}

// geminiTokens are the API's counts: input includes the cached part; the
// thoughts and the tool-use prompt are counted apart.
type geminiTokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
}

type geminiToolUse struct {
	ID string `json:"id"`
}

// geminiRecord is any line: a message, or an update whose $set may hold messages.
type geminiRecord struct {
	geminiMessage
	Set *struct {
		Messages []geminiMessage `json:"messages"`
	} `json:"$set"`
	Messages []geminiMessage `json:"messages"` // the older one-object file
}

// ReadGemini reads what a Gemini CLI chat reports from since on. Rewound
// messages still count: they were paid for.
func ReadGemini(r io.Reader, since time.Time) (Usage, error) {
	data, err := io.ReadAll(r)
	var order []string
	latest := map[string]geminiMessage{}
	keep := func(m geminiMessage) {
		if m.ID == "" || m.Type != "gemini" {
			return
		}
		if _, seen := latest[m.ID]; !seen {
			order = append(order, m.ID)
		}
		latest[m.ID] = m // a message is written again as it grows; the last is whole
	}
	lines := bytes.Split(data, []byte("\n"))
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		lines = [][]byte{trimmed} // one object: the older format, or a single line
	}
	for _, line := range lines {
		var rec geminiRecord
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		keep(rec.geminiMessage)
		if rec.Set != nil {
			for _, m := range rec.Set.Messages {
				keep(m)
			}
		}
		for _, m := range rec.Messages {
			keep(m)
		}
	}
	var u Usage
	for _, id := range order {
		m := latest[id]
		t := m.Tokens
		if !inWindow(m.Timestamp, since) || t == nil && len(m.ToolCalls) == 0 {
			continue
		}
		u.Turns++
		seen := map[string]bool{}
		for _, c := range m.ToolCalls {
			if c.ID == "" || !seen[c.ID] {
				u.ToolCalls++
			}
			seen[c.ID] = true
		}
		if t != nil && sane(t.Input, t.Output, t.Cached, t.Thoughts, t.Tool) {
			u.add(m.Model, Tokens{Input: max(t.Input-t.Cached, 0) + t.Tool, Output: t.Output + t.Thoughts, CacheRead: min(t.Cached, t.Input)})
			u.Context = &Context{Tokens: t.Input + t.Tool + t.Output + t.Thoughts, Model: m.Model}
		}
	}
	return u, err
}

// ReadGeminiFile reads the chat at path from since on.
func ReadGeminiFile(path string, since time.Time) (Usage, error) {
	return readFile(path, since, ReadGemini)
}

// GeminiDir is where Gemini CLI keeps its files: $GEMINI_CLI_HOME/.gemini,
// else ~/.gemini.
func GeminiDir(getenv func(string) string) string {
	home := getenv("GEMINI_CLI_HOME")
	if home == "" {
		home = getenv("HOME")
	}
	return filepath.Join(home, ".gemini")
}

// FindGeminiChat is the chat of a session in folder cwd written last at or
// after since, under Gemini CLI's folder; "" when none was. A project's
// folder under tmp/ is known by its .project_root file, or (older
// releases) by the SHA-256 of its path as its name.
func FindGeminiChat(geminiDir, cwd string, since time.Time) string {
	sum := sha256.Sum256([]byte(cwd))
	hash := hex.EncodeToString(sum[:])
	projects, _ := filepath.Glob(filepath.Join(geminiDir, "tmp", "*"))
	var paths []string
	for _, p := range projects {
		root, err := os.ReadFile(filepath.Join(p, ".project_root"))
		if filepath.Base(p) != hash && (err != nil || !samePath(strings.TrimSpace(string(root)), cwd)) {
			continue
		}
		for _, pattern := range []string{"session-*.jsonl", "session-*.json"} {
			found, _ := filepath.Glob(filepath.Join(p, "chats", pattern))
			paths = append(paths, found...)
		}
	}
	return lastWritten(paths, since, nil)
}
