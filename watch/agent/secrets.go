package agent

import (
	"slices"
	"strconv"
	"strings"
)

// Hidden is what a secret's value is written as wherever a command is
// recorded or shown (NAME=…): the value itself stays in memory.
const Hidden = "…"

// SecretName reports whether an environment variable's name says it holds
// a secret: KEY, TOKEN, SECRET, PASSW(OR)D or CREDENTIAL in it, or AUTH as
// one of its words (ANTHROPIC_API_KEY, GH_TOKEN, AUTH_HEADER; not
// GIT_AUTHOR_NAME).
func SecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, s := range []string{"KEY", "TOKEN", "SECRET", "PASSW", "CREDENTIAL"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	for _, part := range strings.Split(n, "_") {
		if part == "AUTH" || part == "AUTHORIZATION" || part == "COOKIE" {
			return true
		}
	}
	return false
}

// HideSecrets is the one way a command is recorded or shown: each word
// that sets a secret in the agent's environment (NAME=value in front of its
// program word, also at the start of its shell line) becomes NAME=…, and
// held gets NAME=value, for the watcher's memory alone. A word already
// hidden stays so; its value is taken from getenv (the watcher's own
// environment: the person exported it, or the watcher's starter gave it),
// and its name is in missing when getenv has none.
func HideSecrets(command []string, getenv func(string) string) (shown, held, missing []string) {
	shown = slices.Clone(command)
	keep := func(name, value string) string {
		if value == Hidden {
			value = getenv(name)
			if value == "" {
				missing = append(missing, name)
				return name + "=" + Hidden
			}
		}
		held = append(held, name+"="+value)
		return name + "=" + Hidden
	}
	for _, i := range secretWords(command) {
		name, value, _ := strings.Cut(command[i], "=")
		shown[i] = keep(name, value)
	}
	if at, ok := lineAt(command); ok {
		shown[at] = editLine(command[at], func(name, value string) (string, bool) {
			return keep(name, value), true
		})
	}
	return shown, held, missing
}

// Runnable is a shown command as it is run: without its hidden words,
// whose values reach the agent by its environment (respawn-pane -e).
func Runnable(command []string) []string {
	out := slices.Clone(command)
	if at, ok := lineAt(command); ok {
		out[at] = editLine(command[at], func(name, value string) (string, bool) {
			return "", value != Hidden
		})
	}
	drop := secretWords(command)
	var run []string
	for i, w := range out {
		if !slices.Contains(drop, i) || !strings.HasSuffix(w, "="+Hidden) {
			run = append(run, w)
		}
	}
	return run
}

// HiddenAt says where command hides secrets in front of its program word,
// "AT:NAME AT:NAME": the word NAME=… is at AT of command, missing from its
// Runnable form.
func HiddenAt(command []string) string {
	var at []string
	for _, i := range secretWords(command) {
		if name, value, _ := strings.Cut(command[i], "="); value == Hidden {
			at = append(at, strconv.Itoa(i)+":"+name)
		}
	}
	return strings.Join(at, " ")
}

// secretWords are where command sets secrets in front of its program word.
func secretWords(command []string) []int {
	f := walk(command, false)
	end := f.at
	if end < 0 {
		end = len(command)
	}
	var at []int
	for i, w := range command[:end] {
		if name, _, ok := strings.Cut(w, "="); ok && isAssignment(w) && SecretName(name) {
			at = append(at, i)
		}
	}
	return at
}

// lineAt is where a command's one-line shell command is: sh -c LINE (a
// launch form), or a single word holding one.
func lineAt(command []string) (int, bool) {
	if len(command) == 1 && strings.ContainsAny(command[0], " \t") {
		return 0, true
	}
	f := walk(command, false)
	if f.at < 0 || f.at >= len(command) {
		return 0, false
	}
	at, ok := shellLineAt(command, f.at)
	return at, ok
}

// editLine rewrites each secret assignment in front of a shell line's
// program word (NAME=value at its start, or after env) as edit says: its
// new text, or "" and false to leave the word out.
func editLine(line string, edit func(name, value string) (string, bool)) string {
	words, _ := splitLine(line)
	values := make([]string, len(words))
	for i, w := range words {
		values[i] = w.text
	}
	end := walk(values, true).at
	if end < 0 {
		end = len(words)
	}
	var b strings.Builder
	from, prev := 0, 0
	for _, w := range words[:end] {
		start := prev + blanks(line[prev:])
		prev = w.end
		name, value, _ := strings.Cut(w.text, "=")
		if !isAssignment(w.text) || !SecretName(name) {
			continue
		}
		b.WriteString(line[from:start])
		text, keep := edit(name, value)
		if keep {
			b.WriteString(text)
			from = w.end
		} else {
			from = w.end + blanks(line[w.end:])
		}
	}
	b.WriteString(line[from:])
	return b.String()
}

// blanks is how many spaces and tabs s starts with.
func blanks(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }
