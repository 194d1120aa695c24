package receipt

// Claude Code's session transcript: ~/.claude/projects/<folder>/<session>.jsonl
// (its hooks get the path as transcript_path). Each assistant line carries
// message.id, message.model, message.usage and content blocks; one message
// may be written as several lines with the same id, one per block. Verified
// against Claude Code 2.1.197 and 2.1.330 (testdata/receipts/claude-*.jsonl).

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

type claudeLine struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Message   struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Usage   *claudeUsage    `json:"usage"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type claudeUsage struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheWrite int64 `json:"cache_creation_input_tokens"`
	CacheRead  int64 `json:"cache_read_input_tokens"`
}

type claudeBlock struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// claudeMessage is one model response, gathered from its lines.
type claudeMessage struct {
	model  string
	tokens Tokens
	tools  map[string]bool // tool_use blocks by id
}

// synthetic is the model Claude Code names on messages it writes itself
// (an API error, a usage limit): no model turn, no tokens.
const synthetic = "<synthetic>"

// ReadClaude reads what a Claude Code transcript reports from since on.
func ReadClaude(r io.Reader, since time.Time) (Usage, error) {
	var order []string
	messages := map[string]*claudeMessage{}
	n := 0
	err := eachLine(r, func(line []byte) {
		n++
		if !bytes.Contains(line, []byte(`"assistant"`)) {
			return
		}
		var l claudeLine
		if json.Unmarshal(line, &l) != nil || l.Type != "assistant" || l.Message.Model == synthetic ||
			!inWindow(l.Timestamp, since) {
			return
		}
		id := l.Message.ID
		if id == "" {
			id = "line " + strconv.Itoa(n) // no id: a message of its own
		}
		m := messages[id]
		if m == nil {
			m = &claudeMessage{tools: map[string]bool{}}
			messages[id] = m
			order = append(order, id)
		}
		if l.Message.Model != "" {
			m.model = l.Message.Model
		}
		if u := l.Message.Usage; u != nil && sane(u.Input, u.Output, u.CacheWrite, u.CacheRead) {
			// Every line of a message repeats its usage; the last is the final count.
			m.tokens = Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
		}
		var blocks []claudeBlock
		if json.Unmarshal(l.Message.Content, &blocks) == nil {
			for i, b := range blocks {
				if b.Type == "tool_use" {
					key := b.ID
					if key == "" {
						key = "line " + strconv.Itoa(n) + " block " + strconv.Itoa(i)
					}
					m.tools[key] = true
				}
			}
		}
	})
	var u Usage
	for _, id := range order {
		m := messages[id]
		u.Turns++
		u.ToolCalls += len(m.tools)
		u.add(m.model, m.tokens)
		if m.tokens.Sum() > 0 {
			u.Context = &Context{Tokens: m.tokens.Sum(), Model: m.model}
		}
	}
	return u, err
}

// ReadClaudeFile reads the transcript at path from since on.
func ReadClaudeFile(path string, since time.Time) (Usage, error) {
	return readFile(path, since, ReadClaude)
}

// ReadClaudeSession reads the session's transcript at path and those of the
// subagents it ran, kept beside it in <session>/subagents/…/agent-*.jsonl
// (Claude Code 2.1.330), from since on.
func ReadClaudeSession(path string, since time.Time) (Usage, error) {
	u, err := ReadClaudeFile(path, since)
	if err != nil {
		return u, err
	}
	sub := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	_ = filepath.WalkDir(sub, func(p string, d fs.DirEntry, err error) error {
		name := filepath.Base(p)
		if err != nil || d.IsDir() || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			return nil
		}
		if info, err := d.Info(); err != nil || info.ModTime().Before(since) {
			return nil
		}
		if s, err := ReadClaudeFile(p, since); err == nil {
			u = u.Add(s)
		}
		return nil
	})
	return u, nil
}

// ClaudeConfigDir is where Claude Code keeps its files: $CLAUDE_CONFIG_DIR,
// else ~/.claude.
func ClaudeConfigDir(getenv func(string) string) string {
	return agentFolder(getenv, "CLAUDE_CONFIG_DIR", ".claude")
}

// FindClaudeTranscript is the transcript of a session in folder cwd written
// last at or after since, under Claude Code's config folder; "" when none
// was. It serves when no hook told the transcript's path.
func FindClaudeTranscript(configDir, cwd string, since time.Time) string {
	paths, _ := filepath.Glob(filepath.Join(configDir, "projects", claudeFolder(cwd), "*.jsonl"))
	return lastWritten(paths, since, nil)
}

// claudeFolder is the name Claude Code gives a project's folder: its path
// with every UTF-16 unit but an ASCII letter or digit turned into '-'.
func claudeFolder(cwd string) string {
	var b strings.Builder
	for _, c := range filepath.Clean(cwd) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			b.WriteRune(c)
		case c > 0xFFFF: // two UTF-16 units
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// ClaudeTurnWritten says whether the Claude Code transcript at path holds
// the end of a turn: its last conversation line is the model's, after the
// last prompt or tool result, and asks for no tool. size is the file's
// size, to tell when the agent has stopped writing it; -1 when unreadable.
// Claude Code writes a turn's last message to its transcript a moment after
// it shows it (and, at times, after its Stop hook ran).
func ClaudeTurnWritten(path string) (written bool, size int64) {
	f, err := os.Open(path)
	if err != nil {
		return false, -1
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false, -1
	}
	_ = eachLine(f, func(line []byte) {
		if !bytes.Contains(line, []byte(`"user"`)) && !bytes.Contains(line, []byte(`"assistant"`)) {
			return
		}
		var l claudeLine
		if json.Unmarshal(line, &l) != nil {
			return
		}
		switch l.Type {
		case "user":
			written = false // a prompt or a tool's result: the model answers next
		case "assistant":
			var blocks []claudeBlock
			_ = json.Unmarshal(l.Message.Content, &blocks)
			written = !slices.ContainsFunc(blocks, func(b claudeBlock) bool { return b.Type == "tool_use" })
		}
	})
	return written, info.Size()
}
