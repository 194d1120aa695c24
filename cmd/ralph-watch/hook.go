package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// hookInputWait bounds the wait for an agent's JSON on stdin: a hook must
// never hold the agent up.
const hookInputWait = 500 * time.Millisecond

// hookCommand is what agents' own hooks call back: Claude Code's and Gemini
// CLI's hooks and Codex's notify program run `ralph-watch hook NAME --state DIR`.
func hookCommand(e env) *ffcli.Command {
	fs := newFlags("hook")
	dir := fs.String("state", "", "the loop's state folder")
	names := strings.Join(agent.HookNames, "|")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch hook " + names + " [--state DIR] [IGNORED...]",
		ShortHelp:  "report an agent's own event to its watcher (called by the agent's hooks)",
		LongHelp: `
Called by the hooks ralph-watch installs in an agent: records that the agent
in iteration $RALPH_ITERATION reported an event, and wakes the watcher.

  session-start   it started (Claude Code's SessionStart): the prompt is typed
                  once it has turned on bracketed paste
  prompt-submit   it took the prompt (UserPromptSubmit): no more Enters
  turn-end        it finished its turn (Stop; Codex's notify program)
  turn-failed     its turn failed (StopFailure): a rate limit waits for the
                  reset, another API error counts as a failed iteration
  needs-input     it waits for the person (a permission Notification,
                  PermissionRequest): the loop shows needs-input
  working         it is at work (PreToolUse, PostToolUse): status says
                  working, and a question it asked before is answered

Without --state the loop is found by $RALPH_NAME (and $RALPH_STATE_DIR), which
every looped agent has: a hook configured by hand, in an agent whose hooks
ralph-watch does not install (Codex's hooks.json, Gemini CLI with
--turn-hook=false), is just 'ralph-watch hook turn-end'. Outside a loop it does nothing.

The agent's JSON on stdin (Claude Code's hook input) gives the details: the
error of a failed turn, the question, the transcript path (kept in the
state folder's 'transcript' file). Arguments after the flags (Codex passes a
JSON event) are read only to skip Codex's title side thread. It never fails
the agent: problems are printed on stderr, nothing goes to stdout (Claude
Code would add it to the conversation), and the exit status is 0.

Examples:
  RALPH_ITERATION=3 ralph-watch hook turn-end --state ~/.local/state/ralph/myloop
  ~/.gemini/settings.json: {"hooks": {"AfterAgent": [{"hooks": [{"type": "command",
      "command": "ralph-watch hook turn-end"}]}]}}`,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) == 0 || !slices.Contains(agent.HookNames, args[0]) {
				return control.Errorf(contract.ExitUsage, "usage: ralph-watch hook %s --state DIR", names)
			}
			name := args[0]
			if len(args) > 1 && strings.HasPrefix(args[1], "-") { // flags after the event name
				if err := fs.Parse(args[1:]); err != nil {
					return control.Errorf(contract.ExitUsage, "%v", err)
				}
			}
			warn := func(msg string) { io.WriteString(e.Stderr, "ralph-watch: warning: hook "+name+": "+msg+"\n") }
			iteration := e.Getenv("RALPH_ITERATION")
			if name == agent.HookTurnEnd && sideThread(fs.Args()) {
				return nil // not the agent's own turn
			}
			installed := *dir != "" // by the watcher, which named its loop
			if iteration == "" && !installed {
				return nil // not started by a loop
			}
			if *dir == "" { // a hook the person configured: the loop's pane tells which loop
				loop := e.Getenv("RALPH_NAME")
				if loop == "" || strings.ContainsAny(loop, "/\x00") {
					warn("no --state DIR and no RALPH_NAME")
					return nil
				}
				*dir = filepath.Join(state.Root(e.Getenv), loop)
			}
			if _, err := os.Stat(filepath.Join(*dir, "state.json")); err != nil {
				warn("no loop state in " + *dir)
				return nil
			}
			input := readHookInput(e.Stdin)
			store := &state.Store{Dir: *dir}
			if iteration == "" { // env -i in front of the agent cleared it: the loop knows
				st, err := store.Load()
				if err != nil {
					warn(err.Error())
					return nil
				}
				iteration = strconv.Itoa(st.CurrentIteration)
			}
			detail, record := agent.HookDetail(name, input)
			if !record {
				return nil
			}
			if name == agent.HookSessionStart || name == agent.HookTurnEnd { // the Stop hook tells it too
				var in agent.HookInput
				if json.Unmarshal(input, &in) == nil && in.TranscriptPath != "" {
					if err := agent.RecordTranscript(store, in.TranscriptPath); err != nil {
						warn(err.Error())
					}
				}
			}
			if err := agent.RecordHook(store, name, iteration, detail); err != nil {
				warn(err.Error())
			}
			return nil
		},
	})
}

// readHookInput reads what the agent writes on the hook's stdin, if it
// writes anything soon: never a terminal, at most 1 MiB, at most
// hookInputWait.
func readHookInput(stdin io.Reader) []byte {
	if stdin == nil {
		return nil
	}
	if f, ok := stdin.(*os.File); ok {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return nil
		}
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(stdin, 1<<20))
		got <- b
	}()
	select {
	case b := <-got:
		return b
	case <-time.After(hookInputWait):
		return nil
	}
}

// sideThread reports a Codex notify event for its title side thread, which
// ends before the real turn: {"input-messages":["Generate a concise, …"]}.
func sideThread(args []string) bool {
	if len(args) == 0 {
		return false
	}
	var event struct {
		Type  string   `json:"type"`
		Input []string `json:"input-messages"`
	}
	if json.Unmarshal([]byte(args[len(args)-1]), &event) != nil {
		return false
	}
	return (event.Type != "" && event.Type != "agent-turn-complete") ||
		(len(event.Input) > 0 && strings.HasPrefix(event.Input[0], "Generate a concise, single-line task title"))
}
