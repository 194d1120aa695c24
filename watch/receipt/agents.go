package receipt

import (
	"os"
	"strings"
	"time"
)

// Session says where an agent's own session files are, for one iteration.
type Session struct {
	Agent  string              // claude, codex, gemini, copilot, opencode; others report nothing
	Getenv func(string) string // the agent's environment: HOME, CODEX_HOME…
	Dir    string              // the folder the agent runs in
	// Transcript is the path a hook reported (Claude Code's
	// transcript_path, kept in the state folder's transcript file); "" if none.
	Transcript string
	Since      time.Time // when the iteration began
}

// Read finds the agent's session file written during the iteration and
// reads what it reports from Since on. source is the file read; "" (and no
// error) when the agent keeps no such file or wrote none.
func (s Session) Read() (u Usage, source string, err error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var read func(string, time.Time) (Usage, error)
	switch s.Agent {
	case "claude":
		source, read = strings.TrimSpace(s.Transcript), ReadClaudeSession
		if source == "" {
			source = FindClaudeTranscript(ClaudeConfigDir(getenv), s.Dir, s.Since)
		}
	case "codex":
		source, read = FindCodexRollout(CodexHome(getenv), s.Dir, s.Since), ReadCodexFile
	case "gemini":
		source, read = FindGeminiChat(GeminiDir(getenv), s.Dir, s.Since), ReadGeminiFile
	case "copilot":
		source, read = FindCopilotSession(CopilotHome(getenv), s.Dir, s.Since), ReadCopilotFile
	case "opencode": // its loop's plugin writes the file, and names it
		source, read = strings.TrimSpace(s.Transcript), ReadOpenCodeFile
	}
	if source == "" {
		return Usage{}, "", nil
	}
	u, err = read(source, s.Since)
	if err != nil {
		return Usage{}, "", err
	}
	return u, source, nil
}
