package agent

import (
	"cmp"
	"fmt"
	"path/filepath"
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

// placeArgs is PlaceArgs for this agent: the program word must be its own.
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

// found is where walk found the program word: its index, whether it names
// an npm package, or why it stopped at a launcher.
type found struct {
	at         int
	pkg        bool
	why        string
	noTerminal string
}

// walk steps over the launchers in front of the program word: env and its
// options and NAME=value words, exec, command, nice, nohup, timeout,
// stdbuf, setsid, npx and its kin. In a shell line, NAME=value words at the
// start are assignments.
func walk(words []string, inLine bool) found {
	i, noTerminal := 0, ""
	for inLine && i < len(words) && isAssignment(words[i]) {
		i++
	}
	for i < len(words) {
		start := i
		name := filepath.Base(words[i])
		if runner := runnerAt(words, i); runner > 0 {
			j, why := skipOptions(words, i+runner, runnerOptions)
			if why != "" {
				return found{at: start, why: why}
			}
			named := slices.ContainsFunc(words[i+runner:j], namesPackage)
			return found{at: j, pkg: !named, noTerminal: noTerminal}
		}
		o, ok := launchers[name]
		if !ok {
			return found{at: i, noTerminal: noTerminal}
		}
		j, why := skipOptions(words, i+1, o)
		if why != "" {
			return found{at: start, why: why}
		}
		switch name {
		case "env":
			if j < len(words) && words[j] == "-" { // as -i
				j++
			}
			for j < len(words) && strings.Contains(words[j], "=") {
				j++
			}
		case "timeout":
			if !slices.ContainsFunc(words[i+1:j], timeoutForeground) {
				noTerminal = "timeout runs it in the background, where reading the terminal stops it: give timeout --foreground"
			}
			j++ // the duration
		case "nohup":
			noTerminal = "nohup takes the terminal away from it (output to nohup.out): drop nohup"
		}
		if j >= len(words) {
			return found{at: start, why: "no program after it"}
		}
		i = j
	}
	return found{at: -1}
}

// isAssignment reports whether a shell word sets a variable: NAME=value.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	return strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}

// timeoutForeground reports whether a word of timeout's options is --foreground.
func timeoutForeground(w string) bool {
	if w == "--foreground" {
		return true
	}
	if len(w) < 2 || w[0] != '-' || w[1] == '-' {
		return false
	}
	cluster := w[1:]
	if k := strings.IndexAny(cluster, "sk"); k >= 0 {
		cluster = cluster[:k] // the rest is a value
	}
	return strings.Contains(cluster, "f")
}

// options are what a launcher takes before the program word.
type options struct {
	flags, values    string            // short options without and with a value
	long, longValues []string          // long options without and with a value
	refuse           map[string]string // options that leave no program word to place after, and why
	numeric          bool              // -N is an option (nice)
	anyAssigned      bool              // any --name=value (npm's configuration)
}

// launchers are the programs that run another, by their base names.
var launchers = map[string]options{
	"env": {flags: "iv0", values: "uC",
		long:       []string{"ignore-environment", "null", "debug", "list-signal-handling", "default-signal", "ignore-signal", "block-signal"},
		longValues: []string{"unset", "chdir"},
		refuse:     map[string]string{"S": "env -S splits its own string", "split-string": "env -S splits its own string"}},
	"exec":    {flags: "cl", values: "a"},
	"command": {flags: "p", refuse: map[string]string{"v": "command -v runs nothing", "V": "command -V runs nothing"}},
	"nice":    {values: "n", longValues: []string{"adjustment"}, numeric: true},
	"nohup":   {},
	"timeout": {flags: "vfp", values: "sk", long: []string{"foreground", "preserve-status", "verbose"}, longValues: []string{"signal", "kill-after"}},
	"stdbuf":  {values: "ioe", longValues: []string{"input", "output", "error"}},
	"setsid":  {flags: "cfw", long: []string{"ctty", "fork", "wait"}},
}

// runnerOptions are what npx and its kin take before the package word.
var runnerOptions = options{flags: "yqs", values: "p",
	long:        []string{"yes", "no", "quiet", "silent", "bun", "ignore-existing", "prefer-offline", "prefer-online"},
	longValues:  []string{"package"},
	refuse:      map[string]string{"c": "it runs a shell line", "call": "it runs a shell line", "shell-mode": "it runs a shell line"},
	anyAssigned: true}

// runnerAt reports whether words[i] starts a package runner (npx, pnpm dlx,
// bunx, bun x, yarn dlx, npm exec) and how many words that takes.
func runnerAt(words []string, i int) int {
	next := ""
	if i+1 < len(words) {
		next = words[i+1]
	}
	switch filepath.Base(words[i]) {
	case "npx", "pnpx", "bunx":
		return 1
	case "pnpm", "yarn":
		if next == "dlx" {
			return 2
		}
	case "bun":
		if next == "x" {
			return 2
		}
	case "npm":
		if next == "exec" || next == "x" {
			return 2
		}
	}
	return 0
}

// namesPackage reports whether a runner's option names the package (-p):
// the word after the options is then a program, not a package.
func namesPackage(w string) bool {
	return w == "--package" || strings.HasPrefix(w, "--package=") ||
		len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.Contains(w, "p")
}

// skipOptions steps over a launcher's options from words[i] and returns
// where its other words start, or why it cannot tell.
func skipOptions(words []string, i int, o options) (int, string) {
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			return i + 1, ""
		case w == "-" || !strings.HasPrefix(w, "-"):
			return i, ""
		case o.numeric && strings.Trim(w[1:], "+-0123456789") == "" && strings.Trim(w[1:], "+-") != "":
			continue
		case strings.HasPrefix(w, "--"):
			name, _, assigned := strings.Cut(w[2:], "=")
			switch {
			case o.refuse[name] != "":
				return i, o.refuse[name]
			case slices.Contains(o.long, name), o.anyAssigned && assigned:
			case slices.Contains(o.longValues, name):
				if !assigned {
					i++
				}
			default:
				return i, fmt.Sprintf("its option %s is not known here", w)
			}
		default:
			for k := 1; k < len(w); k++ {
				c := w[k : k+1]
				switch {
				case o.refuse[c] != "":
					return i, o.refuse[c]
				case strings.Contains(o.flags, c):
					continue
				case strings.Contains(o.values, c):
					if k == len(w)-1 {
						i++ // the value is the next word
					}
				default:
					return i, fmt.Sprintf("its option -%s is not known here", c)
				}
				break
			}
		}
	}
	return min(i, len(words)), "" // a value may have taken the last word
}

// shellLineAt reports whether words[i] is a shell run with -c and, if so,
// where its line is.
func shellLineAt(words []string, i int) (int, bool) {
	switch filepath.Base(words[i]) {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash":
	default:
		return 0, false
	}
	c := false
	j := i + 1
	for ; j < len(words) && len(words[j]) > 1 && words[j][0] == '-' && strings.Trim(words[j][1:], "ceilx") == ""; j++ {
		c = c || strings.Contains(words[j], "c")
	}
	return j, c && j < len(words)
}

// agentPackages are the npm packages of agents whose program is not named
// after the package.
var agentPackages = map[string]string{
	"@anthropic-ai/claude-code": "claude",
	"@openai/codex":             "codex",
	"@google/gemini-cli":        "gemini",
	"@sourcegraph/amp":          "amp",
	"opencode-ai":               "opencode",
}

// agentProgram is the agent program a program word (or an npm package
// word, name[@version]) runs, or "" if it is no known agent's.
func agentProgram(word string, pkg bool) string {
	name := filepath.Base(word)
	if pkg {
		spec := word
		if at := strings.LastIndexByte(spec, '@'); at > 0 {
			spec = spec[:at] // the version
		}
		if p, ok := agentPackages[spec]; ok {
			name = p
		} else {
			name = spec[strings.LastIndexByte(spec, '/')+1:]
		}
	}
	for _, p := range profiles {
		if slices.Contains(p.Commands, name) {
			return name
		}
	}
	return ""
}

// ExecLine has sh replace itself with a one-line command when it is a simple
// one (after its VAR=value words: sh passes those on), so the agent is the
// pane's process and tmux names the window after it, not "sh". Any other
// line is returned as written.
func ExecLine(line string) string {
	words, why := splitLine(line)
	if why != "" || len(words) == 0 {
		return line
	}
	start := 0 // where the program word begins
	for _, w := range words {
		if !isAssignment(w.text) {
			break
		}
		start = w.end
	}
	if start == len(line) {
		return line // assignments only
	}
	rest := strings.TrimLeft(line[start:], " \t")
	if first, _, _ := strings.Cut(rest, " "); first == "exec" || first == "!" {
		return line
	}
	if start == 0 {
		return "exec " + rest
	}
	return line[:start] + " exec " + rest
}

// lineWord is a word of a shell line: its value and where it ends.
type lineWord struct {
	text string
	end  int
}

// splitLine splits a one-line sh command into words as sh would. It also
// says what makes the line more than a simple command (an operator, an
// expansion, a redirection, a pattern, a comment), where inserting words
// after one of them would not be safe; the words are then only a guess.
func splitLine(line string) ([]lineWord, string) {
	var words []lineWord
	var b strings.Builder
	why := ""
	refuse := func(what string) {
		if why == "" {
			why = what
		}
	}
	in := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if in {
				words = append(words, lineWord{b.String(), i})
				b.Reset()
				in = false
			}
			continue
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				refuse("has a quote that is not closed")
				j = len(line) - i - 1
			}
			b.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				switch d := line[i]; {
				case d == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0:
					i++
					b.WriteByte(line[i])
				case d == '\\' && i+1 < len(line) && line[i+1] == '\n':
					refuse("continues a line")
					i++
				case d == '$' || d == '`':
					refuse(fmt.Sprintf("uses %q inside quotes", d))
					b.WriteByte(d)
				default:
					b.WriteByte(d)
				}
			}
			if i >= len(line) {
				refuse("has a quote that is not closed")
			}
		case c == '\\':
			if i+1 >= len(line) || line[i+1] == '\n' {
				refuse("ends a line with a backslash")
			} else {
				b.WriteByte(line[i+1])
			}
			i++
		case c == '#' && !in:
			refuse("has a comment")
			b.WriteByte(c)
		case strings.IndexByte(";|&<>()$`*?[{}\n\r", c) >= 0:
			refuse(fmt.Sprintf("uses %q", c))
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		in = true
	}
	if in {
		words = append(words, lineWord{b.String(), len(line)})
	}
	return words, why
}
