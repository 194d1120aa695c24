package receipt

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeAt writes a file and sets its modification time.
func writeAt(t *testing.T, path, content string, mod time.Time) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFindClaudeTranscriptTakesTheProjectsSessionWrittenDuringTheIteration(t *testing.T) {
	config := t.TempDir()
	start := at("2026-11-22T11:00:00Z")
	folder := filepath.Join(config, "projects", "-home-dev-my-proj")
	writeAt(t, filepath.Join(folder, "old.jsonl"), "{}\n", start.Add(-time.Hour))
	want := writeAt(t, filepath.Join(folder, "new.jsonl"), "{}\n", start.Add(time.Minute))
	writeAt(t, filepath.Join(config, "projects", "-home-dev-other", "x.jsonl"), "{}\n", start.Add(2*time.Minute))

	if got := FindClaudeTranscript(config, "/home/dev/my_proj", start); got != want {
		t.Errorf("found %q, want %q", got, want)
	}
	if got := FindClaudeTranscript(config, "/home/dev/my_proj", start.Add(time.Hour)); got != "" {
		t.Errorf("nothing was written after the start, found %q", got)
	}
}

func TestClaudeFolderIsThePathWithEveryOtherCharacterADash(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/ralph-doctor-191996974/hook/proj": "-tmp-ralph-doctor-191996974-hook-proj",
		"/home/dev/my.proj_2/":                  "-home-dev-my-proj-2",
		"/home/dev/café":                        "-home-dev-caf-",
	} {
		if got := claudeFolder(in); got != want {
			t.Errorf("claudeFolder(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFindCodexRolloutTakesTheSessionOfTheFolderWrittenDuringTheIteration(t *testing.T) {
	home := t.TempDir()
	start := at("2026-11-22T11:00:00Z")
	meta := func(cwd string) string {
		return `{"timestamp":"2026-11-22T11:00:01Z","type":"session_meta","payload":{"id":"x","cwd":"` + cwd + `","cli_version":"0.169.0"}}` + "\n"
	}
	day := filepath.Join(home, "sessions", "2026", "11", "22")
	writeAt(t, filepath.Join(day, "rollout-2026-11-22T10-00-00-a.jsonl"), meta("/p"), start.Add(-time.Hour))
	want := writeAt(t, filepath.Join(day, "rollout-2026-11-22T11-00-01-b.jsonl"), meta("/p"), start.Add(time.Minute))
	other := writeAt(t, filepath.Join(day, "rollout-2026-11-22T11-00-02-c.jsonl"), meta("/elsewhere"), start.Add(2*time.Minute))

	if got := FindCodexRollout(home, "/p", start); got != want {
		t.Errorf("found %q, want %q", got, want)
	}
	if got := FindCodexRollout(home, "", start); got != other {
		t.Errorf("any folder: found %q, want %q", got, other)
	}
	// A resumed session goes on writing the rollout of the day it began.
	resumed := writeAt(t, filepath.Join(home, "sessions", "2026", "10", "01", "rollout-2026-10-01T00-00-00-d.jsonl"),
		meta("/p"), start.Add(3*time.Minute))
	if got := FindCodexRollout(home, "/p", start); got != resumed {
		t.Errorf("resumed: found %q, want %q", got, resumed)
	}
}

func TestFindGeminiChatKnowsTheProjectByItsRootFile(t *testing.T) {
	dir := t.TempDir()
	start := at("2026-11-22T11:00:00Z")
	writeAt(t, filepath.Join(dir, "tmp", "proj", ".project_root"), "/home/dev/proj", start.Add(-time.Hour))
	want := writeAt(t, filepath.Join(dir, "tmp", "proj", "chats", "session-2026-11-22T11-00-aa.jsonl"), "{}\n", start.Add(time.Minute))
	writeAt(t, filepath.Join(dir, "tmp", "proj-1", ".project_root"), "/home/dev/other/proj", start.Add(-time.Hour))
	writeAt(t, filepath.Join(dir, "tmp", "proj-1", "chats", "session-2026-11-22T11-01-bb.jsonl"), "{}\n", start.Add(2*time.Minute))

	if got := FindGeminiChat(dir, "/home/dev/proj", start); got != want {
		t.Errorf("found %q, want %q", got, want)
	}
	if got := FindGeminiChat(dir, "/nowhere", start); got != "" {
		t.Errorf("no project of that folder, found %q", got)
	}
}

func TestAgentFoldersFollowTheirEnvironment(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	home := map[string]string{"HOME": "/h"}
	set := map[string]string{"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x", "GEMINI_CLI_HOME": "/g"}
	for _, tt := range []struct{ got, want string }{
		{ClaudeConfigDir(env(home)), "/h/.claude"}, {ClaudeConfigDir(env(set)), "/c"},
		{CodexHome(env(home)), "/h/.codex"}, {CodexHome(env(set)), "/x"},
		{GeminiDir(env(home)), "/h/.gemini"}, {GeminiDir(env(set)), "/g/.gemini"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestSessionReadFindsEachAgentsFile(t *testing.T) {
	home := t.TempDir()
	start := at("2026-11-22T19:00:00Z")
	copyFixture := func(name, to string) string {
		data, err := os.ReadFile(fixture(name))
		if err != nil {
			t.Fatal(err)
		}
		return writeAt(t, to, string(data), start.Add(time.Hour))
	}
	claude := copyFixture("claude-2.1.330.jsonl", filepath.Join(home, ".claude", "projects", "-home-dev-proj", "s.jsonl"))
	codex := copyFixture("codex-0.169.0.jsonl", filepath.Join(home, ".codex", "sessions", "2026", "11", "22", "rollout-x.jsonl"))
	writeAt(t, filepath.Join(home, ".gemini", "tmp", "proj", ".project_root"), "/home/dev/proj\n", start)
	gemini := copyFixture("gemini-0.61.0.jsonl", filepath.Join(home, ".gemini", "tmp", "proj", "chats", "session-x.jsonl"))
	copilot := copyFixture("copilot-1.0.102.jsonl", filepath.Join(home, ".copilot", "session-state", "s1", "events.jsonl"))
	opencode := copyFixture("opencode-1.18.33.jsonl", filepath.Join(home, "state", "opencode-usage.jsonl"))
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	for _, tt := range []struct {
		agent, transcript, want string
		turns                   int
	}{
		{"claude", "", claude, 2},
		{"claude", claude + "\n", claude, 2}, // as the state folder keeps it
		{"codex", "", codex, 2},
		{"gemini", "", gemini, 2},
		{"copilot", "", copilot, 2},
		{"opencode", opencode + "\n", opencode, 2}, // named by its loop's plugin
		{"opencode", "", "", 0},                    // no plugin, nothing read
		{"aider", "", "", 0},
	} {
		u, source, err := Session{Agent: tt.agent, Getenv: getenv, Dir: "/home/dev/proj", Transcript: tt.transcript, Since: start}.Read()
		if err != nil || source != tt.want || u.Turns != tt.turns {
			t.Errorf("%s: %d turns from %q, %v; want %d from %q", tt.agent, u.Turns, source, err, tt.turns, tt.want)
		}
	}
	_, _, err := Session{Agent: "claude", Getenv: getenv, Transcript: filepath.Join(home, "gone.jsonl"), Since: start}.Read()
	if !os.IsNotExist(err) {
		t.Errorf("a transcript that is gone: %v", err)
	}
}

func TestReadClaudeSessionAddsItsSubagentsTranscripts(t *testing.T) {
	dir := t.TempDir()
	start := at("2026-11-22T11:00:00Z")
	split, err := os.ReadFile(fixture("claude-split.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	main := writeAt(t, filepath.Join(dir, "s1.jsonl"), string(split), start.Add(time.Hour))
	sub := `{"isSidechain":true,"agentId":"a1","type":"assistant","timestamp":"2026-11-22T11:00:30Z","message":{"id":"msg_sub","model":"claude-haiku-4-5","content":[{"type":"tool_use","id":"toolu_s"}],"usage":{"input_tokens":7,"output_tokens":3}}}` + "\n"
	writeAt(t, filepath.Join(dir, "s1", "subagents", "agent-a1.jsonl"), sub, start.Add(time.Hour))
	writeAt(t, filepath.Join(dir, "s1", "subagents", "agent-old.jsonl"), sub, start.Add(-time.Hour))
	writeAt(t, filepath.Join(dir, "s1", "subagents", "notes.txt"), sub, start.Add(time.Hour))

	got, err := ReadClaudeSession(main, start)
	if err != nil {
		t.Fatal(err)
	}
	if got.Turns != 3 || got.ToolCalls != 4 || got.Models["claude-haiku-4-5"] != (Tokens{Input: 7, Output: 3}) || got.Input != 17 {
		t.Errorf("got %+v", got)
	}
}
