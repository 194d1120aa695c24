package agent

import (
	"encoding/json"
	"strings"
)

// ClaudeEvents are Claude Code's hook events the watcher listens to, and
// what each reports (Claude Code 2.1.197 and 2.1.330 have them all). A
// PreToolUse hook that prints nothing and exits 0 decides nothing: the
// tool's permission goes as it would.
var ClaudeEvents = []struct{ Event, Name string }{
	{"SessionStart", HookSessionStart},
	{"UserPromptSubmit", HookPromptSubmit},
	{"Stop", HookTurnEnd},
	{"StopFailure", HookTurnFailed},
	{"Notification", HookNeedsInput},
	{"PermissionRequest", HookNeedsInput},
	{"PreToolUse", HookWorking},
	{"PostToolUse", HookWorking},
}

// ClaudeSettings is a --settings file whose hooks call back: each event
// runs `EXECUTABLE hook NAME --state DIR`.
func ClaudeSettings(call func(name string) []string) []byte {
	type command struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	type matcher struct {
		Hooks []command `json:"hooks"`
	}
	hooks := map[string][]matcher{}
	for _, e := range ClaudeEvents {
		hooks[e.Event] = []matcher{{Hooks: []command{{Type: "command", Command: ShellLine(call(e.Name))}}}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": hooks})
	return append(b, '\n')
}

// ShellLine joins words into one sh command line, each quoted.
func ShellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = ShellQuote(w)
	}
	return strings.Join(q, " ")
}

// CodexNotify is the -c setting that makes Codex run words at each turn's
// end.
func CodexNotify(words []string) string {
	quoted := make([]string, len(words))
	for i, s := range words {
		quoted[i] = jsonString(s) // JSON's string escapes are TOML's too
	}
	return "notify=[" + strings.Join(quoted, ",") + "]"
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ShellQuote quotes s for sh.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
