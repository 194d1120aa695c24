package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// GitHub Copilot CLI (1.0.102) runs command hooks from its user folder
// (~/.copilot/hooks, settings.json), the project's .github/hooks and its
// plugins, all combined; `--plugin-dir DIR` loads one more plugin for one
// run. So each loop gives it a plugin in its state folder, as Claude Code
// gets a --settings file: nothing of the person's is written.

// CopilotEvents are Copilot CLI's hook events the watcher listens to, and
// what each reports. agentStop is the turn's end (it also runs a Stop hook,
// Claude Code's name, with Claude Code's input: not used, so as not to
// report twice); errorOccurred fires at each retry of a refused request;
// its notification (permission_prompt) comes as a permission dialog opens.
var CopilotEvents = []struct{ Event, Name string }{
	{"userPromptSubmitted", HookPromptSubmit},
	{"agentStop", HookTurnEnd},
	{"errorOccurred", HookTurnFailed},
	{"notification", HookNeedsInput},
}

// CopilotPlugin writes the loop's plugin into dir: plugin.json naming
// hooks.json, whose hooks run `EXECUTABLE hook NAME --state DIR`.
func CopilotPlugin(dir string, call func(name string) []string) error {
	type command struct {
		Type    string `json:"type"`
		Bash    string `json:"bash"`
		Timeout int    `json:"timeoutSec"`
	}
	hooks := map[string][]command{}
	for _, e := range CopilotEvents {
		hooks[e.Event] = []command{{Type: "command", Bash: ShellLine(call(e.Name)), Timeout: 10}}
	}
	files := map[string]any{
		"plugin.json": map[string]any{"name": "ralph-watch", "version": "1.0.0",
			"description": "reports the agent's turns to its ralph-watch loop", "hooks": "hooks.json"},
		"hooks.json": map[string]any{"version": 1, "hooks": hooks},
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, v := range files {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o600); err != nil {
			return err
		}
	}
	return nil
}
