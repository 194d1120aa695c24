package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/jsontext"
)

// Gemini CLI (0.61.0) reads its user settings from $GEMINI_CLI_HOME/.gemini
// when that variable is set, else from ~/.gemini. Its system settings files
// (GEMINI_CLI_SYSTEM_SETTINGS_PATH, GEMINI_CLI_SYSTEM_DEFAULTS_PATH) would
// carry hooks without touching the person's files, but it skips any that is
// not owned by root. So each loop gets an overlay of the person's Gemini
// home (the one the agent runs with): its .gemini folder holds a copy of
// each of the person's files (the login, the trusted folders), a link to
// each of their folders (extensions, commands) but the ones Gemini CLI
// writes in (tmp, history: the loop's own, empty), and a settings.json of
// its own, the person's settings with the loop's hooks added. What the
// agent writes stays in the overlay: the person's folder is never written,
// but for the files that hold a login (oauth_creds.json, .env, …), which
// are links: a key is never copied to disk by the loop.

// GeminiEvents are Gemini CLI's hook events the watcher listens to, and what
// each reports (Gemini CLI 0.61.0 has them all; hooks of each event are
// concatenated across its settings files).
var GeminiEvents = []struct{ Event, Name string }{
	{"SessionStart", HookSessionStart},
	{"BeforeAgent", HookPromptSubmit},
	{"AfterAgent", HookTurnEnd},
	{"Notification", HookNeedsInput},
}

// GeminiHomeVar is the variable by which Gemini CLI finds its folder.
const GeminiHomeVar = "GEMINI_CLI_HOME"

// GeminiSettings adds the loop's hooks to the person's settings.json
// (JSON with comments, as Gemini CLI reads it; empty for none): each event
// runs `EXECUTABLE hook NAME --state DIR`, after the person's own hooks.
func GeminiSettings(person []byte, call func(name string) []string) ([]byte, error) {
	settings := map[string]any{}
	if len(person) > 0 {
		if err := json.Unmarshal(StripJSONComments(person), &settings); err != nil {
			return nil, fmt.Errorf("read settings.json: %v", err)
		}
		if settings == nil {
			settings = map[string]any{}
		}
	}
	hooks, ok := settings["hooks"].(map[string]any)
	if !ok {
		if settings["hooks"] != nil {
			return nil, errors.New(`settings.json: "hooks" is not an object`)
		}
		hooks = map[string]any{}
	}
	for _, e := range GeminiEvents {
		ours := map[string]any{"hooks": []any{map[string]any{
			"type": "command", "name": "ralph-watch " + e.Name, "command": ShellLine(call(e.Name))}}}
		list, _ := hooks[e.Event].([]any)
		if hooks[e.Event] != nil && list == nil {
			return nil, fmt.Errorf("settings.json: hooks.%s is not a list", e.Event)
		}
		hooks[e.Event] = append(list, ours)
	}
	settings["hooks"] = hooks
	b, err := json.MarshalIndent(settings, "", "  ")
	return append(b, '\n'), err
}

// geminiWrites are the folders of .gemini Gemini CLI writes in as it works
// (chats, logs, checkpoints, shell history): the overlay's own, empty.
var geminiWrites = []string{"tmp", "history"}

// GeminiOverlay makes dir the loop's Gemini home: dir/.gemini holds a copy
// of each file of base/.gemini (the person's Gemini home: the agent's
// $GEMINI_CLI_HOME, else its $HOME) but settings.json, which is the
// person's with the loop's hooks, and a link to each folder but
// geminiWrites. What was in dir before is replaced.
func GeminiOverlay(base, dir string, call func(name string) []string) error {
	person := filepath.Join(base, ".gemini")
	settings, err := os.ReadFile(filepath.Join(person, "settings.json"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	merged, err := GeminiSettings(settings, call)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil { // links only: their targets stay
		return err
	}
	own := filepath.Join(dir, ".gemini")
	if err := os.MkdirAll(own, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(person)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		from, to := filepath.Join(person, e.Name()), filepath.Join(own, e.Name())
		info, err := os.Stat(from)
		switch {
		case err != nil || e.Name() == "settings.json" || slices.Contains(geminiWrites, e.Name()):
			err = nil // a dangling link is left out too
		case info.IsDir() || holdsLogin(e.Name()):
			err = os.Symlink(from, to)
		case info.Mode().IsRegular():
			err = copyFile(from, to)
		}
		if err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(own, "settings.json"), merged, 0o600)
}

// holdsLogin tells a file of .gemini that holds a login or a key by its
// name: oauth_creds.json, mcp-oauth-tokens.json, .env, a key file.
func holdsLogin(name string) bool {
	name = strings.ToLower(name)
	for _, w := range []string{"cred", "token", "oauth", "secret", "key", "passw", ".env"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// copyFile copies a regular file, readable by its owner alone.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}

// StripJSONComments blanks // and /* */ comments outside JSON strings, as
// Gemini CLI does before it parses its settings.
func StripJSONComments(b []byte) []byte {
	out := make([]byte, 0, len(b))
	var text jsontext.Strings
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case text.Step(c): // in a string: kept as it is
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			if i < len(b) {
				out = append(out, '\n')
			}
			continue
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := i + 2
			for end+1 < len(b) && !(b[end] == '*' && b[end+1] == '/') {
				end++
			}
			i = end + 1
			out = append(out, ' ')
			continue
		}
		out = append(out, c)
	}
	return out
}
