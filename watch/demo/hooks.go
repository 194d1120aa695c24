package demo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// runHooks runs the hooks for event of the settings file the agent was
// started with (--settings), as Claude Code does: each command by sh, the
// event's JSON on stdin ({"hook_event_name":EVENT} merged with fields).
func (a *Agent) runHooks(event, fields string) error {
	path := a.getenv("FAKEAGENT_SETTINGS")
	if path == "" {
		return errors.New("no --settings file")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		return err
	}
	input := map[string]any{}
	if fields != "" {
		if err := json.Unmarshal([]byte(fields), &input); err != nil {
			return fmt.Errorf("hook %s input: %v", event, err)
		}
	}
	input["hook_event_name"] = event
	stdin, _ := json.Marshal(input)
	for _, m := range settings.Hooks[event] {
		for _, h := range m.Hooks {
			cmd := exec.Command("sh", "-c", h.Command)
			cmd.Stdin = bytes.NewReader(stdin)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s hook: %v: %s", event, err, out)
			}
		}
	}
	return nil
}
