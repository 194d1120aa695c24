package receipt

// Codex's session rollout: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl.
// Lines are {timestamp, type, payload}: session_meta (the cwd), turn_context
// (the model), response_item (function_call… the tools), and event_msg
// token_count after each model response, with info.last_token_usage (that
// response) and info.total_token_usage (the session so far). Verified
// against Codex 0.169.0 (testdata/receipts/codex-0.169.0.jsonl).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type  string `json:"type"`
	Model string `json:"model"` // turn_context
	CWD   string `json:"cwd"`   // session_meta
	Info  *struct {
		Total  *codexTokens `json:"total_token_usage"`
		Last   *codexTokens `json:"last_token_usage"`
		Window int64        `json:"model_context_window"`
	} `json:"info"` // token_count
}

// codexTokens are OpenAI's counts: input includes the cached (and
// cache-written) part, output includes reasoning.
type codexTokens struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
	Total      int64 `json:"total_tokens"`
}

func (c codexTokens) valid() bool {
	return sane(c.Input, c.Cached, c.CacheWrite, c.Output)
}

func (c codexTokens) tokens() Tokens {
	return Tokens{Input: max(c.Input-c.Cached-c.CacheWrite, 0), Output: c.Output, CacheRead: c.Cached, CacheWrite: c.CacheWrite}
}

// ReadCodex reads what a Codex rollout reports from since on.
func ReadCodex(r io.Reader, since time.Time) (Usage, error) {
	var u Usage
	model := ""
	var lastTotal *codexTokens
	err := eachLine(r, func(line []byte) {
		var l codexLine
		if json.Unmarshal(line, &l) != nil {
			return
		}
		var p codexPayload
		if json.Unmarshal(l.Payload, &p) != nil {
			return
		}
		now := inWindow(l.Timestamp, since)
		switch {
		case l.Type == "turn_context":
			if p.Model != "" {
				model = p.Model // a turn before since still names the model of those after
			}
		case l.Type == "response_item" && strings.HasSuffix(p.Type, "_call"):
			if now {
				u.ToolCalls++
			}
		case l.Type == "event_msg" && p.Type == "token_count" && p.Info != nil && p.Info.Last != nil && p.Info.Last.valid():
			// Codex repeats token_count with the same totals (a rate-limit update): count a response once.
			if t := p.Info.Total; t != nil {
				if lastTotal != nil && *t == *lastTotal {
					return
				}
				lastTotal = t
			}
			if now {
				u.Turns++
				u.add(model, p.Info.Last.tokens())
				u.Context = &Context{Tokens: p.Info.Last.Input + p.Info.Last.Output, Model: model, Window: p.Info.Window}
			}
		}
	})
	return u, err
}

// ReadCodexFile reads the rollout at path from since on.
func ReadCodexFile(path string, since time.Time) (Usage, error) {
	return readFile(path, since, ReadCodex)
}

// CodexHome is where Codex keeps its files: $CODEX_HOME, else ~/.codex.
func CodexHome(getenv func(string) string) string {
	return agentFolder(getenv, "CODEX_HOME", ".codex")
}

// FindCodexRollout is the rollout written last at or after since whose
// session ran in folder cwd (any folder when cwd is "", or when the file
// does not say), under Codex's home; "" when none was.
func FindCodexRollout(home, cwd string, since time.Time) string {
	// A resumed session goes on in the rollout of the day it began: every day is looked at.
	paths, _ := filepath.Glob(filepath.Join(home, "sessions", "[0-9]*", "[0-9]*", "[0-9]*", "rollout-*.jsonl"))
	return lastWritten(paths, since, inFolder(cwd, codexSessionCWD))
}

// codexSessionCWD is the folder a rollout's session_meta names, "" if none.
func codexSessionCWD(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	first, _ := bufio.NewReader(f).ReadBytes('\n')
	var l codexLine
	var p codexPayload
	if json.Unmarshal(bytes.TrimSpace(first), &l) != nil || l.Type != "session_meta" || json.Unmarshal(l.Payload, &p) != nil {
		return ""
	}
	return p.CWD
}
