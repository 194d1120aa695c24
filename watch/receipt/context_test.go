package receipt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestContextPercentTakesTheAgentsWindowElseTheTable(t *testing.T) {
	for _, tc := range []struct {
		c      Context
		pct    int
		window int64
	}{
		{Context{Tokens: 150_000, Model: "claude-sonnet-4-5-20250929"}, 75, 200_000},
		{Context{Tokens: 150_000, Model: "claude-opus-5-5"}, 15, 1_000_000},              // as Claude Code's /context has it
		{Context{Tokens: 129_200, Model: "gpt-5.2-codex", Window: 258_400}, 50, 258_400}, // Codex's own
		{Context{Tokens: 524_288, Model: "gemini-2.5-pro"}, 50, 1_048_576},
		{Context{Tokens: 1000, Model: "mystery-1"}, 0, 0},
	} {
		if pct, window := tc.c.Percent(DefaultWindows); pct != tc.pct || window != tc.window {
			t.Errorf("%+v: %d%% of %d, want %d%% of %d", tc.c, pct, window, tc.pct, tc.window)
		}
	}
	path := filepath.Join(t.TempDir(), "windows.json")
	_ = os.WriteFile(path, []byte(`{"mystery-*": 10000, "claude-sonnet-4-5": 1000000}`), 0o600)
	w, err := LoadWindows(path)
	if err != nil {
		t.Fatal(err)
	}
	if pct, _ := (Context{Tokens: 1000, Model: "mystery-1"}).Percent(w); pct != 10 {
		t.Errorf("a window from the file: %d%%", pct)
	}
	if pct, _ := (Context{Tokens: 150_000, Model: "claude-sonnet-4-5-20250929"}).Percent(w); pct != 15 {
		t.Errorf("the file's window over the table's: %d%%", pct)
	}
	_ = os.WriteFile(path, []byte(`{"m": 0}`), 0o600)
	if _, err := LoadWindows(path); err == nil || !strings.Contains(err.Error(), "more than 0") {
		t.Errorf("a window of 0: %v", err)
	}
}
