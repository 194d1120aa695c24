package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The loop's plugin is added to the person's own OPENCODE_CONFIG_CONTENT,
// their plugins kept; what OpenCode would not read is refused.
func TestOpenCodeConfigAddsThePluginToThePersonsLayer(t *testing.T) {
	for _, c := range []struct{ person, want string }{
		{"", `{"plugin":["file:///s/opencode-plugin.js"]}`},
		{`{"model": "a/b", // theirs
		   "plugin": ["their-plugin"]}`, `{"model":"a/b","plugin":["their-plugin","file:///s/opencode-plugin.js"]}`},
	} {
		got, err := OpenCodeConfig(c.person, "/s/opencode-plugin.js")
		if err != nil || got != c.want {
			t.Errorf("%q: %s %v, want %s", c.person, got, err, c.want)
		}
	}
	for _, bad := range []string{`[1]`, `{"plugin": "x"}`, `{`} {
		if got, err := OpenCodeConfig(bad, "/s/p.js"); err == nil {
			t.Errorf("%q: no error, made %s", bad, got)
		}
	}
}

// The plugin calls back ralph-watch with each name, and appends its usage
// lines in the loop's state folder, whose path it leaves in transcript.
func TestOpenCodePluginCallsEachHookAndKeepsTheUsage(t *testing.T) {
	src := string(OpenCodePlugin("/state/it's", func(name string) []string { return []string{"/bin/ralph-watch", "hook", name} }))
	for _, e := range OpenCodeEvents {
		if !strings.Contains(src, `"`+e.Name+`":["/bin/ralph-watch","hook","`+e.Name+`"]`) || !strings.Contains(src, `report("`+e.Name+`"`) {
			t.Errorf("the plugin does not report %s", e.Name)
		}
	}
	for _, want := range []string{`"/state/it's/opencode-usage.jsonl"`, `"/state/it's/transcript"`, `"session.idle"`, `p.info.parentID`} {
		if !strings.Contains(src, want) {
			t.Errorf("the plugin lacks %s", want)
		}
	}
}

// Copilot CLI's plugin folder: a manifest naming its hooks file, whose
// command hooks call back ralph-watch.
func TestCopilotPluginIsAPluginFolderWithHooks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "copilot-plugin")
	if err := CopilotPlugin(dir, func(name string) []string { return []string{"/bin/ralph-watch", "hook", name} }); err != nil {
		t.Fatal(err)
	}
	var manifest struct{ Name, Hooks string }
	var hooks struct {
		Version int
		Hooks   map[string][]struct{ Type, Bash string }
	}
	for name, v := range map[string]any{"plugin.json": &manifest, "hooks.json": &hooks} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || json.Unmarshal(b, v) != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
	}
	if manifest.Hooks != "hooks.json" || hooks.Version != 1 {
		t.Errorf("manifest %+v, hooks version %d", manifest, hooks.Version)
	}
	for _, e := range CopilotEvents {
		if h := hooks.Hooks[e.Event]; len(h) != 1 || h[0].Type != "command" || h[0].Bash != "'/bin/ralph-watch' 'hook' '"+e.Name+"'" {
			t.Errorf("%s: %+v", e.Event, h)
		}
	}
}
