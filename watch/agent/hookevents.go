package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// What an agent reports itself through the hooks the watcher installs, by
// the name `ralph-watch hook NAME` takes. Each is recorded in a file of
// that name in the loop's state folder.
const (
	HookSessionStart = "session-start" // it started: input is taken once bracketed paste is on
	HookPromptSubmit = "prompt-submit" // it took the prompt: no more Enters
	HookTurnEnd      = "turn-end"      // it finished its turn
	HookTurnFailed   = "turn-failed"   // its turn failed: a usage limit or an API error
	HookNeedsInput   = "needs-input"   // it waits for the person: a permission, a question
	HookWorking      = "working"       // it is at work: a tool starts or ends
)

// HookNames lists what `ralph-watch hook` accepts.
var HookNames = []string{HookSessionStart, HookPromptSubmit, HookTurnEnd, HookTurnFailed, HookNeedsInput, HookWorking}

// TurnEndFile is where an agent's turn-end hook leaves its record.
const TurnEndFile = HookTurnEnd

// HookRecord is one report of an agent's hook: which iteration's agent
// made it, when, and what it said (the error of a failed turn, the
// question waiting). A record of another iteration is an old agent's.
type HookRecord struct {
	Iteration int
	At        time.Time
	Detail    string
}

// RecordHook records that the agent in iteration reported name, and wakes
// the loop's watcher. The record is replaced atomically: a reader sees the
// old one or the new one, never half.
func RecordHook(store *state.Store, name, iteration, detail string) error {
	if !slices.Contains(HookNames, name) {
		return fmt.Errorf("unknown hook %q", name)
	}
	detail = strings.Join(strings.Fields(detail), " ") // one line
	body := fmt.Sprintf("%s\n%d\n%s\n", iteration, time.Now().UnixNano(), detail)
	if err := store.WriteFile(name, []byte(body)); err != nil {
		return err
	}
	st, err := store.Load()
	if err != nil {
		return err
	}
	if st.WatcherPID > 0 {
		return syscall.Kill(st.WatcherPID, syscall.SIGUSR1)
	}
	return nil
}

// TurnEnded is what `ralph-watch hook turn-end` does.
func TurnEnded(store *state.Store, iteration string) error {
	return RecordHook(store, HookTurnEnd, iteration, "")
}

// RecordTranscript keeps the agent's transcript path for the loop.
func RecordTranscript(store *state.Store, path string) error {
	return store.WriteFile(state.TranscriptFile, []byte(path+"\n"))
}

// ReadHook reads the record of name; ok is false when there is none.
func ReadHook(store *state.Store, name string) (r HookRecord, ok bool) {
	b, err := os.ReadFile(store.Path(name))
	if err != nil {
		return r, false
	}
	lines := strings.SplitN(string(b), "\n", 3)
	n, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil {
		return r, false
	}
	r.Iteration = n
	if len(lines) > 1 {
		if ns, err := strconv.ParseInt(strings.TrimSpace(lines[1]), 10, 64); err == nil {
			r.At = time.Unix(0, ns)
		}
	}
	if len(lines) > 2 {
		r.Detail = strings.TrimSpace(lines[2])
	}
	return r, true
}

// HookInput is what an agent tells its hook (Claude Code and Gemini CLI
// write it as JSON on the hook's stdin).
type HookInput struct {
	Event            string `json:"hook_event_name"`
	SessionID        string `json:"session_id"`
	TranscriptPath   string `json:"transcript_path"`
	NotificationType string `json:"notification_type"`
	Message          string `json:"message"`
	Error            string `json:"error"`
	ErrorDetails     string `json:"error_details"`
	LastMessage      string `json:"last_assistant_message"` // StopFailure: the error as shown
	ToolName         string `json:"tool_name"`
}

// needsPerson are the notification types that wait for the person (Claude
// Code's, Gemini CLI's); the others (idle_prompt, auth_success…) do not.
var needsPerson = []string{"permission_prompt", "elicitation_dialog", "elicitation_url_dialog",
	"agent_needs_input", "worker_permission_prompt", "ToolPermission" /* Gemini CLI */}

// limitErrors are the failed-turn errors that are a usage limit: the loop
// waits for the reset instead of counting a failure.
var limitErrors = []string{"rate_limit"}

// HookDetail judges a hook's input for name: whether it is worth recording
// (a notification that only says the agent is idle is not), and the detail
// to record. Input that is not JSON is no reason to drop the report.
func HookDetail(name string, input []byte) (detail string, record bool) {
	var in HookInput
	if len(strings.TrimSpace(string(input))) == 0 {
		return "", true
	}
	if json.Unmarshal(input, &in) != nil {
		if name == HookTurnFailed {
			return copilotError(input)
		}
		return "", true
	}
	switch name {
	case HookNeedsInput:
		if in.Event == "Notification" && in.NotificationType != "" && !slices.Contains(needsPerson, in.NotificationType) {
			return "", false
		}
		switch {
		case in.Message != "":
			return in.Message, true
		case in.ToolName != "":
			return "permission to use " + in.ToolName, true
		}
		return in.NotificationType, true
	case HookTurnFailed:
		text := in.ErrorDetails
		if text == "" {
			text = in.LastMessage // 2.1.330 sends no details: "API Error: Request rejected (429) · …"
		}
		return strings.TrimSpace(in.Error + ": " + text), true
	}
	return "", true
}

// limitText is an API error's text that is a usage or rate limit.
var limitText = regexp.MustCompile(`(?i)usage.?limit|rate.?limit|quota|too many requests|\b429\b`)

// copilotError judges Copilot CLI's errorOccurred input, whose error is an
// object: {"errorContext":"model_call","recoverable":true,"error":{"message":
// "{\"message\":\"The usage limit has been reached\",…}"}}. It fires at
// each retry of a refused request: a limit is worth recording, another
// error it retries by itself is not.
func copilotError(input []byte) (detail string, record bool) {
	var in struct {
		Recoverable bool `json:"recoverable"`
		Error       struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(input, &in) != nil {
		return "", true
	}
	text := in.Error.Message
	var body struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	}
	if json.Unmarshal([]byte(text), &body) == nil && body.Message != "" {
		text = body.Message
		if body.Type != "" {
			text += " (" + body.Type + ")"
		}
	}
	text = strings.Join(strings.Fields(text), " ")
	switch {
	case limitText.MatchString(in.Error.Message):
		return "rate_limit: " + text, true
	case in.Recoverable:
		return "", false
	}
	return strings.TrimSpace("error: " + text), true
}

// TurnFailure reads a turn-failed record's detail: whether it is a usage
// limit, and the text to show.
func TurnFailure(detail string) (limit bool, text string) {
	kind, rest, _ := strings.Cut(detail, ":")
	text = strings.TrimSpace(rest)
	if text == "" {
		text = kind
	}
	return slices.Contains(limitErrors, strings.TrimSpace(kind)), text
}
