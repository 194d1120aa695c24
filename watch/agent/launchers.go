package agent

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

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
	"@github/copilot":           "copilot",
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
	return packageProgram(word)
}

// packageProgram is the agent program of a file inside a known agent's npm
// package: the loop key reads `node …/node_modules/@github/copilot/npm-loader.js`
// for a copilot started from a folder not on PATH.
func packageProgram(path string) string {
	const dir = "/node_modules/"
	i := strings.LastIndex(path, dir)
	if i < 0 {
		return ""
	}
	parts := strings.SplitN(path[i+len(dir):], "/", 3)
	pkg := parts[0]
	if strings.HasPrefix(pkg, "@") && len(parts) > 1 {
		pkg += "/" + parts[1]
	}
	return agentPackages[pkg]
}
