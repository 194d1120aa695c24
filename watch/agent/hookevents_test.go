package agent

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func TestHookDetailReadsWhatTheAgentSays(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		detail      string
		record      bool
	}{
		{HookTurnEnd, `{"hook_event_name":"Stop","stop_hook_active":false}`, "", true},
		{HookTurnEnd, ``, "", true},
		{HookTurnEnd, `{"type":"agent-turn-complete"`, "", true}, // not JSON: still a report
		{HookNeedsInput, `{"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission"}`, "Claude needs your permission", true},
		{HookNeedsInput, `{"hook_event_name":"Notification","notification_type":"idle_prompt","message":"Claude is waiting for your input"}`, "", false},
		{HookNeedsInput, `{"hook_event_name":"Notification","notification_type":"auth_success"}`, "", false},
		{HookNeedsInput, `{"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Tool Confirm Shell Command requires execution"}`, "Tool Confirm Shell Command requires execution", true},
		{HookNeedsInput, `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`, "permission to use Bash", true},
		{HookTurnFailed, `{"hook_event_name":"StopFailure","error":"rate_limit","error_details":"429"}`, "rate_limit: 429", true},
		{HookTurnFailed, `{"hook_event_name":"StopFailure","error":"overloaded"}`, "overloaded:", true},
		{HookTurnFailed, `{"hook_event_name":"StopFailure","error":"rate_limit","last_assistant_message":"API Error: Request rejected (429) · This request would exceed your account's rate limit."}`,
			"rate_limit: API Error: Request rejected (429) · This request would exceed your account's rate limit.", true},
	} {
		detail, record := HookDetail(tc.name, []byte(tc.input))
		if detail != tc.detail || record != tc.record {
			t.Errorf("HookDetail(%s, %s) = %q, %v; want %q, %v", tc.name, tc.input, detail, record, tc.detail, tc.record)
		}
	}
}

func TestTurnFailureTellsALimitFromAnAPIError(t *testing.T) {
	for _, tc := range []struct {
		detail string
		limit  bool
		text   string
	}{
		{"rate_limit: 429 rate limited", true, "429 rate limited"},
		{"rate_limit:", true, "rate_limit"},
		{"server_error: 500 Internal Server Error", false, "500 Internal Server Error"},
		{"overloaded:", false, "overloaded"},
		{"billing_error: credit balance too low", false, "credit balance too low"},
		{"", false, ""},
	} {
		limit, text := TurnFailure(tc.detail)
		if limit != tc.limit || text != tc.text {
			t.Errorf("TurnFailure(%q) = %v, %q; want %v, %q", tc.detail, limit, text, tc.limit, tc.text)
		}
	}
}

func TestAHookRecordIsTaggedWithItsIteration(t *testing.T) {
	store := &state.Store{Dir: t.TempDir()}
	if _, ok := ReadHook(store, HookTurnEnd); ok {
		t.Fatal("a record before any hook")
	}
	if err := RecordHook(store, HookTurnFailed, "3", "server_error:\n500\tboom"); err == nil {
		t.Fatal("recorded with no loop state: want the error") // the watcher cannot be found
	}
	r, ok := ReadHook(store, HookTurnFailed)
	if !ok || r.Iteration != 3 || r.Detail != "server_error: 500 boom" || r.At.IsZero() {
		t.Errorf("record %+v, %v", r, ok)
	}
	if err := RecordHook(store, "bogus", "3", ""); err == nil {
		t.Error("an unknown hook name was recorded")
	}
}

// Whatever an agent writes on a hook's stdin, the hook records one line.
func FuzzHookDetail(f *testing.F) {
	f.Add(HookNeedsInput, `{"hook_event_name":"Notification","notification_type":"permission_prompt","message":"a\nb"}`)
	f.Add(HookTurnFailed, `{"error":"rate_limit","error_details":"x"}`)
	f.Add(HookTurnEnd, "\x00\xff")
	f.Fuzz(func(t *testing.T, name, input string) {
		detail, _ := HookDetail(name, []byte(input))
		store := &state.Store{Dir: t.TempDir()}
		_ = RecordHook(store, HookNeedsInput, "1", detail) // no state.json: the record is written, no watcher is told
		r, ok := ReadHook(store, HookNeedsInput)
		if !ok || r.Iteration != 1 {
			t.Fatalf("record of %q lost: %+v", detail, r)
		}
		if utf8.ValidString(detail) && len(detail) > 0 && r.Detail == "" && len(strings.Fields(detail)) > 0 {
			t.Fatalf("detail %q lost", detail)
		}
	})
}

// Copilot CLI's errorOccurred: a limit it retries is a limit; another
// error it retries by itself is not recorded; one it gives up on is.
func TestHookDetailReadsCopilotErrors(t *testing.T) {
	for _, c := range []struct {
		input  string
		detail string
		record bool
		limit  bool
	}{
		{`{"errorContext":"model_call","recoverable":true,"error":{"message":"{\"message\":\"The usage limit has been reached\",\"plan_type\":\"plus\",\"type\":\"usage_limit_reached\"}","name":"Error"}}`,
			"rate_limit: The usage limit has been reached (usage_limit_reached)", true, true},
		{`{"recoverable":true,"error":{"message":"502 Bad Gateway"}}`, "", false, false},
		{`{"recoverable":false,"error":{"message":"model not found"}}`, "error: model not found", true, false},
	} {
		detail, record := HookDetail(HookTurnFailed, []byte(c.input))
		if detail != c.detail || record != c.record {
			t.Errorf("%s: %q %v, want %q %v", c.input, detail, record, c.detail, c.record)
		}
		if limit, _ := TurnFailure(detail); record && limit != c.limit {
			t.Errorf("%s: limit %v, want %v", c.input, limit, c.limit)
		}
	}
}
