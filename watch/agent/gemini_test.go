package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func geminiCall(name string) []string {
	return []string{"/bin/ralph-watch", "hook", name, "--state", "/s/it's"}
}

func TestGeminiSettingsAddTheLoopsHooksAfterThePersons(t *testing.T) {
	person := []byte(`{
  // the person's comment, and a "// not a comment" string
  "ui": {"theme": "dark // still a string"},
  /* a block
     comment */
  "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}
}`)
	b, err := GeminiSettings(person, geminiCall)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		UI    map[string]string `json:"ui"`
		Hooks map[string][]struct {
			Hooks []struct{ Type, Name, Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if got.UI["theme"] != "dark // still a string" {
		t.Errorf("the person's setting became %q", got.UI["theme"])
	}
	if after := got.Hooks["AfterAgent"]; len(after) != 2 || after[0].Hooks[0].Command != "notify-send done" ||
		after[1].Hooks[0].Command != `'/bin/ralph-watch' 'hook' 'turn-end' '--state' '/s/it'\''s'` {
		t.Errorf("AfterAgent hooks %+v, want the person's then the loop's", after)
	}
	for _, e := range GeminiEvents {
		list := got.Hooks[e.Event]
		if len(list) == 0 || !strings.Contains(list[len(list)-1].Hooks[0].Command, "'"+e.Name+"'") {
			t.Errorf("%s runs %+v, want hook %s", e.Event, list, e.Name)
		}
	}
}

func TestGeminiSettingsRefuseWhatGeminiWouldNotRead(t *testing.T) {
	for _, bad := range []string{`{"hooks": [1]}`, `{"hooks": {"AfterAgent": {}}}`, `{"ui": `, `[1]`} {
		if b, err := GeminiSettings([]byte(bad), geminiCall); err == nil {
			t.Errorf("%s: no error, made %s", bad, b)
		}
	}
	if _, err := GeminiSettings(nil, geminiCall); err != nil {
		t.Errorf("no settings: %v", err)
	}
}

// The overlay copies the person's files but their logins, links their
// folders but the ones Gemini CLI writes in, and writes none of theirs.
func TestGeminiOverlayKeepsThePersonsFilesUntouched(t *testing.T) {
	base, dir := t.TempDir(), filepath.Join(t.TempDir(), "gemini-home")
	person := filepath.Join(base, ".gemini")
	files := map[string]string{"settings.json": `{"ui": {"theme": "dark"}}`, "oauth_creds.json": `{"token": 1}`,
		".env": "GEMINI_API_KEY=k", "mcp-oauth-tokens.json": `[]`,
		"trustedFolders.json": `{}`, "tmp/chat.json": `[]`, "commands/x.toml": `x`}
	for name, body := range files {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(person, name)), 0o700)
		if err := os.WriteFile(filepath.Join(person, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 { // a second loop start replaces the first overlay
		if err := GeminiOverlay(base, dir, geminiCall); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range files {
		if b, _ := os.ReadFile(filepath.Join(person, name)); string(b) != body {
			t.Errorf("the person's %s became %q", name, b)
		}
	}
	for _, name := range []string{"trustedFolders.json"} {
		fi, err := os.Lstat(filepath.Join(dir, ".gemini", name))
		if b, _ := os.ReadFile(filepath.Join(dir, ".gemini", name)); err != nil || !fi.Mode().IsRegular() || string(b) != files[name] {
			t.Errorf("overlay %s: %v %q, want a copy of the person's: what the agent writes must not reach theirs", name, err, b)
		}
	}
	// A login is never copied: the loop writes no key to disk.
	for _, name := range []string{"oauth_creds.json", ".env", "mcp-oauth-tokens.json"} {
		if target, err := os.Readlink(filepath.Join(dir, ".gemini", name)); err != nil || target != filepath.Join(person, name) {
			t.Errorf("overlay %s -> %q (%v), want a link to the person's file, not a copy of their login", name, target, err)
		}
	}
	if target, err := os.Readlink(filepath.Join(dir, ".gemini", "commands")); err != nil || target != filepath.Join(person, "commands") {
		t.Errorf("overlay commands -> %q (%v), want a link to the person's folder", target, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".gemini", "tmp")); err == nil {
		t.Errorf("overlay has the person's tmp: the agent's chats and logs would be written there")
	}
	b, err := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json"))
	if err != nil || !strings.Contains(string(b), `"theme": "dark"`) || !strings.Contains(string(b), "AfterAgent") {
		t.Errorf("overlay settings %s (%v), want the person's with the hooks", b, err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, ".gemini", "settings.json")); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		t.Errorf("overlay settings.json must be its own file: %v", err)
	}
}

// A person who never ran Gemini CLI gets an overlay with the hooks alone.
func TestGeminiOverlayWithoutAGeminiFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gemini-home")
	if err := GeminiOverlay(t.TempDir(), dir, geminiCall); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json")); err != nil || !strings.Contains(string(b), "SessionStart") {
		t.Errorf("settings %s (%v)", b, err)
	}
}
