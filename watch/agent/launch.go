package agent

import (
	"cmp"
	"slices"
	"strings"
)

// Launch is how a command starts its agent: which word runs the agent's own
// program, behind which launchers (env, exec, nice, timeout, npx, a one-line
// shell command, …).
type Launch struct {
	// Program is the agent's program by base name: "claude" for
	// /usr/bin/claude and for npx @anthropic-ai/claude-code; "" when the
	// program word is no known agent's (a wrapper script, python, …).
	Program string
	// Word is the program word as written ("/usr/bin/claude",
	// "@anthropic-ai/claude-code", "mywrap").
	Word string
	// Index is where Word is in the command or, when Line is set, where the
	// shell line holding it is; -1 when there is no program word.
	Index int
	// Line: Word is inside a one-line shell command (sh -c LINE).
	Line bool
	// Args are the words after Word: the agent's own arguments.
	Args []string
	// Refused says why arguments cannot be placed after Word; "" when they can.
	Refused string
	// NoTerminal says why a launcher keeps the program from the terminal,
	// where a prompt is typed (timeout without --foreground, nohup); "" if none does.
	NoTerminal string

	what       string // what was refused, for messages: 'mywrap', the shell line '…'
	after, end int    // in a shell line: where words after Word go, where the last words go
}

// notAgent is why nothing is placed after a program word that is no agent's.
const notAgent = "not the agent's own program"

// Why names what arguments cannot be placed in and why, for a message:
// 'mywrap' (not the agent's own program).
func (l Launch) Why() string { return l.what + " (" + l.Refused + ")" }

// ParseLaunch finds the agent's program word in a command, past the
// launchers in front of it.
func ParseLaunch(command []string) Launch {
	f := walk(command, false)
	if f.at < 0 || f.at >= len(command) {
		return Launch{Index: -1, Refused: "no program to run", what: ShellLine(command)}
	}
	if line, ok := shellLineAt(command, f.at); ok && f.why == "" {
		return parseLine(command, line)
	}
	l := Launch{Index: f.at, Word: command[f.at], Args: command[f.at+1:], Refused: f.why, NoTerminal: f.noTerminal}
	l.what = ShellQuote(l.Word)
	if l.Refused == "" {
		l.Program = agentProgram(l.Word, f.pkg)
		if l.Program == "" {
			l.Refused = notAgent
		}
	}
	return l
}

// PlaceArgs puts first right after the agent's own program word and last at
// the end, through any launch form ParseLaunch knows; ok is false when that
// cannot be done safely (an unknown wrapper, a complex shell line).
func PlaceArgs(command []string, first, last []string) ([]string, bool) {
	if len(first)+len(last) == 0 {
		return command, true
	}
	l := ParseLaunch(command)
	if l.Refused != "" {
		return command, false
	}
	return l.place(command, first, last), true
}

// place puts the words where PlaceArgs says, the launch being placeable.
func (l Launch) place(command []string, first, last []string) []string {
	if !l.Line {
		return slices.Concat(command[:l.Index+1], first, command[l.Index+1:], last)
	}
	line := command[l.Index]
	out := slices.Clone(command)
	out[l.Index] = line[:l.after] + spaced(first) + line[l.after:l.end] + spaced(last) + line[l.end:]
	return out
}

// spaced is words as sh text to insert after another word.
func spaced(words []string) string {
	if len(words) == 0 {
		return ""
	}
	return " " + ShellLine(words)
}

// Place is PlaceArgs for this agent: the program word must be its own.
// It returns why not when the words cannot be placed.
func (p *Profile) Place(command, first, last []string) ([]string, string) {
	if len(first)+len(last) == 0 {
		return command, ""
	}
	l := ParseLaunch(command)
	if l.Refused == notAgent || l.Refused == "" && len(p.Commands) > 0 && !slices.Contains(p.Commands, l.Program) {
		l.Refused = "not " + p.Name + "'s own program"
	}
	if l.Refused != "" {
		return command, l.Why()
	}
	return l.place(command, first, last), ""
}

// HookAdvice names each turn hook and how a person gets it back when it
// cannot be added to their command.
var HookAdvice = map[string][2]string{
	HookClaudeStop:  {"Claude Code's hooks", "pass --settings FILE to claude yourself or run claude directly"},
	HookCodexNotify: {"Codex's notify hook", "pass -c notify=[...] to codex yourself or run codex directly"},
	HookGeminiHome:  {"Gemini CLI's hooks", "configure its hooks in ~/.gemini/settings.json yourself (ralph-watch hook --help)"},
	HookOpenCode:    {"OpenCode's plugin", "let OPENCODE_CONFIG_CONTENT through to opencode"},
	HookCopilot:     {"Copilot CLI's hooks", "pass --plugin-dir DIR to copilot yourself or run copilot directly"},
}

// HookWiring says how the watcher wires each turn hook into the agent,
// for doctor.
var HookWiring = map[string]string{
	HookClaudeStop:  "hooks by a per-loop --settings file",
	HookCodexNotify: "notify program by -c notify=[…]",
	HookGeminiHome:  "hooks by GEMINI_CLI_HOME, a per-loop overlay of ~/.gemini",
	HookOpenCode:    "events by a per-loop plugin named in OPENCODE_CONFIG_CONTENT",
	HookCopilot:     "hooks by a per-loop --plugin-dir",
}

// parseLine is the launch inside a one-line shell command, command[at].
// A line that ends in "$@" (run.go's arg mode) takes the last words before it.
func parseLine(command []string, at int) Launch {
	line := command[at]
	body := strings.TrimSuffix(line, ` "$@"`)
	words, why := splitLine(body)
	l := Launch{Index: at, Line: true, what: "the shell line " + ShellQuote(line)}
	if why != "" {
		why = "it " + why
	}
	values := make([]string, len(words))
	for i, w := range words {
		values[i] = w.text
	}
	f := walk(values, true)
	if f.at < 0 || f.at >= len(values) {
		l.Index, l.Refused = -1, cmp.Or(why, "no program to run")
		return l
	}
	if _, ok := shellLineAt(values, f.at); ok && why == "" {
		why = "it runs a shell line of its own"
	}
	l.Word, l.Args, l.after, l.end = values[f.at], values[f.at+1:], words[f.at].end, len(body)
	l.NoTerminal = f.noTerminal
	if f.why == "" {
		l.Program = agentProgram(l.Word, f.pkg) // known even when the line is too complex to add to
	}
	switch {
	case why != "":
		l.Refused = why
	case f.why != "":
		l.Refused, l.what = f.why, ShellQuote(l.Word)
	case l.Program == "":
		l.Refused, l.what = notAgent, ShellQuote(l.Word)
	}
	return l
}
