package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// hookCommand is what agents' own hooks call back: Claude Code's Stop hook
// and Codex's notify program run `ralph-watch hook turn-end --state DIR`.
func hookCommand(e env) *ffcli.Command {
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	dir := fs.String("state", "", "the loop's state folder")
	return &ffcli.Command{
		Name:       "hook",
		ShortUsage: "ralph-watch hook turn-end --state DIR [IGNORED...]",
		ShortHelp:  "report an agent's end of turn to its watcher (called by the agent's hooks)",
		LongHelp: strings.TrimSpace(`
Called by the hooks ralph-watch installs in an agent (Claude Code's Stop hook,
Codex's notify program): records that the agent in iteration $RALPH_ITERATION
finished its turn and wakes the watcher. Arguments after the flags (Codex
passes a JSON event) are ignored. It never fails the agent: problems are
printed and the exit status is 0.

Examples:
  RALPH_ITERATION=3 ralph-watch hook turn-end --state ~/.local/state/ralph/myloop`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) == 0 || args[0] != "turn-end" {
				return usageErrorf("usage: ralph-watch hook turn-end --state DIR")
			}
			if len(args) > 1 && strings.HasPrefix(args[1], "-") { // flags after the event name
				if err := fs.Parse(args[1:]); err != nil {
					return usageErrorf("%v", err)
				}
			}
			if *dir == "" {
				return usageErrorf("hook turn-end needs --state DIR")
			}
			iteration := e.Getenv("RALPH_ITERATION")
			if iteration == "" || sideThread(fs.Args()) {
				return nil // not started by a loop, or not the agent's own turn
			}
			if _, err := os.Stat(filepath.Join(*dir, "state.json")); err != nil {
				e.Stderr.Write([]byte("ralph-watch: warning: hook turn-end: no loop state in " + *dir + "\n"))
				return nil
			}
			if err := watch.TurnEnded(&state.Store{Dir: *dir}, iteration); err != nil {
				e.Stderr.Write([]byte("ralph-watch: warning: hook turn-end: " + err.Error() + "\n"))
			}
			return nil
		},
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
