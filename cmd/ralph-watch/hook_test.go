package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Claude Code runs each hook with its JSON on stdin; what the hook records
// is what the loop reads, tagged with the iteration.
func TestHookRecordsEachEventFromTheAgentsJSON(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := filepath.Join(c.srv.Dir, "state", "looped")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"worker_name":"looped","watcher_pid":0}`), 0o600); err != nil {
		t.Fatal(err)
	}
	store := &state.Store{Dir: dir}
	hook := func(name, input string) (int, string, string) {
		t.Helper()
		cmd := c.command([]string{"RALPH_ITERATION=7"}, "hook", name, "--state", dir)
		var stdout, stderr bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(input), &stdout, &stderr
		_ = cmd.Run()
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
	for _, tc := range []struct {
		name, input string
		record      bool
		detail      string
	}{
		{agent.HookSessionStart, `{"hook_event_name":"SessionStart","transcript_path":"/tmp/t/abc.jsonl","source":"startup"}`, true, ""},
		{agent.HookPromptSubmit, `{"hook_event_name":"UserPromptSubmit","prompt":"do it"}`, true, ""},
		{agent.HookNeedsInput, `{"hook_event_name":"Notification","notification_type":"idle_prompt","message":"Claude is waiting for your input"}`, false, ""},
		{agent.HookNeedsInput, `{"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`, true, "Claude needs your permission to use Bash"},
		{agent.HookNeedsInput, `{"hook_event_name":"PermissionRequest","tool_name":"Write"}`, true, "permission to use Write"},
		{agent.HookTurnFailed, `{"hook_event_name":"StopFailure","error":"rate_limit","error_details":"429 too many requests"}`, true, "rate_limit: 429 too many requests"},
		{agent.HookTurnEnd, `not json`, true, ""},
	} {
		_ = os.Remove(store.Path(tc.name))
		code, stdout, stderr := hook(tc.name, tc.input)
		if code != 0 || stdout != "" || stderr != "" {
			t.Errorf("hook %s: exit %d, stdout %q, stderr %q; want 0 and silence", tc.name, code, stdout, stderr)
		}
		r, ok := agent.ReadHook(store, tc.name)
		if ok != tc.record {
			t.Errorf("hook %s %s: recorded %v, want %v", tc.name, tc.input, ok, tc.record)
			continue
		}
		if ok && (r.Iteration != 7 || r.Detail != tc.detail || r.At.IsZero()) {
			t.Errorf("hook %s: record %+v, want iteration 7, detail %q and a time", tc.name, r, tc.detail)
		}
	}
	if b, _ := os.ReadFile(store.Path(state.TranscriptFile)); string(b) != "/tmp/t/abc.jsonl\n" {
		t.Errorf("transcript file = %q", b)
	}
	if code, _, _ := hook("turn-begin", ""); code != 2 {
		t.Errorf("an unknown hook name: exit %d, want 2", code)
	}
}

// A hook the person configured by hand names no state folder: the looped
// agent's RALPH_NAME and RALPH_STATE_DIR tell which loop it reports to, and
// outside a loop it does nothing.
func TestAHandConfiguredHookFindsItsLoopByName(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	root := filepath.Join(c.srv.Dir, "state")
	dir := filepath.Join(root, "byname")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"worker_name":"byname","watcher_pid":0}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := c.run([]string{"RALPH_ITERATION=2", "RALPH_NAME=byname", "RALPH_STATE_DIR=" + root}, "hook", "turn-end")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("hook turn-end: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if r, ok := agent.ReadHook(&state.Store{Dir: dir}, agent.HookTurnEnd); !ok || r.Iteration != 2 {
		t.Errorf("record %+v, %v; want iteration 2", r, ok)
	}
	if code, stdout, stderr := c.run(nil, "hook", "turn-end"); code != 0 || stdout != "" || stderr != "" {
		t.Errorf("hook outside a loop: exit %d, stdout %q, stderr %q; want 0 and silence", code, stdout, stderr)
	}
}
