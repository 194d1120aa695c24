package receipt

// GitHub Copilot CLI's session events: $COPILOT_HOME/session-state/<session>/
// events.jsonl (COPILOT_HOME defaults to ~/.copilot). Lines are {type, data,
// id, timestamp}: session.start (data.context.cwd), tool.execution_start
// (a tool the model asked for), and session.usage_record after each model
// call, data.usage {model, inputTokens, outputTokens, cacheReadTokens,
// cacheWriteTokens, reasoningTokens}. Verified against Copilot CLI 1.0.102
// (testdata/receipts/copilot-1.0.102.jsonl), whose fake API reported no
// cache: inputTokens is read as OpenAI counts it, the cached part included.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"
)

type copilotLine struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      struct {
		Usage *struct {
			Model      string `json:"model"`
			Input      int64  `json:"inputTokens"`
			Output     int64  `json:"outputTokens"`
			CacheRead  int64  `json:"cacheReadTokens"`
			CacheWrite int64  `json:"cacheWriteTokens"`
		} `json:"usage"`
		Context *struct {
			CWD string `json:"cwd"`
		} `json:"context"`
	} `json:"data"`
}

// ReadCopilot reads what Copilot CLI's session events report from since on.
func ReadCopilot(r io.Reader, since time.Time) (Usage, error) {
	return readEvents[copilotLine](r, since)
}

// event: tool.execution_start is a tool call, session.usage_record a model call.
func (l copilotLine) event() (e event, ok bool) {
	e.stamp = l.Timestamp
	switch l.Type {
	case "tool.execution_start":
		e.tool = true
	case "session.usage_record":
		c := l.Data.Usage
		if c == nil || !sane(c.Input, c.Output, c.CacheRead, c.CacheWrite) {
			return e, false
		}
		e.model, e.call = c.Model, &Tokens{Input: max(c.Input-c.CacheRead-c.CacheWrite, 0), Output: c.Output,
			CacheRead: c.CacheRead, CacheWrite: c.CacheWrite}
	}
	return e, true
}

// ReadCopilotFile reads the session events at path from since on.
func ReadCopilotFile(path string, since time.Time) (Usage, error) {
	return readFile(path, since, ReadCopilot)
}

// CopilotHome is where Copilot CLI keeps its files: $COPILOT_HOME, else ~/.copilot.
func CopilotHome(getenv func(string) string) string {
	return agentFolder(getenv, "COPILOT_HOME", ".copilot")
}

// FindCopilotSession is the session events file written last at or after
// since whose session ran in folder cwd (any when cwd is "" or the file
// does not say); "" when none was.
func FindCopilotSession(home, cwd string, since time.Time) string {
	paths, _ := filepath.Glob(filepath.Join(home, "session-state", "*", "events.jsonl"))
	return lastWritten(paths, since, inFolder(cwd, copilotSessionCWD))
}

// copilotSessionCWD is the folder a session's first line (session.start)
// names, "" if none.
func copilotSessionCWD(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	first, _ := bufio.NewReader(f).ReadBytes('\n')
	var l copilotLine
	if json.Unmarshal(bytes.TrimSpace(first), &l) != nil || l.Type != "session.start" || l.Data.Context == nil {
		return ""
	}
	return l.Data.Context.CWD
}
