package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

// A loop runs with nobody at the keyboard: an agent that asks before each
// tool waits at the first one until the person comes. Doctor's own check
// runs no tool, so what the agent's flags and settings say is read here
// (docs/agents.md, "Tools with nobody at the keyboard").

// Launched is how the person starts the agent, for ToolWarnings.
type Launched struct {
	Agent   string              // the profile
	Command []string            // as the loop runs it
	Home    string              // the agent's home, where its user settings are
	Dir     string              // the project folder, where its project settings are
	Getenv  func(string) string // the environment the loop gives it
	Root    bool                // it runs as root
}

// ToolWarnings says how the agent as launched would stop (or fail) at its
// tools in a loop, one sentence each with what to add; none when its flags
// or settings let it run them.
func ToolWarnings(l Launched) []string {
	launch := agent.ParseLaunch(l.Command)
	args := launch.Args
	getenv := agent.Getenv(agent.CommandEnv(l.Command, false), l.Getenv)
	switch l.Agent {
	case "claude":
		return claudeTools(args, l, getenv)
	case "gemini":
		if flagValue(args, "--approval-mode") != "" && flagValue(args, "--approval-mode") != "default" ||
			slices.Contains(args, "--yolo") || slices.Contains(args, "-y") || geminiApproves(l) {
			return nil
		}
		return []string{"gemini as launched asks before each shell command and edit, and a loop waits at the first one: " +
			"add --approval-mode auto_edit and allow the commands the loop needs (tools.allowed in .gemini/settings.json), " +
			"or, in a sandbox only, --approval-mode yolo"}
	case "copilot":
		for _, a := range args {
			if a == "--allow-all-tools" || a == "--allow-all" || a == "--yolo" || strings.HasPrefix(a, "--allow-tool") {
				return nil
			}
		}
		return []string{"copilot as launched asks before each command that changes something and each edit, and a loop waits at the first one: " +
			"add --allow-tool for what the loop needs (--allow-tool 'write,shell(make:*)'), or --allow-all-tools (it then runs any command)"}
	case "codex":
		if v := flagValue(args, "--ask-for-approval", "-a"); v == "untrusted" {
			return []string{"codex with --ask-for-approval untrusted asks before each command that is not read-only, and a loop waits at the first one: " +
				"drop it (its default in a trusted folder runs commands in its workspace sandbox) or use --full-auto"}
		}
		if v := flagValue(args, "--sandbox", "-s"); v == "read-only" {
			return []string{"codex with --sandbox read-only asks before each edit, and a loop waits at the first one: use --sandbox workspace-write or --full-auto"}
		}
	}
	return nil
}

// claudePermissions are the permission settings Claude Code reads from a
// settings file.
type claudePermissions struct {
	DefaultMode string   `json:"defaultMode"`
	Allow       []string `json:"allow"`
}

func claudeTools(args []string, l Launched, getenv func(string) string) []string {
	mode := flagValue(args, "--permission-mode")
	allow := flagValues(args, "--allowedTools", "--allowed-tools")
	files := []string{filepath.Join(l.Home, ".claude", "settings.json"),
		filepath.Join(l.Dir, ".claude", "settings.json"), filepath.Join(l.Dir, ".claude", "settings.local.json")}
	if f := flagValue(args, "--settings"); f != "" && !strings.HasPrefix(f, "{") {
		files = append(files, f)
	}
	for _, f := range files { // later files win, as Claude Code reads them
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var s struct {
			Permissions claudePermissions `json:"permissions"`
		}
		if json.Unmarshal(b, &s) != nil {
			continue
		}
		if s.Permissions.DefaultMode != "" && flagValue(args, "--permission-mode") == "" {
			mode = s.Permissions.DefaultMode
		}
		allow = append(allow, s.Permissions.Allow...)
	}
	bypass := mode == "bypassPermissions" || slices.Contains(args, "--dangerously-skip-permissions")
	var bash []string
	for _, r := range allow {
		if r == "Bash" || strings.HasPrefix(r, "Bash(") {
			bash = append(bash, r)
		}
	}
	switch {
	case bypass && l.Root && getenv("IS_SANDBOX") != "1":
		return []string{"claude refuses --dangerously-skip-permissions and --permission-mode bypassPermissions as root " +
			"(\"cannot be used with root/sudo privileges\"): each iteration would exit at once; run the loop as another user, " +
			"or, in a throwaway container or VM only, set IS_SANDBOX=1 (env IS_SANDBOX=1 claude …)"}
	case bypass:
		return nil
	case mode == "plan":
		return []string{"claude in plan mode edits nothing and runs no command that changes anything: a loop in it makes no progress; " +
			"use --permission-mode acceptEdits with allow rules for the commands it needs"}
	case mode == "auto" && slices.ContainsFunc(bash, broadBash):
		return []string{"claude's auto mode drops a broad allow rule (" + strings.Join(slices.DeleteFunc(slices.Clone(bash), func(r string) bool { return !broadBash(r) }), ", ") +
			"): its classifier reviews each command instead and can block one; allow the commands themselves (Bash(make test)), " +
			"or use --permission-mode acceptEdits with those rules"}
	case mode == "auto", mode == "dontAsk" && len(allow) > 0:
		return nil
	case mode == "dontAsk":
		return []string{"claude in dontAsk mode refuses every tool no allow rule names, and no rule is set: " +
			"allow the commands the loop needs (.claude/settings.json: \"permissions\": {\"allow\": [\"Bash(make test)\", \"Edit\"]})"}
	case mode == "acceptEdits" && len(bash) == 0:
		return []string{"claude in acceptEdits mode makes edits but asks before each command, and a loop waits at the first one: " +
			"allow the commands the loop needs (.claude/settings.json: \"permissions\": {\"allow\": [\"Bash(make test)\", \"Bash(git commit:*)\"]})"}
	case mode == "acceptEdits", len(allow) > 0 && len(bash) > 0:
		return nil
	}
	return []string{"claude as launched has no permission mode or allow rules for commands: in manual mode it asks before each command " +
		"and edit, and a loop waits at the first one; add --permission-mode acceptEdits and allow the commands the loop needs " +
		"(.claude/settings.json: \"permissions\": {\"allow\": [\"Bash(make test)\"]}), or --permission-mode auto"}
}

// broadBash is an allow rule for any shell command, which auto mode drops.
func broadBash(rule string) bool {
	return rule == "Bash" || rule == "Bash(*)" || rule == "Bash(:*)"
}

// flagValue is the value the agent's arguments give the first of names
// that appears (--name VALUE or --name=VALUE); "" when none does.
func flagValue(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v
			}
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
		}
	}
	return ""
}

// flagValues are the rules a list flag gives (--allowedTools "Bash(x)" Edit,
// comma or space separated, up to the next flag).
func flagValues(args []string, names ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		for _, n := range names {
			var words []string
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				words = []string{v}
			} else if a == n {
				for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
					i++
					words = append(words, args[i])
				}
			}
			for _, w := range words {
				out = append(out, splitRules(w)...)
			}
		}
	}
	return out
}

// geminiApproves reports whether Gemini CLI's settings let it run tools
// unasked: a default approval mode other than default, or allowed tools.
func geminiApproves(l Launched) bool {
	for _, f := range []string{filepath.Join(l.Home, ".gemini", "settings.json"), filepath.Join(l.Dir, ".gemini", "settings.json")} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var s struct {
			General struct {
				DefaultApprovalMode string `json:"defaultApprovalMode"`
			} `json:"general"`
			Tools struct {
				Allowed []string `json:"allowed"`
			} `json:"tools"`
		}
		if json.Unmarshal(agent.StripJSONComments(b), &s) != nil {
			continue
		}
		if m := s.General.DefaultApprovalMode; m != "" && m != "default" || len(s.Tools.Allowed) > 0 {
			return true
		}
	}
	return false
}

// splitRules splits a list of rules at commas and spaces outside
// parentheses: "Bash(make test),Edit" is Bash(make test) and Edit.
func splitRules(list string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range list + "," {
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth = max(depth-1, 0)
		case (c == ',' || c == ' ') && depth == 0:
			if r := strings.TrimSpace(list[start:min(i, len(list))]); r != "" {
				out = append(out, r)
			}
			start = i + 1
		}
	}
	return out
}
